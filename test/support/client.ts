/** HTTP helpers for the end-to-end suite: the service is driven exactly as a client would drive it. */
function state(): { url: string; adminToken: string } {
  const url = process.env.ASKDATA_E2E_URL;
  const adminToken = process.env.ASKDATA_E2E_ADMIN_TOKEN;
  if (!url || !adminToken) throw new Error('the end-to-end service is not running (see test/support/global-setup.ts)');
  return { url, adminToken };
}

export const service = state();

export interface Res<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

export async function http<T = any>(
  method: string,
  path: string,
  opts: { key?: string; body?: unknown; raw?: string; headers?: Record<string, string> } = {},
): Promise<Res<T>> {
  const headers: Record<string, string> = { ...(opts.key ? { 'Api-Key': opts.key } : {}), ...opts.headers };
  let body: string | undefined;
  if (opts.raw !== undefined) body = opts.raw;
  else if (opts.body !== undefined) {
    body = JSON.stringify(opts.body);
    headers['Content-Type'] ??= 'application/json';
  }
  const res = await fetch(service.url + path, { method, headers, body });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    /* not JSON (e.g. /docs) */
  }
  return { status: res.status, headers: res.headers, body: parsed as T };
}

export const admin = <T = any>(method: string, path: string, body?: unknown) =>
  http<T>(method, path, { body, headers: { Authorization: `Bearer ${service.adminToken}` } });

export class Project {
  constructor(
    readonly id: string,
    readonly key: string,
    readonly keyId: string,
  ) {}

  static async create(tenancy: 'single' | 'multi' = 'single', instructions?: string): Promise<Project> {
    const p = await admin('POST', '/admin/projects', { name: `e2e-${tenancy}-${Math.random().toString(36).slice(2, 8)}`, tenancy, instructions });
    if (p.status !== 201) throw new Error(`project: ${p.status} ${JSON.stringify(p.body)}`);
    const k = await admin('POST', `/admin/projects/${p.body.data.id}/keys`, { name: 'e2e' });
    return new Project(p.body.data.id, k.body.data.key, k.body.data.id);
  }

  get = <T = any>(path: string) => http<T>('GET', `/v1${path}`, { key: this.key });
  post = <T = any>(path: string, body: unknown) => http<T>('POST', `/v1${path}`, { key: this.key, body });

  /** Upserts and polls until the upsert is completed (bounded). Returns the upsert. */
  async upsert(items: unknown[], collection?: unknown): Promise<any> {
    const r = await this.post('/upserts', { items, ...(collection ? { collection } : {}) });
    if (r.status !== 201) throw new Error(`upsert: ${r.status} ${JSON.stringify(r.body)}`);
    return this.waitFor(r.body.data.id);
  }

  async waitFor(upsertId: string, timeoutMs = 60000): Promise<any> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const r = await this.get(`/upserts/${upsertId}`);
      if (r.body.data.status === 'completed' || r.body.data.status === 'failed') return r.body.data;
      if (Date.now() > deadline) throw new Error(`upsert ${upsertId} still ${r.body.data.status}`);
      await new Promise((ok) => setTimeout(ok, 100));
    }
  }
}

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
export const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;
export const MISSING = '01a20000-0000-7000-8000-000000000000';
