import { ErrorCode } from '@askdata/contracts';
import { loadConfig, ServiceError } from '@askdata/common';
import { gatewaySettings } from '../gateway.config';
import { Rules } from './rules';

const rules = new Rules(loadConfig(gatewaySettings, { MAX_UPSERT_ITEMS: '3', PER_PAGE_MAX: '50', MAX_QUESTION_CHARS: '10' }));
const multi = { projectId: '0190f000-0000-7000-8000-000000000000', tenancy: 'multi' as const };
const single = { ...multi, tenancy: 'single' as const };

function errorsOf(fn: () => void): Record<string, string[]> {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(ServiceError);
    expect((e as ServiceError).code).toBe(ErrorCode.Validation);
    return (e as ServiceError).details ?? {};
  }
  throw new Error('expected a validation error');
}

describe('tenancy rules', () => {
  it('requires a tenant on every item of a multi-tenant project', () => {
    expect(errorsOf(() => rules.upsertItems(multi, [{ tenant: 1 }, {}, { tenant: 2 }]))).toEqual({
      'items.1.tenant': ['The items.1.tenant field is required when the project is multi-tenant.'],
    });
  });

  it('does not require tenants in a single-tenant project', () => {
    expect(() => rules.upsertItems(single, [{}, {}])).not.toThrow();
  });

  it('requires a tenant on questions of a multi-tenant project only', () => {
    expect(errorsOf(() => rules.question(multi, { text: 'hi' }))).toHaveProperty('tenant');
    expect(() => rules.question(multi, { text: 'hi', tenant: 4 })).not.toThrow();
    expect(() => rules.question(single, { text: 'hi' })).not.toThrow();
  });

  it('reports non-string collection slugs by index', () => {
    expect(errorsOf(() => rules.question(single, { text: 'hi', collections: ['a', 3] }))).toEqual({
      'collections.1': ['The collections.1 field must be a string.'],
    });
  });
});

describe('configured limits', () => {
  it('bounds items per upsert, page size and question length', () => {
    expect(errorsOf(() => rules.upsertItems(single, [{}, {}, {}, {}]))).toHaveProperty('items');
    expect(errorsOf(() => rules.page({ per_page: 51 }))).toHaveProperty('per_page');
    expect(rules.page({})).toEqual({ page: 1, perPage: 15 });
    expect(errorsOf(() => rules.question(single, { text: 'x'.repeat(11) }))).toHaveProperty('text');
  });
});
