import { Inject, Injectable } from '@nestjs/common';
import { Bounds, charCount, FieldErrors, Scope, tenantMissing, tenantRequired } from '@askdata/contracts';
import { ServiceError } from '@askdata/common';
import { GATEWAY_CONFIG, GatewayConfig } from '../gateway.config';

/** Tenancy rules and the configurable limits, checked before anything reaches a service. */
@Injectable()
export class Rules {
  constructor(@Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig) {}

  page(q: { page?: number; per_page?: number }): { page: number; perPage: number } {
    const perPage = q.per_page ?? Math.min(Bounds.perPageDefault, this.config.PER_PAGE_MAX);
    const errors = this.perPageErrors(perPage);
    if (errors.per_page) throw ServiceError.validation(errors);
    return { page: q.page ?? 1, perPage };
  }

  /** A page size over PER_PAGE_MAX, as a field error (the DTO pipe reports it with a query's other errors). */
  perPageErrors(perPage: number): FieldErrors {
    return perPage > this.config.PER_PAGE_MAX ? { per_page: [`The per_page field must not be greater than ${this.config.PER_PAGE_MAX}.`] } : {};
  }

  upsertItems(scope: Scope, items: Array<{ tenant?: number | null }>): void {
    const errors: FieldErrors = {};
    if (items.length > this.config.MAX_UPSERT_ITEMS) {
      errors.items = [`The items field must not have more than ${this.config.MAX_UPSERT_ITEMS} items.`];
    }
    items.forEach((item, i) => {
      if (tenantMissing(scope, item.tenant)) errors[`items.${i}.tenant`] = [tenantRequired(`items.${i}.tenant`)];
    });
    if (Object.keys(errors).length) throw ServiceError.validation(errors);
  }

  question(scope: Scope, q: { text: string; tenant?: number | null; collections?: unknown[] }): void {
    const errors: FieldErrors = {};
    (q.collections ?? []).forEach((slug, i) => {
      if (typeof slug !== 'string') errors[`collections.${i}`] = [`The collections.${i} field must be a string.`];
    });
    if (charCount(q.text) > this.config.MAX_QUESTION_CHARS) {
      errors.text = [`The text field must not be greater than ${this.config.MAX_QUESTION_CHARS} characters.`];
    }
    if (tenantMissing(scope, q.tenant)) errors.tenant = [tenantRequired()];
    if (Object.keys(errors).length) throw ServiceError.validation(errors);
  }

  followUp(text: string): void {
    if (charCount(text) > this.config.MAX_QUESTION_CHARS) {
      throw ServiceError.invalidField('text', `The text field must not be greater than ${this.config.MAX_QUESTION_CHARS} characters.`);
    }
  }

  feedback(feedback: string): void {
    if (charCount(feedback) > this.config.MAX_FEEDBACK_CHARS) {
      throw ServiceError.invalidField('feedback', `The feedback field must not be greater than ${this.config.MAX_FEEDBACK_CHARS} characters.`);
    }
  }
}
