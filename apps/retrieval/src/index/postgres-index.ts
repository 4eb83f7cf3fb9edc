import { Inject, Injectable } from '@nestjs/common';
import { ChunkInput, RetrievedChunk, Scope } from '@askdata/contracts';
import { metrics, queryTerms, termFrequencies } from '@askdata/common';
import { DataSource } from 'typeorm';
import { snippet } from '../analysis/snippet';
import { RETRIEVAL_CONFIG, RetrievalConfig } from '../retrieval.config';
import { filterSql } from './filters';
import { IndexVacuum } from './index-vacuum';
import { chunkId, indexedText, SearchIndex, SearchQuery } from './search-index';

/** A chunk as stored. */
interface ChunkFields {
  id: string;
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

/** A chunk as written, with its length and forward index: term -> [term frequency, impact]. */
type ChunkRow = ChunkFields & { length: number; terms: Record<string, [number, number]> };

/** Impacts are stored as integers: the BM25 term-frequency part times this. */
const IMPACT_SCALE = 10000;

/**
 * BM25 computed in SQL over the service's own tables, in two steps. Postings are impact-ordered (their key is
 * project, term, impact, chunk), so the best postings of each query term are read first, up to BM25_DEPTH per
 * term; the chunks they name are candidates, ranked by the sum of their impacts weighted by the terms' IDF. The
 * best candidates are then scored exactly, from each chunk's forward index with the current document frequencies
 * and average length. Document frequencies and the collection size are kept exact in the same transaction as
 * every change. Tenant, collection and metadata filters are conditions of the postings scan itself, so a filter
 * never empties a page that has matches.
 */
@Injectable()
export class PostgresIndex implements SearchIndex {
  readonly backend = 'postgres';

  constructor(
    private readonly ds: DataSource,
    @Inject(RETRIEVAL_CONFIG) private readonly config: RetrievalConfig,
    private readonly vacuum: IndexVacuum,
  ) {}

  /** The BM25 term-frequency part of a posting, as stored. */
  private impact(tf: number, length: number, avgdl: number): number {
    const { BM25_K1: k1, BM25_B: b } = this.config;
    const part = (tf * (k1 + 1)) / (tf + k1 * (1 - b + (b * length) / avgdl));
    return Math.max(1, Math.round(part * IMPACT_SCALE));
  }

