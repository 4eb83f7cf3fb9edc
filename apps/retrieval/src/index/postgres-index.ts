import { Inject, Injectable } from '@nestjs/common';
import { ChunkInput, RetrievedChunk, Scope } from '@askdata/contracts';
import { metrics, queryTerms, termFrequencies, TimeSlices } from '@askdata/common';
import { DataSource, EntityManager } from 'typeorm';
import { snippet } from '../analysis/snippet';
import { RETRIEVAL_CONFIG, RetrievalConfig } from '../retrieval.config';
import { filterSql } from './filters';
import { IndexVacuum } from './index-vacuum';
import { indexedText, SearchIndex, SearchQuery } from './search-index';
import { BAND_FLOORS, bandOf } from './bands';
import { forwardEntry, IMPACT_BITS, IMPACT_MASK } from './forward-entries';

/** A chunk's stored fields, but for its number, block and forward index. */
interface ChunkFields {
  item_id: string;
  client_item_id: string;
  collection: string;
  tenant: number | null;
  url: string | null;
  metadata: Record<string, unknown>;
  text: string;
  n: number;
}

/** A search result row. */
type Row = ChunkFields & { score: number };

/**
 * A chunk analysed, before its batch is prepared: its fields and length, and its term frequencies. The row written
 * adds its number (`chunkNumber`), its block and its forward index (`terms`: term -> `forwardEntry(tf, impact)`).
 */
interface AnalyzedChunk {
  row: ChunkFields & { length: number };
  tf: Map<string, number>;
}

/** A block's postings as the batch collects them: chunk numbers, impacts and tenants, in parallel. */
interface BlockPostings {
  band: number;
  collection: string;
  ids: string[];
  impacts: number[];
  tenants: Array<number | null>;
}

