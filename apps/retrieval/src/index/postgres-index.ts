// Over 250 lines: one class, the PostgreSQL backend's searches and writes over its own tables (what a batch writes
// is computed in batch-preparation.ts).
import { Inject, Injectable, Logger } from '@nestjs/common';
import { ChunkInput, RetrievedChunk, Scope } from '@askdata/contracts';
import { GRAM_PREFIX, GRAM_WEIGHT, preparedRows, queryTerms } from '@askdata/common';
import { DataSource, EntityManager } from 'typeorm';
import { Pieces, snippet } from '../analysis/snippet';
import { RETRIEVAL_CONFIG, RetrievalConfig } from '../retrieval.config';
import { filterSql } from './filters';
import { IndexVacuum } from './index-vacuum';
import { itemsOf, SearchIndex, SearchQuery, StoredChunk, StoredPage } from './search-index';
import { bandOf } from './bands';
import { BatchMeta, ChunkFields, Preparation } from './batch-preparation';
import { BatchPreparer } from './batch-preparer';
import { forwardOf, IMPACT_BITS, IMPACT_MASK, IMPACT_SCALE } from './forward-entries';
import { BlockNumbers } from './block-numbers';
import { BlockMerges } from './block-merges';
import { Addition, ProjectStatistics } from './project-statistics';
import { ProjectTurns } from './project-turns';
import { retrievalMetrics } from '../retrieval.metrics';
import { ChunkRow, ChunkRows, Packed, unpacked, writtenRows } from './chunk-rows';
import { INDEX_CHANGES_KEPT, MemoryIndexes } from './memory-indexes';
import { MemoryHit } from './memory-postings';

/** A prepared batch's chunk rows (`PreparedBatch.chunks`) written for project $1. */
export const INSERT_CHUNKS = `INSERT INTO retrieval.chunks (id, project_id, collection, tenant, item_id, client_item_id, n, packed, title, language, url, metadata, length, forward, block)
  SELECT c.id, $1, c.collection, c.tenant, c.item_id, c.client_item_id, c.n, decode(c.packed, 'base64'), c.title, c.language, c.url, COALESCE(c.metadata, '{}'::jsonb), c.length, decode(c.forward, 'base64'), c.block
  FROM jsonb_to_recordset($2::jsonb)
    AS c(id bigint, collection text, tenant int, item_id uuid, client_item_id text, n int, packed text, title text, language text, url text, metadata jsonb, length int, forward text, block bigint)`;

/** A prepared batch's posting blocks (`PreparedBatch.blocks`, after project $1 and block $2): a row per (term, band, collection). */
export const INSERT_BLOCKS = `INSERT INTO retrieval.posting_blocks (project_id, term, band, block, collection, chunk_ids, impacts, tenants, n)
  SELECT $1, g.term, g.band, $2, g.collection, g.chunks::bigint[], g.impacts::int[], g.tenants::int[], g.n
  FROM unnest($3::text[], $4::smallint[], $5::text[], $6::text[], $7::text[], $8::text[], $9::int[]) AS g(term, band, collection, chunks, impacts, tenants, n)`;

/**
 * A candidate of a search scored in SQL: its chunk's length and forward index, its score from character runs, the
 * project's average length, and the idf of each of the question's words found (the same on every row).
 */
export interface Candidate {
  id: string;
  item_id: string;
  length: number;
  forward: Buffer | null;
  terms: Record<string, number> | null;
  grams: number;
  avgdl: number;
  idfs: Record<string, number> | null;
}

