// Over 250 lines: one computation, an index batch prepared from its items; kept whole and pure so that it runs on a
// thread of its own.
import { ChunkInput } from '@askdata/contracts';
// Deep imports: the preparation thread loads only what it runs, not the services' whole toolkit.
import { TimeSlices } from '@askdata/common/async/time-slices';
import { packText } from '@askdata/common/database/packed';
import { isGram, termFrequencies } from '@askdata/common/text/analyzer';
import { bandOf } from './bands';
import { forwardEntry, IMPACT_SCALE, packForward } from './forward-entries';
import { indexedText } from './search-index';
import type { Bm25Parameters } from './sparse-vectors';

/**
 * An index batch of the PostgreSQL backend, prepared before its transaction: its chunks analysed, and everything it
 * writes computed, so that the database does not wait on it. Pure computation over the batch's items, the block number
 * and the project's statistics, so that it can run on a thread of its own (`BatchPreparer`).
 */

/** A chunk's stored fields, but for its number, block and forward index. */
export interface ChunkFields {
  item_id: string;
  client_item_id: string;
  collection: string;
  tenant: number | null;
  url: string | null;
  metadata: Record<string, unknown>;
  text: string;
  n: number;
  language: string;
}

/** The fields of an item's `n`th chunk, `text`, as they are written (and read back). */
export function chunkFields(item: ChunkInput, text: string, n: number): ChunkFields {
  return {
    item_id: item.itemId,
    client_item_id: item.clientItemId,
    collection: item.collection,
    tenant: item.tenant,
    url: item.url,
    metadata: item.metadata,
    text,
    n,
    // Text whose language could not be told is analyzed as English.
    language: item.language ?? 'en',
  };
}

/** A chunk row as written: its fields, and its item's title on the first chunk (to rebuild the index from). */
type WrittenFields = ChunkFields & { title: string | null };

/**
 * A chunk analysed, before its batch is prepared: its fields and length, and its terms with their frequencies (in
 * parallel). The row written adds its number (`chunkNumber`), its block and its forward index (`terms`: term ->
 * `forwardEntry(tf, impact)`).
 */
interface AnalyzedChunk {
  row: WrittenFields & { length: number };
  terms: TermPostings[];
  tfs: number[];
}

/** A term as the batch collects it, and its place in the batch's order of terms. */
interface TermPostings {
  term: string;
  /** The term's length in UTF-8 bytes. */
  bytes: number;
  /** Its place among the batch's terms (`termOrder`). */
  rank: number;
  /** A run of a word's characters (`isGram`): its impact is normalised against a fixed average length. */
  gram: boolean;
}

/**
 * The batch's postings as they are met, in parallel: term rank, chunk place, impact and forward entry (grown as
 * needed). Each term's postings are then gathered by a counting sort on the rank, in the order of the chunks, and cut
 * into blocks: no object or array is made per block while the chunks are walked (a quarter less work an item than
 * blocks grown as arrays, `bench/ingest-parts.ts`).
 */
class PostingList {
  ranks = new Int32Array(1 << 14);
  places = new Int32Array(1 << 14);
  impacts = new Int32Array(1 << 14);
  entries = new Int32Array(1 << 14);
  n = 0;

  push(rank: number, place: number, impact: number, entry: number): void {
    if (this.n === this.ranks.length) {
      const grow = (a: Int32Array) => {
        const b = new Int32Array(a.length * 2);
        b.set(a);
        return b;
      };
      [this.ranks, this.places, this.impacts, this.entries] = [grow(this.ranks), grow(this.places), grow(this.impacts), grow(this.entries)];
    }
    this.ranks[this.n] = rank;
    this.places[this.n] = place;
    this.impacts[this.n] = impact;
    this.entries[this.n++] = entry;
  }

  /** The postings' indexes grouped by term rank (of `terms`), each term's in the order met, and where each term's begin. */
  byRank(terms: number): { order: Int32Array; starts: Int32Array } {
    const starts = new Int32Array(terms + 1);
    for (let p = 0; p < this.n; p++) starts[this.ranks[p] + 1]++;
    for (let r = 0; r < terms; r++) starts[r + 1] += starts[r];
    const next = starts.slice(0, terms);
    const order = new Int32Array(this.n);
    for (let p = 0; p < this.n; p++) order[next[this.ranks[p]]++] = p;
    return { order, starts };
  }
}

