/** An unfinished upsert of a project, as a claim looks behind the head or the upserts in flight. */
export interface Waiting {
  id: string;
  items_count: number;
  /** Queued and due, never attempted, and an upsert (a delete is never grouped: it runs alone, in its turn). */
  first: boolean;
}

/**
 * The leading upserts of `waiting` that make a group of at most `room` items: first attempts, in order, while they
 * fit. An upsert that is not on its first attempt, or does not fit, ends the group.
 */
export function followers(waiting: Waiting[], room: number): string[] {
  const ids: string[] = [];
  let items = 0;
  for (const u of waiting) {
    if (!u.first || items + u.items_count > room) break;
    items += u.items_count;
    ids.push(u.id);
  }
  return ids;
}

/** The project's unfinished upserts after those in flight: none if one not in flight comes before one that is. */
export function behindInFlight(unfinished: Waiting[], inFlight: ReadonlySet<string>): Waiting[] {
  let k = 0;
  while (k < unfinished.length && inFlight.has(unfinished[k].id)) k++;
  return unfinished.slice(k);
}

/**
 * The longest leading run of `ids` whose batches touch none of the items in `held`, in order: a group that may be
 * processed while the groups holding those items are, since the order between them is then immaterial. An upsert
 * whose batch is missing ends the run.
 */
export function disjointRun(ids: string[], itemsOf: (id: string) => readonly string[] | undefined, held: ReadonlySet<string>): string[] {
  const run: string[] = [];
  for (const id of ids) {
    const items = itemsOf(id);
    if (!items || items.some((i) => held.has(i))) break;
    run.push(id);
  }
  return run;
}
