import type { PageParams } from './inputs.js';
import type { Page } from './types.js';

/**
 * Every element of a list, page after page, following each page's `links.next` (its `page` number only: the other
 * parameters stay the caller's, and requests stay on the client's own address). Ends after the last page.
 */
export async function* paginate<T, P extends PageParams>(fetchPage: (params: P) => Promise<Page<T>>, params: P): AsyncGenerator<T, void, undefined> {
  let current = params;
  for (;;) {
    const page = await fetchPage(current);
    yield* page.data;
    const next = nextPage(page);
    if (next === null || next <= (current.page ?? 1) || page.data.length === 0) return;
    current = { ...params, page: next };
  }
}

function nextPage(page: Page<unknown>): number | null {
  if (!page.links.next) return null;
  const value = new URL(page.links.next).searchParams.get('page');
  return value !== null && /^\d+$/.test(value) ? Number(value) : null;
}
