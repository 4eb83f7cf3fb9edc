export const TENANCIES = ['single', 'multi'] as const;
export type Tenancy = (typeof TENANCIES)[number];

/** Who is asking: resolved by the gateway from the API key and sent with every bus request. */
export interface Scope {
  projectId: string;
  tenancy: Tenancy;
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
