import { AskdataClient } from '@askdata/client';

/** The admin token lives in this tab's sessionStorage only: closing the tab signs out. */
const TOKEN_KEY = 'askdata.admin-token';

export const session = {
  token: (): string | null => sessionStorage.getItem(TOKEN_KEY),
  signIn: (token: string): void => sessionStorage.setItem(TOKEN_KEY, token),
  signOut: (): void => sessionStorage.removeItem(TOKEN_KEY),
};

export interface Project {
  id: string;
  name: string;
  tenancy: 'single' | 'multi';
  instructions: string | null;
  created_at: string;
}

export interface ApiKey {
  id: string;
  name: string | null;
  prefix: string;
  kind: 'secret' | 'publishable';
  origins: string[];
  created_at: string;
  last_used_at: string | null;
}

function describe(status: number): string {
  if (status === 401) return 'The admin token was not accepted. Sign in again.';
  if (status === 429) return 'Too many requests: wait a moment and try again.';
  if (status >= 500) return `The service could not answer (${status}). Try again shortly.`;
  return `The request failed (${status}).`;
}

/** A call of the admin API with the signed-in token; 401 signs out. */
export async function admin<T>(method: string, path: string, body?: unknown): Promise<T> {
  let res: Response;
  try {
    res = await fetch(`/admin${path}`, {
      method,
      headers: { Authorization: `Bearer ${session.token() ?? ''}`, Accept: 'application/json', ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    throw new Error('The service could not be reached. Is it running?');
  }
  if (res.status === 204) return undefined as T;
  const json = (await res.json().catch(() => null)) as { message?: string } | null;
  if (!res.ok) {
    if (res.status === 401) window.dispatchEvent(new Event('askdata:signed-out'));
    // A failed request is its message: the service's, or a plain one when it gave none.
    throw new Error(res.status === 401 ? describe(401) : (json?.message ?? describe(res.status)));
  }
  return json as T;
}

/**
 * The /v1 API of a project, as the console reaches it: the admin token with `Askdata-Project`, which the gateway
 * takes on the port that serves the admin API. No key is created for the console.
 */
export function projectClient(projectId: string): AskdataClient {
  return new AskdataClient({
    baseUrl: location.origin,
    apiKey: '',
    headers: { Authorization: `Bearer ${session.token() ?? ''}`, 'Askdata-Project': projectId },
    maxRetries: 1,
  });
}

/** A message for any error, in words. */
export function messageOf(error: unknown): string {
  if (error instanceof Error && error.message) return error.message;
  return 'Something went wrong.';
}
