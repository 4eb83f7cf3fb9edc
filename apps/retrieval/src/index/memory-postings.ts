// Over 250 lines: one data structure, the memory index of a key, whose exact scoring (and its pruning) works on the
// same arrays as its upkeep.
import { GRAM_WEIGHT, isGram } from '@askdata/common/text/analyzer';
import { FieldFilter } from '@askdata/contracts';
import { IMPACT_BITS, IMPACT_MASK, IMPACT_SCALE } from './forward-entries';
import { Metadata, metadataTest } from './filters';
import { TopItems } from './top-items';

/** A chunk as the memory index takes it: its number, item, where it belongs, length and forward index. */
export interface MemoryChunk {
  id: string;
  item_id: string;
  collection: string;
  tenant: number | null;
  length: number;
  /** term -> `forwardEntry(tf, impact)`, as stored. */
  terms: Record<string, number>;
}

/** A chunk whose forward index comes as its terms and, from `from` on in `entries`, their forward entries. */
export type PackedChunk = Omit<MemoryChunk, 'terms'> & { names: readonly string[]; entries: ArrayLike<number>; from: number };

export interface MemorySearch {
  terms: readonly string[];
  k1: number;
  b: number;
  /** A run of characters is counted only when it is in at most this many chunks (0: always), as in SQL. */
  gramDepth: number;
  tenant: number | null;
  collections: readonly string[] | null;
  /** Conditions on the chunks' metadata (`metadataTest`). */
  filters?: readonly FieldFilter[];
  limit: number;
}

/** A hit: the chunk's number and its exact BM25 score; one per item, best first. */
export interface MemoryHit {
  id: string;
  itemId: string;
  score: number;
}

/**
 * A term's postings: chunk slots and, in parallel, what each is scored by, in the order they were added. A word is
 * scored by its term frequency, held in a byte while every one fits (almost always: a chunk has a few hundred words)
 * and in two beyond; a run of characters by its posting's impact, held as the forward entry. A posting takes five
 * bytes then, not the eight of an entry beside its slot.
 */
class Postings {
  slots = new Int32Array(2);
  values: Uint8Array | Uint16Array | Int32Array;
  n = 0;
  /** Its live postings, counted at `dfAt` (`MemoryPostings.df`). */
  df = 0;
  dfAt = -1;

  /** A run of characters': the greatest impact pushed (an upper bound of the live ones). */
  maxImpact = 0;

  constructor(readonly gram: boolean) {
    this.values = gram ? new Int32Array(2) : new Uint8Array(2);
  }

  /** Adds the slot's posting, of forward entry `entry`. */
  push(slot: number, entry: number): void {
    let value = entry;
    if (this.gram) {
      if ((entry & IMPACT_MASK) > this.maxImpact) this.maxImpact = entry & IMPACT_MASK;
    } else {
      value = entry >>> IMPACT_BITS;
      if (value > 0xff && this.values instanceof Uint8Array) this.values = grown(this.values, this.values.length, Uint16Array);
    }
    if (this.n === this.slots.length) {
      const size = Math.max(2, this.n * 2);
      this.slots = grown(this.slots, size);
      this.values = grown(this.values, size);
    }
    this.slots[this.n] = slot;
    this.values[this.n++] = value;
  }
}

type Numbers = Uint8Array | Uint16Array | Int32Array | Float64Array;

/** `a`'s values in a new array of `size` (at least its length), of `a`'s kind or the one given. */
function grown<T extends Numbers>(a: T, size: number, as?: new (n: number) => Numbers): T {
  const b = new (as ?? (a.constructor as new (n: number) => T))(size) as T;
  b.set(a);
  return b;
}

/** A term of a search: its postings, IDF, whether it is a run of characters, and the most it adds to a score. */
interface Planned {
  p: Postings;
  idf: number;
  gram: boolean;
  most: number;
}

/** BM25's constants for one search. */
interface Scoring {
  k1: number;
  base: number;
  perLength: number;
}