/** Chunks one index batch can number. */
const CHUNKS_PER_BLOCK = 2 ** 24;

/**
 * A chunk's number: its index batch's block number times 2^24 plus its place in the batch, so numbers are unique
 * without asking the database for them, and stay 8-byte integers (blocks below 2^39).
 */
export function chunkNumber(block: string, place: number): string {
  return ((BigInt(block) << 24n) + BigInt(place)).toString();
}

/** What a batch's preparation is given: its block number, and the project's statistics before it. */
export interface BatchMeta {
  block: string;
  chunkCount: number;
  totalLength: number;
}

/** What a batch writes, ready before its transaction begins. */
export interface PreparedBatch {
  block: string;
  /** The chunk rows, as JSON. */
  chunks: string;
  /**
   * Per block: terms, bands, collections, array literals of chunk ids, impacts and tenants, and postings counted;
   * each column as one PostgreSQL array literal (see {@link arrayLiteral}).
   */
  blocks: [string, string, string, string, string, string, string];
  postings: number;
  /** The chunks as a memory index takes them (`MemoryIndexes`), without their text. */
  memory: PackedChunks;
}

/**
 * Chunks packed for a memory index: per chunk its number, item, collection, tenant, length and its terms (joined by
 * NUL, which no term holds) whose forward entries are the next ones of `entries`, in order.
 */
export interface PackedChunks {
  ids: string[];
  items: string[];
  collections: string[];
  tenants: Array<number | null>;
  lengths: number[];
  terms: string[];
  entries: Int32Array;
}

/** A batch prepared: what it writes (null when its items have no chunks), and its chunks and their total length. */
export interface Preparation {
  batch: PreparedBatch | null;
  chunks: number;
  length: number;
}

/** The items' chunks analysed and their batch prepared. Long loops yield to the event loop now and then. */
export async function prepareBatch(items: ChunkInput[], meta: BatchMeta, bm25: Bm25Parameters): Promise<Preparation> {
  const byTerm = new Map<string, TermPostings>();
  const analyzed = await analyze(items, byTerm);
  const length = analyzed.reduce((s, c) => s + c.row.length, 0);
  return { batch: analyzed.length ? await prepare(analyzed, byTerm, length, meta, bm25) : null, chunks: analyzed.length, length };
}

/** The chunks' fields and terms, each term collected once for the batch in `byTerm`. */
async function analyze(items: ChunkInput[], byTerm: Map<string, TermPostings>): Promise<AnalyzedChunk[]> {
  const analyzed: AnalyzedChunk[] = [];
  const slices = new TimeSlices();
  for (const item of items) {
    if (slices.due()) await slices.next();
    item.chunks.forEach((text, n) => {
      const fields = chunkFields(item, text, n);
      // Terms are at most 64 characters (the analyzer's limit, the column's width); frequencies are capped.
      const tf = termFrequencies(indexedText(item, text), fields.language);
      const terms = new Array<TermPostings>(tf.size);
      const tfs = new Array<number>(tf.size);
      let length = 0;
      let j = 0;
      for (const [term, f] of tf) {
        let t = byTerm.get(term);
        if (!t) byTerm.set(term, (t = { term, bytes: Buffer.byteLength(term), rank: 0, gram: isGram(term) }));
        const capped = Math.min(f, 32767);
        terms[j] = t;
        tfs[j++] = capped;
        // A chunk's length counts its words, not the character runs the index also holds of them.
        if (!t.gram) length += capped;
      }
      // Object.assign rather than a spread followed by a new member: Node 20's V8 keeps such a copy, and all it references,
      // through young-generation collections until the next full one.
      analyzed.push({
        terms,
        tfs,
        row: Object.assign({}, fields, { title: n === 0 ? item.title : null, length }),
      });
    });
  }
  return analyzed;
}