/**
 * BM25 computed in SQL over the service's own tables, in two steps. Postings are kept in blocks, a row per (term,
 * impact band, index batch, collection), keyed so that a term's blocks are read band by band, best first; the
 * best postings of each query term are read, up to BM25_DEPTH per term (band by band: within the last band read, in
 * key order, since sorting a whole band costs more than the order inside a quarter's span of impact is worth); the
 * chunks they name are candidates, ranked by the sum of their impacts weighted by the terms' IDF. The
 * best candidates are then scored exactly, from each chunk's forward index with the current document frequencies
 * and average length; a character-run term (outside English, `GRAM_PREFIX`) keeps its candidate-step score (its
 * IDF, its weight `GRAM_WEIGHT` and its impact, normalised with the fixed BM25_AVG_LENGTH), which spares a question
 * of five words some twenty lookups in each candidate's forward index. That score is exact because a run is read
 * only when all its postings are (it is in at most BM25_DEPTH chunks): a more common run tells little and is left
 * out. A term's document frequency is the sum of its blocks' counts of postings (`n`), and the collection size is
 * kept in the same transaction as every change, so both are exact. Tenant, collection and metadata filters are
 * conditions of the postings scan itself, so a filter never empties a page that has matches.
 */
@Injectable()
export class PostgresIndex implements SearchIndex {
  readonly backend = 'postgres';
  private readonly log = new Logger(PostgresIndex.name);
  /** A project's batches are analysed and prepared one at a time, in the order they came. */
  private readonly preparing = new ProjectTurns();
  /** Per project with batches in hand, its statistics: a batch is prepared without asking the database for them. */
  private readonly statistics = new ProjectStatistics();
  /** The rows of chunks searches found (`ChunkRows`). */
  private readonly rows: ChunkRows;
  private readonly blocks = new BlockNumbers(async (n) => {
    const rows = await this.ds.query<Array<{ block: string }>>(`SELECT nextval('retrieval.posting_block_seq')::text AS block FROM generate_series(1, $1)`, [n]);
    return rows.map((r) => r.block);
  });

  constructor(
    private readonly ds: DataSource,
    @Inject(RETRIEVAL_CONFIG) private readonly config: RetrievalConfig,
    private readonly vacuum: IndexVacuum,
    private readonly preparer: BatchPreparer,
    private readonly memory: MemoryIndexes,
    private readonly merges: BlockMerges,
  ) {
    this.rows = new ChunkRows(ds, config.SEARCH_ROWS_MB * 1024 * 1024);
  }