/** Impacts are stored as integers: the BM25 term-frequency part times this. */
const IMPACT_SCALE = 10000;
/** A term that is its own JSON string body (the analyzer's terms are letters, digits and a few joiners). */
const PLAIN_TERM = /^[^"\\\u0000-\u001f]*$/;
/** Chunks one index batch can number. */
const CHUNKS_PER_BLOCK = 2 ** 24;

/**
 * A chunk's number: its index batch's block number times 2^24 plus its place in the batch, so numbers are unique
 * without asking the database for them, and stay 8-byte integers (blocks below 2^39).
 */
export function chunkNumber(block: string, place: number): string {
  return ((BigInt(block) << 24n) + BigInt(place)).toString();
}

/** What a batch's preparation reads: its block number, and the project's statistics. */
interface BatchMeta {
  block: string;
  chunkCount: number;
  totalLength: number;
}

/** What a batch writes, ready before its transaction begins. */
interface PreparedBatch {
  block: string;
  /** The chunk rows, as JSON. */
  chunks: string;
  /** Per block: terms, bands, collections, and array literals of chunk ids, impacts and tenants. */
  blocks: [string[], number[], string[], string[], string[], string[]];
  /** Terms and the document frequency each gains. */
  df: [string[], number[]];
  postings: number;
}

/**
 * BM25 computed in SQL over the service's own tables, in two steps. Postings are kept in blocks, a row per (term,
 * impact band, index batch, collection), keyed so that a term's blocks are read band by band, best first; the
 * best postings of each query term are read, up to BM25_DEPTH per term (band by band: within the last band read, in
 * key order, since sorting a whole band costs more than the order inside a quarter's span of impact is worth); the
 * chunks they name are candidates, ranked by the sum of their impacts weighted by the terms' IDF. The
 * best candidates are then scored exactly, from each chunk's forward index with the current document frequencies
 * and average length. Document frequencies and the collection size are kept exact in the same transaction as
 * every change. Tenant, collection and metadata filters are conditions of the postings scan itself, so a filter
 * never empties a page that has matches.
 */
@Injectable()
export class PostgresIndex implements SearchIndex {
  readonly backend = 'postgres';
  /** Per project, the preparation of the last batch that came: the next waits for it. */
  private readonly preparing = new Map<string, Promise<void>>();

  constructor(
    private readonly ds: DataSource,
    @Inject(RETRIEVAL_CONFIG) private readonly config: RetrievalConfig,
    private readonly vacuum: IndexVacuum,
  ) {}

  async replace(scope: Scope, items: ChunkInput[]): Promise<number> {
    const project = scope.projectId;
    // The batch's block number and the project's statistics are asked for at once, so that they need not wait for
    // the writes of a batch ahead of this one (standalone's single connection would hold them until it commits).
    const meta = items.some((i) => i.chunks.length) ? this.batchMeta(project) : null;
    meta?.catch(() => undefined);
    // A project's batches are analysed and prepared one at a time, in the order they came: this one is prepared while
    // the one before it is written, and never holds up that one's preparation.
    const ahead = this.preparing.get(project);
    let prepared!: () => void;
    const turn = new Promise<void>((resolve) => (prepared = resolve));
    this.preparing.set(project, turn);
    let analyzed: AnalyzedChunk[];
    let batch: PreparedBatch | null;
    try {
      await ahead;
      // Both yield to the event loop now and then: the batch ahead is written meanwhile, a statement at a time.
      analyzed = await this.analyze(items);
      batch = meta && analyzed.length ? await this.prepare(analyzed, await meta) : null;
    } finally {
      prepared();
      if (this.preparing.get(project) === turn) this.preparing.delete(project);
    }
    const itemIds = items.map((i) => i.itemId);
    const changed = await this.ds.transaction(async (tx) => {
      // One writer per project at a time: document frequencies and the statistics are shared rows.
      await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`retrieval:${project}`]);
      const removed = await this.remove(tx, project, itemIds);
      const addedLength = analyzed.reduce((s, c) => s + c.row.length, 0);
      if (batch) {
        await tx.query(
          `INSERT INTO retrieval.chunks (id, project_id, collection, tenant, item_id, client_item_id, n, text, url, metadata, length, terms, block)
           SELECT c.id, $1, c.collection, c.tenant, c.item_id, c.client_item_id, c.n, c.text, c.url, COALESCE(c.metadata, '{}'::jsonb), c.length, c.terms, c.block
           FROM jsonb_to_recordset($2::jsonb)
             AS c(id bigint, collection text, tenant int, item_id uuid, client_item_id text, n int, text text, url text, metadata jsonb, length int, terms jsonb, block bigint)`,
          [project, batch.chunks],
        );
        await tx.query(
          `INSERT INTO retrieval.posting_blocks (project_id, term, band, block, collection, chunk_ids, impacts, tenants)
           SELECT $1, g.term, g.band, $2, g.collection, g.chunks::bigint[], g.impacts::int[], g.tenants::int[]
           FROM unnest($3::text[], $4::smallint[], $5::text[], $6::text[], $7::text[], $8::text[]) AS g(term, band, collection, chunks, impacts, tenants)`,
          [project, batch.block, ...batch.blocks],
        );
        await tx.query(
          `INSERT INTO retrieval.terms (project_id, term, df)
           SELECT $1, * FROM unnest($2::text[], $3::int[]) AS d(term, df) ORDER BY term
           ON CONFLICT (project_id, term) DO UPDATE SET df = retrieval.terms.df + EXCLUDED.df`,
          [project, ...batch.df],
        );
      }
      await tx.query(
        `INSERT INTO retrieval.stats AS s (project_id, chunk_count, total_length) VALUES ($1, $2, $3)
         ON CONFLICT (project_id) DO UPDATE SET chunk_count = s.chunk_count + EXCLUDED.chunk_count, total_length = s.total_length + EXCLUDED.total_length`,
        [project, analyzed.length - removed.chunks, addedLength - removed.length],
      );
      return { written: batch?.postings ?? 0, removed: removed.postings };
    });
    this.vacuum.changed(changed.written, changed.removed);
    return analyzed.length;
  }

  /** The chunks' fields and term frequencies. */
  private async analyze(items: ChunkInput[]): Promise<AnalyzedChunk[]> {
    const analyzed: AnalyzedChunk[] = [];
    const slices = new TimeSlices();
    for (const item of items) {
      if (slices.due()) await slices.next();
      item.chunks.forEach((text, n) => {
        // Terms are at most 64 characters (the analyzer's limit, the column's width); frequencies are capped.
        const tf = termFrequencies(indexedText(item, text));
        let length = 0;
        for (const [term, f] of tf) {
          if (f > 32767) tf.set(term, 32767);
          length += Math.min(f, 32767);
        }
        analyzed.push({
          tf,
          row: {
            item_id: item.itemId, client_item_id: item.clientItemId, collection: item.collection,
            tenant: item.tenant, url: item.url, metadata: item.metadata, text, n, length,
          },
        });
      });
    }
    return analyzed;
  }

  /** A new block number for a batch, and the project's collection size and total length before it. */
  private async batchMeta(project: string): Promise<BatchMeta> {
    const [[stats], [{ block }]] = await Promise.all([
      this.ds.query('SELECT chunk_count, total_length FROM retrieval.stats WHERE project_id = $1', [project]) as Promise<
        Array<{ chunk_count: number; total_length: string }>
      >,
      // Sequence values are not transactional: a batch rolled back leaves a gap, which is harmless.
      this.ds.query(`SELECT nextval('retrieval.posting_block_seq')::text AS block`) as Promise<Array<{ block: string }>>,
    ]);
    return { block, chunkCount: stats?.chunk_count ?? 0, totalLength: Number(stats?.total_length ?? 0) };
  }

  /**
   * Everything the batch writes, computed before its transaction so that the database does not wait on it: the chunk
   * rows with their forward index, the postings grouped into blocks by (term, band, collection) and written as array
   * literals (one text per block and column, best impact first), and the document frequencies to add. Impacts use the
   * average length as it will be with this batch added, as far as the statistics read for it know; it orders
   * candidates only, so a change to the project in the meantime (a batch ahead of this one, being written) does no harm.
   */
  private async prepare(analyzed: AnalyzedChunk[], { block, chunkCount, totalLength }: BatchMeta): Promise<PreparedBatch> {
    if (analyzed.length >= CHUNKS_PER_BLOCK) throw new Error(`an index batch holds fewer than ${CHUNKS_PER_BLOCK} chunks`);
    const count = chunkCount + analyzed.length;
    const total = totalLength + analyzed.reduce((s, c) => s + c.row.length, 0);
    const avgdl = Math.max(1, total / count);
    // Blocks by term; a term's blocks of the batch (one per band and collection) are few, and found by a scan.
    const byTerm = new Map<string, { df: number; blocks: BlockPostings[] }>();
    let postings = 0;
    const slices = new TimeSlices();
    const rows: string[] = [];
    const { BM25_K1: k1, BM25_B: lengthWeight } = this.config;
    for (const [place, { row, tf }] of analyzed.entries()) {
      if (slices.due()) await slices.next();
      const id = chunkNumber(block, place);
      // A posting's impact is the BM25 term-frequency part, scaled to an integer; its length normalisation is the chunk's.
      const norm = k1 * (1 - lengthWeight + (lengthWeight * row.length) / avgdl);
      const terms: string[] = [];
      for (const [term, f] of tf) {
        const impact = Math.max(1, Math.round(((f * (k1 + 1)) / (f + norm)) * IMPACT_SCALE));
        terms.push(`${PLAIN_TERM.test(term) ? `"${term}"` : JSON.stringify(term)}:${forwardEntry(f, impact)}`);
        const band = bandOf(impact);
        let t = byTerm.get(term);
        if (!t) byTerm.set(term, (t = { df: 0, blocks: [] }));
        t.df++;
        const found = t.blocks.find((x) => x.band === band && x.collection === row.collection);
        if (found) {
          found.ids.push(id);
          found.impacts.push(impact);
          found.tenants.push(row.tenant);
        } else t.blocks.push({ band, collection: row.collection, ids: [id], impacts: [impact], tenants: [row.tenant] });
        postings++;
      }
      const fields = JSON.stringify({ ...row, id, block });
      rows.push(`${fields.slice(0, -1)},"terms":{${terms.join(',')}}}`);
    }
    const g = { term: [] as string[], band: [] as number[], collection: [] as string[], chunks: [] as string[], impacts: [] as string[], tenants: [] as string[] };
    const df: [string[], number[]] = [[], []];
    for (const [term, t] of byTerm) {
      if (slices.due()) await slices.next();
      df[0].push(term);
      df[1].push(t.df);
      for (const b of t.blocks) {
        let { ids, impacts, tenants } = b;
        if (ids.length > 1) {
          // Best impact first.
          const order = ids.map((_, i) => i).sort((x, y) => b.impacts[y] - b.impacts[x]);
          ids = order.map((i) => b.ids[i]);
          impacts = order.map((i) => b.impacts[i]);
          tenants = order.map((i) => b.tenants[i]);
        }
        g.term.push(term);
        g.band.push(b.band);
        g.collection.push(b.collection);
        g.chunks.push(`{${ids.join(',')}}`);
        g.impacts.push(`{${impacts.join(',')}}`);
        // Without tenants (a single-tenant project) the array is empty: unnest pads it with NULLs.
        g.tenants.push(tenants.every((x) => x === null) ? '{}' : `{${tenants.map((x) => x ?? 'NULL').join(',')}}`);
      }
    }
    return {
      block,
      chunks: `[${rows.join(',')}]`,
      blocks: [g.term, g.band, g.collection, g.chunks, g.impacts, g.tenants],
      df,
      postings,
    };
  }

  /**
   * Removes the items' chunks and their postings. The old chunks' forward indexes, with the block each was written
   * in, name the exact block rows holding their postings, so removal reads no other row of the index; document
   * frequencies go down by the same postings, and blocks left empty are deleted.
   */
  private async remove(
    tx: EntityManager,
    project: string,
    itemIds: string[],
  ): Promise<{ chunks: number; length: number; postings: number }> {
    const [removed] = (await tx.query(
      `WITH r AS (DELETE FROM retrieval.chunks WHERE project_id = $1 AND item_id = ANY($2::uuid[]) RETURNING id, block, collection, length, terms),
            k AS (SELECT e.key AS term, width_bucket(e.value::int & ${IMPACT_MASK}, $3::int[])::smallint AS band, r.block, r.collection, r.id
                  FROM r, jsonb_each(r.terms) e),
            g AS (SELECT term, band, block, collection, array_agg(id) AS ids FROM k GROUP BY 1, 2, 3, 4),
            b AS (UPDATE retrieval.posting_blocks b
                  SET chunk_ids = ARRAY(SELECT x.c FROM unnest(b.chunk_ids, b.impacts, b.tenants) WITH ORDINALITY AS x(c, i, t, o)
                                        WHERE x.c <> ALL(g.ids) ORDER BY x.o),
                      impacts = ARRAY(SELECT x.i FROM unnest(b.chunk_ids, b.impacts, b.tenants) WITH ORDINALITY AS x(c, i, t, o)
                                      WHERE x.c <> ALL(g.ids) ORDER BY x.o),
                      tenants = ARRAY(SELECT x.t FROM unnest(b.chunk_ids, b.impacts, b.tenants) WITH ORDINALITY AS x(c, i, t, o)
                                      WHERE x.c <> ALL(g.ids) ORDER BY x.o)
                  FROM g
                  WHERE b.project_id = $1 AND b.term = g.term AND b.band = g.band AND b.block = g.block AND b.collection = g.collection
                  RETURNING b.term, b.band, b.block, b.collection, cardinality(b.chunk_ids) AS remaining),
            c AS (SELECT term, count(*)::int AS n FROM k GROUP BY term),
            u AS (UPDATE retrieval.terms t SET df = t.df - c.n FROM c WHERE t.project_id = $1 AND t.term = c.term RETURNING t.df)
       SELECT count(*)::int AS chunks, COALESCE(sum(length), 0)::int AS length,
              (SELECT count(*) FROM k)::int AS postings,
              (SELECT count(*) FROM u WHERE df <= 0)::int AS unused,
              (SELECT json_agg(json_build_array(term, band, block, collection)) FROM b WHERE remaining = 0) AS emptied
       FROM r`,
      [project, itemIds, BAND_FLOORS],
    )) as Array<{ chunks: number; length: number; postings: number; unused: number; emptied: Array<[string, number, string, string]> | null }>;
    if (removed.unused) await tx.query('DELETE FROM retrieval.terms WHERE project_id = $1 AND df <= 0', [project]);
    if (removed.emptied) {
      await tx.query(
        `DELETE FROM retrieval.posting_blocks b USING jsonb_to_recordset($2::jsonb) AS e(term text, band smallint, block bigint, collection text)
         WHERE b.project_id = $1 AND b.term = e.term AND b.band = e.band AND b.block = e.block AND b.collection = e.collection
           AND cardinality(b.chunk_ids) = 0`,
        [project, JSON.stringify(removed.emptied.map(([term, band, block, collection]) => ({ term, band, block, collection })))],
      );
    }
    return removed;
  }

  async search(q: SearchQuery): Promise<RetrievedChunk[]> {
    const stop = metrics.retrievalDuration.startTimer({ backend: this.backend });
    try {
      const terms = queryTerms(q.text).map((t) => t.slice(0, 64));
      if (terms.length === 0) return [];
      const params: unknown[] = [q.scope.projectId, terms, this.config.BM25_K1, this.config.BM25_B];
      // Conditions on a block (its term and collection) and on each posting in it (its tenant and chunk's metadata).
      const where = ['p.project_id = $1', 'p.term = t.term'];
      const postingWhere: string[] = [];
      if (q.tenant !== null) {
        params.push(q.tenant);
        postingWhere.push(`e.tenant = $${params.length}`);
      }
      if (q.collections) {
        params.push(q.collections);
        where.push(`p.collection = ANY($${params.length}::text[])`);
      }
      // Metadata conditions are checked on each posting's chunk while the postings are read, so the depth
      // counts only postings that pass them.
      const metadata = filterSql(q.filters, 'm.metadata', params);
      postingWhere.push(...metadata);
      const metadataJoin = metadata.length ? 'JOIN retrieval.chunks m ON m.id = e.chunk_id AND m.project_id = $1' : '';
      const depth = this.config.BM25_DEPTH > 0 ? `LIMIT ${Math.max(this.config.BM25_DEPTH, q.limit)}` : '';
      params.push(q.limit);
      const limit = `$${params.length}`;
      const rows = (await this.ds.query(
        `WITH s AS (
           SELECT chunk_count::float8 AS n, GREATEST(total_length::float8 / NULLIF(chunk_count, 0), 1) AS avgdl
           FROM retrieval.stats WHERE project_id = $1
         ),
         t AS (
           SELECT d.term, ln(1 + (s.n - d.df + 0.5) / (d.df + 0.5)) AS idf
           FROM retrieval.terms d, s WHERE d.project_id = $1 AND d.term = ANY($2::text[]) AND d.df > 0
         ),
         candidates AS (
           SELECT p.chunk_id
           FROM t CROSS JOIN LATERAL (
             SELECT e.chunk_id, e.impact
             FROM (
               SELECT p.band, unnest(p.chunk_ids) AS chunk_id, unnest(p.impacts) AS impact, unnest(p.tenants) AS tenant
               FROM retrieval.posting_blocks p WHERE ${where.join(' AND ')}
               ORDER BY p.band DESC
             ) e
             ${metadataJoin}
             ${postingWhere.length ? `WHERE ${postingWhere.join(' AND ')}` : ''}
             ORDER BY e.band DESC ${depth}
           ) p
           GROUP BY p.chunk_id
           ORDER BY sum(t.idf * p.impact) DESC
           LIMIT GREATEST(${limit} * 10, 100)
         ),
         scored AS (
           SELECT c.id, c.item_id,
             (SELECT sum(t.idf * f.tf * ($3::float8 + 1) / (f.tf + $3::float8 * (1 - $4::float8 + $4::float8 * c.length / s.avgdl)))
              FROM t CROSS JOIN LATERAL (SELECT ((c.terms->t.term)::int >> ${IMPACT_BITS})::float8 AS tf) f WHERE f.tf IS NOT NULL) AS score
           FROM candidates JOIN retrieval.chunks c ON c.id = candidates.chunk_id AND c.project_id = $1 CROSS JOIN s
         ),
         best AS (
           SELECT * FROM (SELECT DISTINCT ON (item_id) * FROM scored ORDER BY item_id, score DESC) b
           ORDER BY score DESC, item_id LIMIT ${limit}
         )
         SELECT c.item_id, c.client_item_id, c.collection, c.tenant, c.url, c.metadata, c.text, c.n, best.score
         FROM best JOIN retrieval.chunks c ON c.id = best.id
         ORDER BY best.score DESC, best.item_id`,
        params,
      )) as Row[];
      return rows.map((r) => ({
        id: r.item_id,
        item_id: r.client_item_id,
        collection: r.collection,
        tenant: r.tenant,
        url: r.url,
        metadata: r.metadata,
        score: Math.round(r.score * 10000) / 10000,
        snippet: snippet(r.text, terms),
        text: r.text,
        chunk: r.n,
      }));
    } finally {
      stop();
    }
  }
}
