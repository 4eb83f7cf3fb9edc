import { ArgumentMetadata, Injectable, PipeTransform } from '@nestjs/common';
import { CreateUpsertDto, FieldErrors, PageQueryDto } from '@askdata/contracts';
import { ServiceError, validateDto, validateDtoInSlices } from '@askdata/common';
import type { ClassConstructor } from 'class-transformer';
import type { Rules } from '../v1/rules';
import { plainBody } from './plain-bodies';
import { queryShape } from './query-shape';

/** Bodies whose long array is validated a slice at a time (`validateDtoInSlices`): an upsert's items. */
const SLICED = new Map<unknown, string>([[CreateUpsertDto, 'items']]);
/** Elements validated at a time: a few milliseconds of the event loop. */
const SLICE = 50;

/**
 * Validates bodies and query strings against their DTO class; failures are 422 with dotted field paths. A query
 * holds only the parameters its DTO declares, each once and plain (`queryShape`). A list's `per_page` is held to
 * the configured PER_PAGE_MAX here too, so that its error comes with the others of the query. An upsert's items
 * are validated in slices, so that other requests (reads) are served in between. A question's, a search's or an
 * upsert's body of plainly valid fields is taken without the class's validation (`plainBody`).
 */
@Injectable()
export class DtoPipe implements PipeTransform {
  constructor(private readonly rules: Pick<Rules, 'perPageErrors'>) {}

  transform(value: unknown, meta: ArgumentMetadata): unknown {
    if ((meta.type !== 'body' && meta.type !== 'query') || !meta.metatype || !isDtoClass(meta.metatype)) return value;
    const plain = meta.type === 'body' ? plainBody(meta.metatype, value) : null;
    if (plain) return plain;
    const shape = meta.type === 'query' ? queryShape(meta.metatype, (value ?? {}) as Record<string, unknown>) : null;
    const input = shape ? shape.rest : meta.type === 'body' && (value === undefined || isEmptyObject(value)) ? {} : value;
    const key = meta.type === 'body' ? SLICED.get(meta.metatype) : undefined;
    const cls = meta.metatype as ClassConstructor<object>;
    if (key) return validateDtoInSlices(cls, input, key, SLICE).then((result) => this.checked(result, meta, input, shape?.errors));
    return this.checked(validateDto(cls, input), meta, input, shape?.errors);
  }

  /** The validated value, or the validation errors thrown with those of the query's shape. */
  private checked(result: ReturnType<typeof validateDto>, meta: ArgumentMetadata, input: unknown, shapeErrors: FieldErrors | undefined): unknown {
    const errors: FieldErrors = { ...(result.errors ?? {}), ...(shapeErrors ?? {}) };
    const perPage = (input as { per_page?: unknown } | null)?.per_page;
    if (meta.type === 'query' && isPageQuery(meta.metatype) && perPage !== undefined && !errors.per_page) {
      Object.assign(errors, this.rules.perPageErrors(Number(perPage)));
    }
    if (Object.keys(errors).length) throw ServiceError.validation(errors);
    return result.value;
  }
}

function isPageQuery(t: unknown): boolean {
  return t === PageQueryDto || (typeof t === 'function' && t.prototype instanceof PageQueryDto);
}

function isDtoClass(t: unknown): boolean {
  return typeof t === 'function' && ![String, Number, Boolean, Object, Array].includes(t as never);
}

function isEmptyObject(v: unknown): boolean {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && Object.keys(v).length === 0;
}