/** The first place at or after `from` in the ascending `slots[0..n)` whose slot is at least `slot` (n when none). */
function seek(slots: Int32Array, from: number, n: number, slot: number): number {
  // Galloping: looked-up slots ascend, so each is found a short way after the last.
  let lo = from;
  let step = 1;
  while (lo + step < n && slots[lo + step] < slot) {
    lo += step;
    step <<= 1;
  }
  let hi = Math.min(lo + step, n);
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (slots[mid] < slot) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Bytes a posting, a chunk, a term and an item take, about: for the memory budget. A posting's five bytes grow to seven
 * with the room its arrays hold while they grow; at 100,000 synthetic items a trimmed index took 8.8 bytes a posting in
 * all (`bench/memory-index.ts`), these say 10.6.
 */
export const POSTING_BYTES = 7;
export const CHUNK_BYTES = 40;
export const TERM_BYTES = 450;
export const ITEM_BYTES = 110;
/** Filters whose results on the distinct metadata held are kept, the most recently used. */
const FILTERS_KEPT = 16;

/**
 * One index key's chunks in memory as an inverted index, scored with exact, exhaustive BM25: every posting of every
 * query term counts (no depth), with document frequencies, the collection size and the average length computed from
 * the chunks held, which are the database's (`MemoryIndexes` keeps them so). A filter counts only the chunks of its
 * tenant, collections and metadata (each distinct metadata tested once, `passes`). A replaced or removed chunk's slot is
 * marked dead and skipped; dead slots are compacted away once they outnumber the live ones.
 */
export class MemoryPostings {
  private readonly terms = new Map<string, Postings>();
  /** Each slot's chunk number as a number, or NaN when it is not one exactly (then in `idTexts`, by slot). */
  private idOf = new Float64Array(16);
  private idTexts = new Map<number, string>();
  private itemOf = new Int32Array(16);
  private collectionOf = new Int32Array(16);
  private tenantOf = new Float64Array(16);
  private lengthOf = new Int32Array(16);
  private alive = new Uint8Array(16);
  private slots = 0;
  private live = 0;
  private totalLength = 0;
  private postings = 0;
  /**
   * Items by number, and their numbers; by number, the first of an item's live slots and how many it has: an item's
   * chunks are added together, so its slots follow one another (compaction keeps their order).
   */
  private itemIds: string[] = [];
  private readonly items = new Map<string, number>();
  private firstOf = new Int32Array(16);
  private countOf = new Int32Array(16);
  private readonly collections = new Map<string, number>();
  /** Each slot's metadata, by number in `metas`: distinct metadata (as JSON) is held once. */
  private metaOf = new Int32Array(16);
  private metas: Metadata[] = [];
  private readonly metaNumbers = new Map<string, number>();
  private metaBytes = 0;
  /**
   * Per filter (as JSON), whether each of `metas` passes it, as far as `upTo`: metadata is only added between
   * compactions, which renumber it and let these go.
   */
  private readonly passing = new Map<string, { pass: Uint8Array; upTo: number }>();
  /** Per search, reused: scores by slot, and best score and slot by item. */
  private scores = new Float64Array(0);
  private touched = new Int32Array(0);
  /** Chunks added and removed so far: a term's document frequency counted at one count holds until the next. */
  private changes = 0;
  private best = new Float64Array(0);
  private bestSlot = new Int32Array(0);

  /** @param compactAfter dead slots that are always tolerated (beyond, as many as there are live ones). */
  constructor(private readonly compactAfter = 4096) {}

  get chunks(): number {
    return this.live;
  }

  /** Its chunks, terms and postings (dead ones included until compacted). */
  stats(): { chunks: number; terms: number; postings: number } {
    return { chunks: this.live, terms: this.terms.size, postings: this.postings };
  }

  /** Bytes held, about. */
  get bytes(): number {
    return this.postings * POSTING_BYTES + this.slots * CHUNK_BYTES + this.terms.size * TERM_BYTES + this.itemIds.length * ITEM_BYTES + this.metaBytes;
  }

  /** Replaces an item's chunks by `chunks` (none: removes it), with the item's metadata. */
  replaceItem(itemId: string, chunks: ReadonlyArray<MemoryChunk | PackedChunk>, metadata: Metadata = {}): void {
    let no = this.items.get(itemId);
    if (no !== undefined) {
      const first = this.firstOf[no];
      for (let s = first; s < first + this.countOf[no]; s++) this.kill(s);
      this.countOf[no] = 0;
    }
    if (!chunks.length) {
      if (no !== undefined) this.items.delete(itemId);
      return;
    }
    if (no === undefined) {
      no = this.itemIds.length;
      if (no === this.firstOf.length) {
        this.firstOf = grown(this.firstOf, no * 2);
        this.countOf = grown(this.countOf, no * 2);
      }
      this.itemIds.push(itemId);
      this.items.set(itemId, no);
    }
    const meta = this.metaNumber(metadata);
    this.firstOf[no] = this.slots;
    this.countOf[no] = chunks.length;
    for (const c of chunks) this.add(no, meta, c);
    if (this.slots - this.live > Math.max(this.live, this.compactAfter)) this.compact();
  }

  /**
   * The number of `metadata` in `metas`, added if new: as JSON gives it back, which is what the database holds (a
   * number JSON cannot write, such as Infinity, is null there too). Anything but an object has no fields, as `{}`.
   */
  private metaNumber(metadata: Metadata): number {
    const json = metadata !== null && typeof metadata === 'object' && !Array.isArray(metadata) ? JSON.stringify(metadata) : '{}';
    let no = this.metaNumbers.get(json);
    if (no === undefined) {
      no = this.metas.length;
      this.metas.push(JSON.parse(json) as Metadata);
      this.metaNumbers.set(json, no);
      this.metaBytes += 2 * json.length + 150;
    }
    return no;
  }

  private add(itemNo: number, meta: number, c: MemoryChunk | PackedChunk): void {
    if (this.slots === this.alive.length) this.growSlots(this.slots * 2);
    const slot = this.slots++;
    let collection = this.collections.get(c.collection);
    if (collection === undefined) this.collections.set(c.collection, (collection = this.collections.size));
    const id = Number(c.id);
    if (Number.isSafeInteger(id) && String(id) === c.id) this.idOf[slot] = id;
    else {
      this.idOf[slot] = NaN;
      this.idTexts.set(slot, c.id);
    }
    this.itemOf[slot] = itemNo;
    this.collectionOf[slot] = collection;
    this.metaOf[slot] = meta;
    this.tenantOf[slot] = c.tenant ?? NaN;
    this.lengthOf[slot] = c.length;
    this.alive[slot] = 1;
    this.live++;
    this.changes++;
    this.totalLength += c.length;
    const post = (term: string, entry: number) => {
      let p = this.terms.get(term);
      if (!p) this.terms.set(term, (p = new Postings(isGram(term))));
      p.push(slot, entry);
      this.postings++;
    };
    if ('names' in c) for (let k = 0; k < c.names.length; k++) post(c.names[k], c.entries[c.from + k]);
    else for (const term in c.terms) post(term, c.terms[term]);
  }

  /** The chunk number of a slot. */
  private idAt(slot: number): string {
    const id = this.idOf[slot];
    return id === id ? String(id) : this.idTexts.get(slot)!;
  }

  private kill(slot: number): void {
    if (!this.alive[slot]) return;
    this.alive[slot] = 0;
    this.live--;
    this.changes++;
    this.totalLength -= this.lengthOf[slot];
  }

  private growSlots(size: number): void {
    this.idOf = grown(this.idOf, size);
    this.itemOf = grown(this.itemOf, size);
    this.collectionOf = grown(this.collectionOf, size);
    this.metaOf = grown(this.metaOf, size);
    this.tenantOf = grown(this.tenantOf, size);
    this.lengthOf = grown(this.lengthOf, size);
    const alive = new Uint8Array(size);
    alive.set(this.alive);
    this.alive = alive;
  }

  /** Gives back the room grown arrays hold beyond their postings (after a load, when no more are coming soon). */
  trim(): void {
    for (const p of this.terms.values()) {
      if (p.slots.length <= p.n + (p.n >> 3)) continue;
      p.slots = p.slots.slice(0, p.n);
      p.values = p.values.slice(0, p.n);
    }
  }

  /** Drops dead slots: live ones are renumbered in order, and every term's postings rewritten without the dead. */
  private compact(): void {
    const to = new Int32Array(this.slots).fill(-1);
    let next = 0;
    for (let s = 0; s < this.slots; s++) {
      if (!this.alive[s]) continue;
      to[s] = next;
      this.idOf[next] = this.idOf[s];
      this.itemOf[next] = this.itemOf[s];
      this.collectionOf[next] = this.collectionOf[s];
      this.metaOf[next] = this.metaOf[s];
      this.tenantOf[next] = this.tenantOf[s];
      this.lengthOf[next] = this.lengthOf[s];
      this.alive[next] = 1;
      next++;
    }
    this.alive.fill(0, next);
    if (this.idTexts.size) this.idTexts = new Map([...this.idTexts].filter(([s]) => to[s] >= 0).map(([s, id]) => [to[s], id]));
    this.slots = next;
    this.postings = 0;
    for (const [term, p] of this.terms) {
      let k = 0;
      for (let i = 0; i < p.n; i++) {
        const s = to[p.slots[i]];
        if (s < 0) continue;
        p.slots[k] = s;
        p.values[k++] = p.values[i];
      }
      if (!k) this.terms.delete(term);
      p.n = k;
      this.postings += k;
    }
    // Items renumbered too: an item replaced by others leaves no number behind.
    const items = new Int32Array(this.itemIds.length).fill(-1);
    const firstOf = new Int32Array(Math.max(16, this.items.size));
    const countOf = new Int32Array(firstOf.length);
    this.itemIds = [];
    for (const [id, no] of this.items) {
      const renumbered = this.itemIds.length;
      items[no] = renumbered;
      firstOf[renumbered] = to[this.firstOf[no]];
      countOf[renumbered] = this.countOf[no];
      this.itemIds.push(id);
      this.items.set(id, renumbered);
    }
    this.firstOf = firstOf;
    this.countOf = countOf;
    for (let s = 0; s < next; s++) this.itemOf[s] = items[this.itemOf[s]];
    this.compactMetas();
  }

  /** Keeps only the metadata live slots have, renumbered; the filters' results are let go. */
  private compactMetas(): void {
    const to = new Int32Array(this.metas.length).fill(-1);
    const metas: Metadata[] = [];
    for (let s = 0; s < this.slots; s++) {
      const m = this.metaOf[s];
      if (to[m] < 0) {
        to[m] = metas.length;
        metas.push(this.metas[m]);
      }
      this.metaOf[s] = to[m];
    }
    this.metaNumbers.clear();
    this.metaBytes = 0;
    metas.forEach((metadata, no) => {
      const json = JSON.stringify(metadata);
      this.metaNumbers.set(json, no);
      this.metaBytes += 2 * json.length + 150;
    });
    this.metas = metas;
    this.passing.clear();
  }

  /** Best items first, one hit per item (its best chunk); ties by item id, as the SQL search orders them. */
  search(q: MemorySearch): MemoryHit[] {
    const n = this.live;
    if (!n || q.limit < 1) return [];
    if (this.scores.length < this.slots) {
      this.scores = new Float64Array(this.alive.length);
      this.touched = new Int32Array(this.alive.length);
    }
    if (this.best.length < this.itemIds.length) {
      this.best = new Float64Array(this.itemIds.length * 2);
      this.bestSlot = new Int32Array(this.itemIds.length * 2);
    }
    const avgdl = Math.max(this.totalLength / n, 1);
    const score: Scoring = { k1: q.k1, base: q.k1 * (1 - q.b), perLength: (q.k1 * q.b) / avgdl };
    // The slots a posting may count for: live, of the tenant and collections asked for, passing the filter.
    const open = q.tenant === null && !q.collections && !q.filters?.length ? this.alive : this.openSlots(q);
    const plan = this.plan(q, n);
    // What the terms after each one can add at most to a chunk's score.
    const rest = new Float64Array(plan.length);
    for (let j = plan.length - 2; j >= 0; j--) rest[j] = rest[j + 1] + plan[j + 1].most;
    let touches = 0;
    let floor = 0;
    let checkedAt = Infinity;
    let j = 0;
    while (j < plan.length) {
      touches = this.addAll(plan[j], score, open, touches);
      // Once the terms left cannot lift a chunk not yet found to the limit-th best item's score, they only
      // count for the chunks found that still can (MaxScore): a common term's long postings are not read through.
      if (++j < plan.length && touches >= q.limit && rest[j - 1] < checkedAt * 0.8) {
        checkedAt = rest[j - 1];
        floor = Math.max(floor, this.limitthScore(touches, q.limit));
        if (rest[j - 1] < floor) break;
      }
    }
    if (j < plan.length) touches = this.addToFound(plan, j, rest, score, touches, floor);
    return this.bestItems(this.touched.subarray(0, touches), q.limit);
  }

  /** The query's terms held, with their IDF and the most each adds to a chunk's score, that most first. */
  private plan(q: MemorySearch, n: number): Planned[] {
    const plan: Planned[] = [];
    for (const term of new Set(q.terms)) {
      const p = this.terms.get(term);
      if (!p) continue;
      const df = this.df(p);
      if (!df) continue;
      const gram = p.gram;
      if (gram && q.gramDepth > 0 && df > q.gramDepth) continue;
      const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5)) * (gram ? GRAM_WEIGHT : 1);
      // A word's part: tf / (tf + norm) < 1. A run's: its impact as written (with the k1 of then).
      // (A hair more, for rounding.)
      const most = gram ? (idf * p.maxImpact) / IMPACT_SCALE : idf * (q.k1 + 1);
      plan.push({ p, idf, gram, most: most * (1 + 1e-9) });
    }
    return plan.sort((a, b) => b.most - a.most);
  }

  /** A term's part of a chunk's score, from its posting's value (`Postings`). */
  private part(t: Planned, score: Scoring, value: number, slot: number): number {
    if (t.gram) return (t.idf * (value & IMPACT_MASK)) / IMPACT_SCALE;
    return (t.idf * (score.k1 + 1) * value) / (value + score.base + score.perLength * this.lengthOf[slot]);
  }

  /** Adds a term's every posting; returns the chunks found so far. */
  private addAll(t: Planned, score: Scoring, open: Uint8Array, touches: number): number {
    const { scores, touched } = this;
    const { slots, values } = t.p;
    const count = t.p.n;
    for (let i = 0; i < count; i++) {
      const s = slots[i];
      if (!open[s]) continue;
      if (scores[s] === 0) touched[touches++] = s;
      scores[s] += this.part(t, score, values[i], s);
    }
    return touches;
  }

  /**
   * Adds the terms from `plan[from]` on to the chunks found that can still reach `floor` (a chunk whose score and
   * all the terms left could add, `rest`, fall short of it cannot make the page: cleared and let go, again after each
   * term), looking each up in the term's postings, the chunks in slot order; returns how many chunks are left.
   */
  private addToFound(plan: Planned[], from: number, rest: Float64Array, score: Scoring, touches: number, floor: number): number {
    const { scores, touched } = this;
    const keep = (n: number, least: number) => {
      let kept = 0;
      for (let i = 0; i < n; i++) {
        const s = touched[i];
        if (scores[s] >= least) touched[kept++] = s;
        else scores[s] = 0;
      }
      return kept;
    };
    let kept = keep(touches, floor - rest[from - 1]);
    touched.subarray(0, kept).sort();
    for (let j = from; j < plan.length; j++) {
      const t = plan[j];
      const { slots, values, n } = t.p;
      let at = 0;
      for (let i = 0; i < kept && at < n; i++) {
        const s = touched[i];
        at = seek(slots, at, n, s);
        if (at < n && slots[at] === s) scores[s] += this.part(t, score, values[at], s);
      }
      if (j + 1 < plan.length) kept = keep(kept, floor - rest[j]);
    }
    return kept;
  }

  /**
   * The score of the limit-th best item among the chunks found (its best chunk's); 0 when fewer were found. One pass
   * over the chunks, keeping the `limit` best items met so far: the least of them only rises, so a chunk not above it
   * when met cannot change it.
   */
  private limitthScore(touches: number, limit: number): number {
    const { scores, touched, itemOf } = this;
    // The best items so far, their scores ascending.
    const top = new Float64Array(limit);
    const topItems = new Int32Array(limit);
    let filled = 0;
    for (let i = 0; i < touches; i++) {
      const s = touched[i];
      const v = scores[s];
      if (filled === limit && v <= top[0]) continue;
      const item = itemOf[s];
      let at = 0;
      while (at < filled && topItems[at] !== item) at++;
      if (at < filled) {
        // The item is kept already: with this chunk's score if better.
        if (v <= top[at]) continue;
        top.copyWithin(at, at + 1, filled);
        topItems.copyWithin(at, at + 1, filled);
        filled--;
      } else if (filled === limit) {
        // The least goes.
        top.copyWithin(0, 1, filled);
        topItems.copyWithin(0, 1, filled);
        filled--;
      }
      // Where v goes among those kept (after those less than it), found by halving.
      let [lo, hi] = [0, filled];
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (top[mid] < v) lo = mid + 1;
        else hi = mid;
      }
      top.copyWithin(lo + 1, lo, filled);
      topItems.copyWithin(lo + 1, lo, filled);
      top[lo] = v;
      topItems[lo] = item;
      filled++;
    }
    return filled >= limit ? top[0] : 0;
  }

  /** The items of the touched chunks, each item's best score and chunk in `best` and `bestSlot` (the caller clears `best`). */
  private itemBests(touched: Int32Array): number[] {
    const { scores, best, bestSlot, itemOf } = this;
    const items: number[] = [];
    for (let i = 0; i < touched.length; i++) {
      const s = touched[i];
      const item = itemOf[s];
      if (best[item] === 0) items.push(item);
      if (scores[s] > best[item]) {
        best[item] = scores[s];
        bestSlot[item] = s;
      }
    }
    return items;
  }

  /** A term's document frequency: its live postings, counted again only after a change. */
  private df(p: Postings): number {
    if (this.slots === this.live) return p.n;
    if (p.dfAt !== this.changes) {
      let df = 0;
      for (let i = 0; i < p.n; i++) df += this.alive[p.slots[i]];
      p.df = df;
      p.dfAt = this.changes;
    }
    return p.df;
  }

  /** Live slots of the query's tenant and collections whose metadata passes its filter, as 1s. */
  private openSlots(q: MemorySearch): Uint8Array {
    const collections = q.collections ? new Set(q.collections.map((c) => this.collections.get(c) ?? -1)) : null;
    const pass = q.filters?.length ? this.passes(q.filters) : null;
    const open = new Uint8Array(this.slots);
    for (let s = 0; s < this.slots; s++) {
      open[s] =
        this.alive[s] && (q.tenant === null || this.tenantOf[s] === q.tenant) && (!collections || collections.has(this.collectionOf[s])) && (!pass || pass[this.metaOf[s]]) ? 1 : 0;
    }
    return open;
  }

  /** Whether each of `metas` passes the filter: tested once each, and kept for the next searches with it. */
  private passes(filters: readonly FieldFilter[]): Uint8Array {
    const key = JSON.stringify(filters);
    let kept = this.passing.get(key);
    if (kept) this.passing.delete(key);
    else kept = { pass: new Uint8Array(0), upTo: 0 };
    // Most recently used last, so the first is the next to go.
    this.passing.set(key, kept);
    if (this.passing.size > FILTERS_KEPT) this.passing.delete(this.passing.keys().next().value!);
    if (kept.upTo < this.metas.length) {
      if (kept.pass.length < this.metas.length) {
        const pass = new Uint8Array(this.metas.length * 2);
        pass.set(kept.pass.subarray(0, kept.upTo));
        kept.pass = pass;
      }
      const test = metadataTest(filters);
      for (let m = kept.upTo; m < this.metas.length; m++) kept.pass[m] = test(this.metas[m]) ? 1 : 0;
      kept.upTo = this.metas.length;
    }
    return kept.pass;
  }

  /** The best chunk of each touched item, then the `limit` best items; the scores are cleared for the next search. */
  private bestItems(touched: Int32Array, limit: number): MemoryHit[] {
    const best = this.best;
    const items = this.itemBests(touched);
    for (const s of touched) this.scores[s] = 0;
    const heap = new TopItems(limit, (a, b) => best[a] - best[b] || (this.itemIds[a] < this.itemIds[b] ? 1 : this.itemIds[a] > this.itemIds[b] ? -1 : 0));
    for (const item of items) heap.offer(item);
    const hits = heap.sorted().map((item) => ({ id: this.idAt(this.bestSlot[item]), itemId: this.itemIds[item], score: best[item] }));
    for (const item of items) best[item] = 0;
    return hits;
  }
}