  async replace(scope: Scope, items: ChunkInput[]): Promise<number> {
    const project = scope.projectId;
    const analyzed: Array<{ row: Omit<ChunkRow, 'terms'>; tf: Map<string, number> }> = [];
    for (const item of items) {
      item.chunks.forEach((text, n) => {
        const tf = new Map<string, number>();
        for (const [term, f] of termFrequencies(indexedText(item, text))) {
          const key = term.slice(0, 64);
          tf.set(key, Math.min((tf.get(key) ?? 0) + f, 32767));
        }
        let length = 0;
        for (const f of tf.values()) length += f;
        analyzed.push({
          tf,
          row: {
            id: chunkId(item.itemId, n), item_id: item.itemId, client_item_id: item.clientItemId, collection: item.collection,
            tenant: item.tenant, url: item.url, metadata: item.metadata, text, n, length,
          },
        });
      });
    }
    const itemIds = items.map((i) => i.itemId);
    const changed = await this.ds.transaction(async (tx) => {
      // One writer per project at a time: document frequencies and the statistics are shared rows.
      await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`retrieval:${project}`]);
      // The old chunks' forward indexes name their postings exactly, so removal reads no other posting.
      const [removed] = (await tx.query(
        `WITH r AS (DELETE FROM retrieval.chunks WHERE project_id = $1 AND item_id = ANY($2::uuid[]) RETURNING id, length, terms),
              k AS (SELECT r.id, e.key AS term, (e.value->>1)::int AS impact FROM r, jsonb_each(r.terms) e),
              d AS (DELETE FROM retrieval.postings p USING k
                    WHERE p.project_id = $1 AND p.term = k.term AND p.impact = k.impact AND p.chunk_id = k.id RETURNING p.term),
              c AS (SELECT term, count(*)::int AS n FROM d GROUP BY term),
              u AS (UPDATE retrieval.terms t SET df = t.df - c.n FROM c WHERE t.project_id = $1 AND t.term = c.term RETURNING 1)
         SELECT count(*)::int AS chunks, COALESCE(sum(length), 0)::int AS length, (SELECT count(*) FROM u)::int AS terms,
                (SELECT count(*) FROM d)::int AS postings FROM r`,
        [project, itemIds],
      )) as Array<{ chunks: number; length: number; terms: number; postings: number }>;
      if (removed.terms) await tx.query('DELETE FROM retrieval.terms WHERE project_id = $1 AND df <= 0', [project]);
      const [stats] = (await tx.query('SELECT chunk_count, total_length FROM retrieval.stats WHERE project_id = $1', [project])) as Array<{
        chunk_count: number;
        total_length: string;
      }>;
      const addedLength = analyzed.reduce((s, c) => s + c.row.length, 0);
      const count = (stats?.chunk_count ?? 0) - removed.chunks + analyzed.length;
      const total = Number(stats?.total_length ?? 0) - removed.length + addedLength;
      const avgdl = Math.max(1, count > 0 ? total / count : 1);
      if (analyzed.length) {
        const p = { term: [] as string[], impact: [] as number[], chunk: [] as string[], tenant: [] as Array<number | null>, collection: [] as string[] };
        const rows: ChunkRow[] = analyzed.map(({ row, tf }) => {
          const terms: ChunkRow['terms'] = {};
          for (const [term, f] of tf) {
            const impact = this.impact(f, row.length, avgdl);
            terms[term] = [f, impact];
            p.term.push(term);
            p.impact.push(impact);
            p.chunk.push(row.id);
            p.tenant.push(row.tenant);
            p.collection.push(row.collection);
          }
          return { ...row, terms };
        });
        await tx.query(
          `INSERT INTO retrieval.chunks (id, project_id, collection, tenant, item_id, client_item_id, n, text, url, metadata, length, terms)
           SELECT c.id, $1, c.collection, c.tenant, c.item_id, c.client_item_id, c.n, c.text, c.url, COALESCE(c.metadata, '{}'::jsonb), c.length, c.terms
           FROM jsonb_to_recordset($2::jsonb)
             AS c(id uuid, collection text, tenant int, item_id uuid, client_item_id text, n int, text text, url text, metadata jsonb, length int, terms jsonb)`,
          [project, JSON.stringify(rows)],
        );
        await tx.query(
          `INSERT INTO retrieval.postings (project_id, term, impact, chunk_id, tenant, collection)
           SELECT $1, * FROM unnest($2::text[], $3::int[], $4::uuid[], $5::int[], $6::text[])`,
          [project, p.term, p.impact, p.chunk, p.tenant, p.collection],
        );
        await tx.query(
          `INSERT INTO retrieval.terms (project_id, term, df)
           SELECT $1, term, count(*) FROM unnest($2::text[]) AS term GROUP BY term ORDER BY term
           ON CONFLICT (project_id, term) DO UPDATE SET df = retrieval.terms.df + EXCLUDED.df`,
          [project, p.term],
        );
      }
      await tx.query(
        `INSERT INTO retrieval.stats (project_id, chunk_count, total_length) VALUES ($1, $2, $3)
         ON CONFLICT (project_id) DO UPDATE SET chunk_count = EXCLUDED.chunk_count, total_length = EXCLUDED.total_length`,
        [project, count, total],
      );
      return removed.postings + analyzed.reduce((n, c) => n + c.tf.size, 0);
    });
    this.vacuum.changed(changed);
    return analyzed.length;
  }

  async search(q: SearchQuery): Promise<RetrievedChunk[]> {
    const stop = metrics.retrievalDuration.startTimer({ backend: this.backend });
    try {
      const terms = queryTerms(q.text).map((t) => t.slice(0, 64));
      if (terms.length === 0) return [];
      const params: unknown[] = [q.scope.projectId, terms, this.config.BM25_K1, this.config.BM25_B];
      const where = ['p.project_id = $1', 'p.term = t.term'];
      if (q.tenant !== null) {
        params.push(q.tenant);
        where.push(`p.tenant = $${params.length}`);
      }
      if (q.collections) {
        params.push(q.collections);
        where.push(`p.collection = ANY($${params.length}::text[])`);
      }
      // Metadata conditions are checked on each posting's chunk while the postings are read, so the depth
      // counts only postings that pass them.
      const metadata = filterSql(q.filters, 'm.metadata', params);
      const metadataJoin = metadata.length ? 'JOIN retrieval.chunks m ON m.id = p.chunk_id AND m.project_id = $1' : '';
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
             SELECT p.chunk_id, p.impact FROM retrieval.postings p ${metadataJoin}
             WHERE ${[...where, ...metadata].join(' AND ')}
             ORDER BY p.impact DESC ${depth}
           ) p
           GROUP BY p.chunk_id
           ORDER BY sum(t.idf * p.impact) DESC
           LIMIT GREATEST(${limit} * 10, 100)
         ),
         scored AS (
           SELECT c.id, c.item_id,
             (SELECT sum(t.idf * f.tf * ($3::float8 + 1) / (f.tf + $3::float8 * (1 - $4::float8 + $4::float8 * c.length / s.avgdl)))
              FROM t CROSS JOIN LATERAL (SELECT (c.terms->t.term->>0)::float8 AS tf) f WHERE f.tf IS NOT NULL) AS score
           FROM candidates JOIN retrieval.chunks c ON c.id = candidates.chunk_id AND c.project_id = $1 CROSS JOIN s
         ),
         best AS (
           SELECT * FROM (SELECT DISTINCT ON (item_id) * FROM scored ORDER BY item_id, score DESC) b
           ORDER BY score DESC, item_id LIMIT ${limit}
         )
         SELECT c.id, c.item_id, c.client_item_id, c.collection, c.tenant, c.url, c.metadata, c.text, c.n, best.score
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
