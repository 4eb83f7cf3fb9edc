import { ArgumentMetadata, Injectable, PipeTransform } from '@nestjs/common';
import { ServiceError, validateDto } from '@askdata/common';
import type { ClassConstructor } from 'class-transformer';

/** Validates bodies and query strings against their DTO class; failures are 422 with dotted field paths. */
@Injectable()
export class DtoPipe implements PipeTransform {
  transform(value: unknown, meta: ArgumentMetadata): unknown {
    if ((meta.type !== 'body' && meta.type !== 'query') || !meta.metatype || !isDtoClass(meta.metatype)) return value;
    const input = meta.type === 'body' && (value === undefined || isEmptyObject(value)) ? {} : value;
    const result = validateDto(meta.metatype as ClassConstructor<object>, input);
    if (result.errors) throw ServiceError.validation(result.errors);
    return result.value;
  }
}

function isDtoClass(t: unknown): boolean {
  return typeof t === 'function' && ![String, Number, Boolean, Object, Array].includes(t as never);
}

function isEmptyObject(v: unknown): boolean {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && Object.keys(v).length === 0;
}