  async replace(scope: Scope, items: ChunkInput[]): Promise<number> {
    const project = scope.projectId;
    // This batch is prepared while the one before it is written, and never holds up that one's preparation.
    const chunks = items.reduce((n, i) => n + i.chunks.length, 0);
    const addition: Addition | null = chunks ? { chunks, length: 0 } : null;
    const preparation = await this.preparing.inTurn(project, async (): Promise<Preparation | null> => {
      if (!addition) return null;
      try {
        // On the preparation thread, or on the event loop in slices: the batch ahead is written meanwhile.
        const prepared = await this.preparer.prepare(items, await this.batchMeta(project, addition));
        addition.length = prepared.length;
        return prepared;
      } catch (e) {
        this.statistics.settle(project, addition);
        throw e;
      }
    });
    const itemIds = items.map((i) => i.itemId);
    const batch = preparation?.batch;
    const changed = await this.ds
      .transaction(async (tx) => {
        // One writer per project at a time: the statistics are a shared row, and blocks are updated in place.
        await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`retrieval:${project}`]);
        const removed = await this.remove(tx, project, itemIds);
        if (batch) {
          await tx.query(INSERT_CHUNKS, [project, batch.chunks]);
          await tx.query(INSERT_BLOCKS, [project, batch.block, ...batch.blocks]);
        }
        // A new version of the index, and the items it changed, for the replicas' memory indexes (`MemoryIndexes`).
        const [stats] = await tx.query<Array<{ key: string; chunk_count: number; total_length: string; version: string; previous: string }>>(
          `WITH s AS (
             INSERT INTO retrieval.stats AS s (project_id, chunk_count, total_length, version) VALUES ($1, $2, $3, nextval('retrieval.index_version_seq'))
             ON CONFLICT (project_id) DO UPDATE SET chunk_count = s.chunk_count + EXCLUDED.chunk_count, total_length = s.total_length + EXCLUDED.total_length, version = EXCLUDED.version
             RETURNING project_id, chunk_count, total_length, version),
           before AS (SELECT COALESCE((SELECT version FROM retrieval.stats WHERE project_id = $1), 0) AS previous),
           c AS (INSERT INTO retrieval.index_changes (project_id, version, previous, item_ids) SELECT $1, s.version, before.previous, $4::uuid[] FROM s, before)
           SELECT s.project_id::text AS key, s.chunk_count, s.total_length, s.version::text, before.previous::text FROM s, before`,
          [project, (addition?.chunks ?? 0) - removed.chunks, (addition?.length ?? 0) - removed.length, itemIds],
        );
        // The changes beyond the last INDEX_CHANGES_KEPT are deleted now and then (about every 16th write of each index).
        if (Math.random() < 1 / 16) {
          await tx.query(
            `DELETE FROM retrieval.index_changes WHERE project_id = $1 AND version < (
               SELECT min(version) FROM (SELECT version FROM retrieval.index_changes WHERE project_id = $1 ORDER BY version DESC LIMIT $2) k)`,
            [project, INDEX_CHANGES_KEPT],
          );
        }
        // Announced to every replica as it commits (a trigger): the answer waits until they have heard it.
        const announcement = await this.memory.announced(tx, stats.key, stats.version);
        return { written: batch?.postings ?? 0, removed: removed.postings, removedIds: removed.ids, stats, announcement };
      })
      .catch((e: unknown) => {
        this.statistics.settle(project, addition);
        throw e;
      });
    this.statistics.settle(project, addition, { chunkCount: changed.stats.chunk_count, totalLength: Number(changed.stats.total_length) });
    this.keepRows(project, changed.removedIds, batch ? () => writtenRows(project, items, batch.memory.ids) : null);
    const metadata = new Map(items.map((i) => [i.itemId, i.metadata ?? {}]));
    await this.memory.committed(project, Number(changed.stats.previous), Number(changed.stats.version), itemIds, batch?.memory, metadata);
    this.vacuum.changed(changed.written, changed.removed);
    if (batch) this.merges.written(project, batch.blocks[0]);
    await this.memory.settled(changed.announcement);
    return preparation?.chunks ?? 0;
  }

  /** A new block number for a batch, and the project's collection size and total length before it (`ProjectStatistics`). */
  private async batchMeta(project: string, addition: Addition): Promise<BatchMeta> {
    const block = await this.blocks.next();
    const stats = await this.statistics.before(project, addition, async () => {
      const [row] = await this.ds.query<Array<{ chunk_count: number; total_length: string }>>('SELECT chunk_count, total_length FROM retrieval.stats WHERE project_id = $1', [
        project,
      ]);
      return { chunkCount: row?.chunk_count ?? 0, totalLength: Number(row?.total_length ?? 0) };
    });
    return { block, ...stats };
  }

  /**
   * Removes the items' chunks and their postings. The old chunks' forward indexes, with the block each was written
   * in, name the rows holding their postings: of each term (band and collection), the newest row at or before that
   * block holding them (the batch's own, or the one it was merged into: `BlockMerges`), so removal reads few other rows
   * of the index; each block's count of postings goes down with them, and blocks left empty are deleted.
   */
  private async remove(tx: EntityManager, project: string, itemIds: string[]): Promise<{ chunks: number; length: number; postings: number; ids: string[] }> {
    // (A statement of DELETE's own would come back as rows and a count.)
    const chunks = await tx.query<Array<{ id: string; block: string; collection: string; length: number; forward: Buffer | null; terms: Record<string, number> | null }>>(
      `WITH r AS (DELETE FROM retrieval.chunks WHERE project_id = $1 AND item_id = ANY($2::uuid[]) RETURNING id, block, collection, length, forward, terms)
       SELECT id::text AS id, block::text AS block, collection, length, forward, terms FROM r`,
      [project, itemIds],
    );
    // One row per posting removed: its term, band, the block its chunk was written in, collection and chunk.
    const k = { terms: [] as string[], bands: [] as number[], blocks: [] as string[], collections: [] as string[], ids: [] as string[] };
    let length = 0;
    for (const c of chunks) {
      length += c.length;
      const { names, entries } = forwardOf(c);
      for (let t = 0; t < names.length; t++) {
        k.terms.push(names[t]);
        k.bands.push(bandOf(entries[t] & IMPACT_MASK));
        k.blocks.push(c.block);
        k.collections.push(c.collection);
        k.ids.push(c.id);
      }
    }
    const removed = { chunks: chunks.length, length, postings: k.terms.length, ids: chunks.map((c) => c.id) };
    if (!k.terms.length) return removed;
    const [{ emptied }] = await tx.query<Array<{ emptied: Array<[string, number, string, string]> | null }>>(
      `WITH w AS (SELECT term, band, block, collection, array_agg(id) AS ids
                  FROM unnest($2::text[], $3::smallint[], $4::bigint[], $5::text[], $6::bigint[]) AS k(term, band, block, collection, id)
                  GROUP BY 1, 2, 3, 4),
            g AS (SELECT h.row, array_agg(x.id) AS ids
                  FROM w CROSS JOIN LATERAL (
                    SELECT b.ctid AS row FROM retrieval.posting_blocks b
                    WHERE b.project_id = $1 AND b.term = w.term AND b.band = w.band AND b.collection = w.collection AND b.block <= w.block AND b.chunk_ids && w.ids
                    ORDER BY b.block DESC LIMIT 1) h
                  CROSS JOIN LATERAL unnest(w.ids) AS x(id)
                  GROUP BY 1),
            b AS (UPDATE retrieval.posting_blocks b
                  SET chunk_ids = ARRAY(SELECT x.c FROM unnest(b.chunk_ids, b.impacts, b.tenants) WITH ORDINALITY AS x(c, i, t, o)
                                        WHERE x.c <> ALL(g.ids) ORDER BY x.o),
                      impacts = ARRAY(SELECT x.i FROM unnest(b.chunk_ids, b.impacts, b.tenants) WITH ORDINALITY AS x(c, i, t, o)
                                      WHERE x.c <> ALL(g.ids) ORDER BY x.o),
                      tenants = ARRAY(SELECT x.t FROM unnest(b.chunk_ids, b.impacts, b.tenants) WITH ORDINALITY AS x(c, i, t, o)
                                      WHERE x.c <> ALL(g.ids) ORDER BY x.o),
                      n = (SELECT count(*) FROM unnest(b.chunk_ids) AS x(c) WHERE x.c <> ALL(g.ids))
                  FROM g
                  WHERE b.ctid = g.row AND b.project_id = $1
                  RETURNING b.term, b.band, b.block, b.collection, b.n AS remaining)
       SELECT json_agg(json_build_array(term, band, block, collection)) AS emptied FROM b WHERE remaining = 0`,
      [project, k.terms, k.bands, k.blocks, k.collections, k.ids],
    );
    if (emptied) {
      await tx.query(
        `DELETE FROM retrieval.posting_blocks b USING jsonb_to_recordset($2::jsonb) AS e(term text, band smallint, block bigint, collection text)
         WHERE b.project_id = $1 AND b.term = e.term AND b.band = e.band AND b.block = e.block AND b.collection = e.collection
           AND b.n = 0`,
        [project, JSON.stringify(emptied.map(([term, band, block, collection]) => ({ term, band, block, collection })))],
      );
    }
    return removed;
  }

  async scan(key: string, cursor: string | null, items: number): Promise<StoredPage> {
    const rows = await this.ds.query<Array<{ item_id: string }>>(`SELECT DISTINCT item_id FROM retrieval.chunks WHERE project_id = $1 AND item_id > $2 ORDER BY item_id LIMIT $3`, [
      key,
      cursor ?? '00000000-0000-0000-0000-000000000000',
      items,
    ]);
    const ids = rows.map((r) => r.item_id);
    return { items: await this.read(key, ids), next: ids.length < items ? null : ids[ids.length - 1] };
  }

  async read(key: string, itemIds: string[]): Promise<ChunkInput[]> {
    if (!itemIds.length) return [];
    const chunks = await this.ds.query<Array<Packed<StoredChunk>>>(
      `SELECT item_id AS "itemId", client_item_id AS "clientItemId", collection, tenant, url, metadata, title, text, packed, n, language
       FROM retrieval.chunks WHERE project_id = $1 AND item_id = ANY($2::uuid[])`,
      [key, itemIds],
    );
    return itemsOf(unpacked(chunks), itemIds);
  }

  async count(key: string): Promise<number> {
    const [stats] = await this.ds.query<Array<{ chunk_count: number }>>('SELECT chunk_count FROM retrieval.stats WHERE project_id = $1', [key]);
    return stats?.chunk_count ?? 0;
  }

  async drop(key: string): Promise<void> {
    const announcement = await this.ds.transaction(async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`retrieval:${key}`]);
      await tx.query(`DELETE FROM retrieval.posting_blocks WHERE project_id = $1`, [key]);
      await tx.query(`DELETE FROM retrieval.chunks WHERE project_id = $1`, [key]);
      // (A statement of DELETE's own would come back as rows and a count.)
      const [stats] = await tx.query<Array<{ key: string; version: string }>>(
        `WITH d AS (DELETE FROM retrieval.stats WHERE project_id = $1 RETURNING project_id, version) SELECT project_id::text AS key, version::text FROM d`,
        [key],
      );
      await tx.query(`DELETE FROM retrieval.index_changes WHERE project_id = $1`, [key]);
      return stats ? this.memory.announced(tx, stats.key, stats.version, true) : null;
    });
    this.memory.dropped(key);
    this.merges.dropped(key);
    this.rows.forget(key);
    await this.memory.settled(announcement);
  }

  async search(q: SearchQuery): Promise<RetrievedChunk[]> {
    const stop = retrievalMetrics.retrievalDuration.startTimer({ backend: this.backend });
    try {
      const terms = queryTerms(q.text, q.languages ?? 'en');
      if (terms.length === 0) return [];
      const perTerm = this.config.BM25_DEPTH > 0 ? Math.max(this.config.BM25_DEPTH, q.limit) : 0;
      // From memory when the index is held there.
      const hits = await this.memory.search(q.scope.projectId, {
        terms,
        k1: this.config.BM25_K1,
        b: this.config.BM25_B,
        gramDepth: perTerm,
        tenant: q.tenant,
        collections: q.collections,
        filters: q.filters,
        limit: q.limit,
      });
      retrievalMetrics.memorySearches.inc({ scored: hits ? 'memory' : 'sql' });
      if (hits) {
        void this.rows.readAhead(q.scope.projectId);
        return await this.hitRows(q.scope.projectId, hits, terms);
      }
      const params: unknown[] = [q.scope.projectId, terms];
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
      const depth = perTerm ? `LIMIT ${perTerm}` : '';
      // A run of characters is read only when its postings are all read, so that its candidate-step score is exact.
      const readRuns = perTerm ? `AND (NOT g.gram OR d.df <= ${perTerm})` : '';
      params.push(q.limit);
      const limit = `$${params.length}`;
      // Without metadata conditions the statement has one of four texts: prepared, it is parsed and planned once a
      // connection. Filters vary in shape without bound, so those statements are not kept.
      const run = metadata.length
        ? (text: string, values: unknown[]) => this.ds.query<Candidate[]>(text, values)
        : (text: string, values: unknown[]) => preparedRows<Candidate>(this.ds, text, values);
      const rows = await run(
        `WITH s AS (
           SELECT chunk_count::float8 AS n, GREATEST(total_length::float8 / NULLIF(chunk_count, 0), 1) AS avgdl
           FROM retrieval.stats WHERE project_id = $1
         ),
         d AS (
           SELECT term, sum(n)::float8 AS df FROM retrieval.posting_blocks WHERE project_id = $1 AND term = ANY($2::text[]) GROUP BY term
         ),
         t AS (
           SELECT d.term, g.gram, ln(1 + (s.n - d.df + 0.5) / (d.df + 0.5)) * CASE WHEN g.gram THEN ${GRAM_WEIGHT} ELSE 1 END AS idf
           FROM d CROSS JOIN LATERAL (SELECT left(d.term, 1) = '${GRAM_PREFIX}' AS gram) g, s WHERE d.df > 0 ${readRuns}
         ),
         candidates AS (
           SELECT p.chunk_id, COALESCE(sum(t.idf * p.impact) FILTER (WHERE t.gram), 0) / ${IMPACT_SCALE} AS grams
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
         )
         SELECT c.id::text AS id, c.item_id, c.length, c.forward, c.terms, candidates.grams, s.avgdl,
                (SELECT json_object_agg(t.term, t.idf) FROM t WHERE NOT t.gram) AS idfs
         FROM candidates JOIN retrieval.chunks c ON c.id = candidates.chunk_id AND c.project_id = $1 CROSS JOIN s`,
        params,
      );
      return await this.hitRows(q.scope.projectId, bestOf(rows, this.config.BM25_K1, this.config.BM25_B, q.limit), terms);
    } finally {
      stop();
    }
  }

  /** The rows of a committed write: those it removed let go, those it wrote kept where the index's rows are (`ChunkRows`). */
  private keepRows(project: string, removed: string[], written: (() => ChunkRow[]) | null): void {
    try {
      this.rows.removed(removed);
      if (written && this.rows.keepsWrites(project)) this.rows.written(project, written());
    } catch (e) {
      // Committed all the same: its rows are read from the database when found.
      this.rows.forget(project);
      this.log.warn(`Rows written to index ${project} are not kept: ${e instanceof Error ? e.message : String(e)}`);
    }
  }

  /** The chunks memory found, by their numbers (`ChunkRows`; one removed meanwhile is left out). */
  private async hitRows(key: string, hits: MemoryHit[], terms: string[]): Promise<RetrievedChunk[]> {
    if (!hits.length) return [];
    const rows = await this.rows.read(
      key,
      hits.map((h) => h.id),
    );
    return hits.flatMap((h) => {
      const row = rows.get(h.id);
      return row ? [retrieved(row, h.score, terms, this.rows.pieces(row))] : [];
    });
  }
}

