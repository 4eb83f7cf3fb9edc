export const TENANCIES = ['single', 'multi'] as const;
export type Tenancy = (typeof TENANCIES)[number];

/** Who is asking: resolved by the gateway from the API key and sent with every bus request. */
export interface Scope {
  projectId: string;
  tenancy: Tenancy;
}

/** A multi-tenant project's items, questions and searches name their tenant: true when `tenant` is missing there. */
export function tenantMissing(scope: Scope, tenant: number | null | undefined): boolean {
  return scope.tenancy === 'multi' && (tenant === undefined || tenant === null);
}

/** The error of a missing tenant, for the field that lacks it (`tenant`, `items.3.tenant`). */
export function tenantRequired(field = 'tenant'): string {
  return `The ${field} field is required when the project is multi-tenant.`;
}

export interface PageRequest {
  page: number;
  perPage: number;
}

/** A page of results as a service returns it; the gateway wraps it in the public pagination envelope. */
export interface Paged<T> {
  data: T[];
  total: number;
}