/**
 * The batch's order of terms, in which each chunk's forward index lists them and its blocks are written: shorter
 * first (in UTF-8 bytes), then bytewise.
 */
function termOrder(a: TermPostings, b: TermPostings): number {
  return a.bytes - b.bytes || (a.term < b.term ? -1 : a.term > b.term ? 1 : 0);
}

/**
 * Everything the batch writes, computed before its transaction so that the database does not wait on it: the chunk
 * rows with their forward index, the postings grouped into blocks by (term, band, collection) and written as array
 * literals (one text per block and column, best impact first, with the block's count of postings). Impacts use the
 * average length as it will be with this batch (`length` terms in all) added, as far as the statistics given know;
 * it orders candidates only, so a change to the project in the meantime (a batch ahead of this one, being written)
 * does no harm.
 */
async function prepare(
  analyzed: AnalyzedChunk[],
  byTerm: Map<string, TermPostings>,
  length: number,
  { block, chunkCount, totalLength }: BatchMeta,
  { k1, b: lengthWeight, avgLength }: Bm25Parameters,
): Promise<PreparedBatch> {
  if (analyzed.length >= CHUNKS_PER_BLOCK) throw new Error(`an index batch holds fewer than ${CHUNKS_PER_BLOCK} chunks`);
  const avgdl = Math.max(1, (totalLength + length) / (chunkCount + analyzed.length));
  const ordered = [...byTerm.values()].sort(termOrder);
  for (let r = 0; r < ordered.length; r++) ordered[r].rank = r;
  const posted = new PostingList();
  const slices = new TimeSlices();
  const rows: string[] = [];
  const memory = { ids: [] as string[], items: [] as string[], collections: [] as string[], tenants: [] as Array<number | null>, lengths: [] as number[], terms: [] as string[] };
  for (const [place, { row, terms: chunkTerms, tfs }] of analyzed.entries()) {
    if (slices.due()) await slices.next();
    const id = chunkNumber(block, place);
    // A posting's impact is the BM25 term-frequency part, scaled to an integer; its length normalisation is the chunk's
    // against the project's average length; a character run's against the fixed `avgLength` (BM25_AVG_LENGTH), so
    // that its impact, which search uses as it is, does not depend on what else the project holds.
    const norm = k1 * (1 - lengthWeight + (lengthWeight * row.length) / avgdl);
    const gramNorm = k1 * (1 - lengthWeight + (lengthWeight * row.length) / avgLength);
    // The chunk's terms in the batch's order: their places packed under their ranks, sorted as numbers.
    const n = chunkTerms.length;
    const order = new Float64Array(n);
    for (let j = 0; j < n; j++) order[j] = chunkTerms[j].rank * n + j;
    order.sort();
    const names = new Array<string>(n);
    const entries = new Array<number>(n);
    for (let k = 0; k < n; k++) {
      const j = order[k] % n;
      const t = chunkTerms[j];
      const f = tfs[j];
      const impact = Math.max(1, Math.round(((f * (k1 + 1)) / (f + (t.gram ? gramNorm : norm))) * IMPACT_SCALE));
      const entry = forwardEntry(f, impact);
      entries[k] = entry;
      names[k] = t.term;
      posted.push(t.rank, place, impact, entry);
    }
    memory.ids.push(id);
    memory.items.push(row.item_id);
    memory.collections.push(row.collection);
    memory.tenants.push(row.tenant);
    memory.lengths.push(row.length);
    memory.terms.push(names.join('\u0000'));
    // The text and the forward index packed (`packText`, `packForward`), in base64 within the JSON.
    const { text, ...others } = row;
    // Object.assign rather than a spread followed by a new member: Node 20's V8 keeps such a copy, and all it references,
    // through young-generation collections until the next full one.
    rows.push(JSON.stringify(Object.assign({}, others, { packed: packText(text).toString('base64'), forward: packForward(names, entries).toString('base64'), id, block })));
  }
  const g = { term: [] as string[], band: [] as number[], collection: [] as string[], chunks: [] as string[], impacts: [] as string[], tenants: [] as string[], n: [] as number[] };
  const { order: byRank, starts } = posted.byRank(ordered.length);
  const { places, impacts } = posted;
  // Per posting of the term at hand: the block it goes to (an index into `keys`).
  let blockOf = new Int32Array(64);
  for (const t of ordered) {
    if (slices.due()) await slices.next();
    const from = starts[t.rank];
    const to = starts[t.rank + 1];
    if (to - from > blockOf.length) blockOf = new Int32Array(Math.max(to - from, blockOf.length * 2));
    // Its blocks, one per band and collection, in the order their first postings came (a term has few in a batch).
    const keys: Array<{ band: number; collection: string; n: number }> = [];
    for (let k = from; k < to; k++) {
      const p = byRank[k];
      const band = bandOf(impacts[p]);
      const collection = analyzed[places[p]].row.collection;
      let b = 0;
      while (b < keys.length && (keys[b].band !== band || keys[b].collection !== collection)) b++;
      if (b === keys.length) keys.push({ band, collection, n: 0 });
      keys[b].n++;
      blockOf[k - from] = b;
    }
    for (const [b, key] of keys.entries()) {
      // Best impact first (the earlier chunk first among equals): places packed under their impacts, sorted as numbers.
      const order = new Float64Array(key.n);
      for (let k = from, i = 0; k < to; k++) {
        if (blockOf[k - from] !== b) continue;
        const p = byRank[k];
        order[i++] = impacts[p] * CHUNKS_PER_BLOCK + (CHUNKS_PER_BLOCK - 1 - places[p]);
      }
      if (key.n > 1) order.sort().reverse();
      const ids = new Array<string>(key.n);
      const byImpact = new Array<number>(key.n);
      const tenants = new Array<number | 'NULL'>(key.n);
      let tenanted = false;
      for (let k = 0; k < key.n; k++) {
        const place = CHUNKS_PER_BLOCK - 1 - (order[k] % CHUNKS_PER_BLOCK);
        const { tenant } = analyzed[place].row;
        ids[k] = memory.ids[place];
        byImpact[k] = Math.floor(order[k] / CHUNKS_PER_BLOCK);
        tenants[k] = tenant ?? 'NULL';
        if (tenant !== null) tenanted = true;
      }
      g.term.push(t.term);
      g.band.push(key.band);
      g.collection.push(key.collection);
      // Elements of text arrays, quoted as `arrayLiteral` would (digits, commas and NULL need no escaping).
      g.chunks.push(`"{${ids.join(',')}}"`);
      g.impacts.push(`"{${byImpact.join(',')}}"`);
      // Without tenants (a single-tenant project) the array is empty: unnest pads it with NULLs.
      g.tenants.push(tenanted ? `"{${tenants.join(',')}}"` : '"{}"');
      g.n.push(key.n);
    }
  }
  return {
    block,
    chunks: `[${rows.join(',')}]`,
    blocks: [
      arrayLiteral(g.term),
      arrayLiteral(g.band),
      arrayLiteral(g.collection),
      `{${g.chunks.join(',')}}`,
      `{${g.impacts.join(',')}}`,
      `{${g.tenants.join(',')}}`,
      arrayLiteral(g.n),
    ],
    postings: posted.n,
    memory: { ...memory, entries: posted.entries.slice(0, posted.n) },
  };
}

/** What must be escaped in a quoted element of an array literal. */
const ESCAPED = /["\\]/;

/**
 * A PostgreSQL array literal of `values` (strings quoted, as `pg` writes an array parameter), made here so that the
 * statement's parameter is one string: `pg` would otherwise convert arrays of a few hundred thousand elements on the
 * event loop, where searches wait for it, and the thread would hand over as many strings.
 */
export function arrayLiteral(values: ReadonlyArray<string | number>): string {
  const parts = new Array<string>(values.length);
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    parts[i] = typeof v === 'number' ? String(v) : ESCAPED.test(v) ? `"${v.replace(/(["\\])/g, '\\$1')}"` : `"${v}"`;
  }
  return `{${parts.join(',')}}`;
}