/**
 * A hit as retrieval answers it, from its chunk's row and its score. Built member by member: a copy of the row with the
 * score added (`{ ...row, score }`) is one Node 20's V8 keeps through young-generation collections, with everything it
 * references, until the next full one, which made every search's results survive them.
 */
function retrieved(r: ChunkFields, score: number, terms: string[], pieces?: Pieces): RetrievedChunk {
  return {
    id: r.item_id,
    item_id: r.client_item_id,
    collection: r.collection,
    tenant: r.tenant,
    url: r.url,
    metadata: r.metadata,
    score: Math.round(score * 10000) / 10000,
    snippet: snippet(r.text, terms, undefined, r.language, pieces),
    text: r.text,
    chunk: r.n,
    language: r.language,
  };
}

/**
 * The candidates' exact BM25 scores (their words' frequencies from their forward index, plus their character runs'
 * score), the best chunk of each item, and the `limit` best items: highest score first, then by item; of an item's
 * chunks scoring alike, the lowest number.
 */
export function bestOf(candidates: Candidate[], k1: number, b: number, limit: number): MemoryHit[] {
  if (!candidates.length) return [];
  const idfs = new Map(Object.entries(candidates[0].idfs ?? {}));
  const best = new Map<string, MemoryHit>();
  for (const c of candidates) {
    const { names, entries } = forwardOf(c);
    const norm = k1 * (1 - b + (b * c.length) / c.avgdl);
    let score = c.grams;
    for (let t = 0; t < names.length; t++) {
      const idf = idfs.get(names[t]);
      if (idf === undefined) continue;
      const tf = Math.floor(entries[t] / 2 ** IMPACT_BITS);
      score += (idf * tf * (k1 + 1)) / (tf + norm);
    }
    const held = best.get(c.item_id);
    if (!held || score > held.score || (score === held.score && BigInt(c.id) < BigInt(held.id))) best.set(c.item_id, { id: c.id, itemId: c.item_id, score });
  }
  return [...best.values()].sort((x, y) => y.score - x.score || (x.itemId < y.itemId ? -1 : x.itemId > y.itemId ? 1 : 0)).slice(0, limit);
}
