import { Inject, Injectable } from '@nestjs/common';
import { ChunkInput, RetrievedChunk, Scope } from '@askdata/contracts';
import { metrics, queryRows } from '@askdata/common';
import { DataSource } from 'typeorm';
import { queryTerms, termFrequencies } from '@askdata/common';
import { snippet } from '../analysis/snippet';
import { RETRIEVAL_CONFIG, RetrievalConfig } from '../retrieval.config';
import { filterSql } from './filters';
import { chunkId, indexedText, SearchIndex, SearchQuery } from './search-index';

interface Row {
  id: string;
  item_id: string;
  client_item_id: string;
  collection: string;
  tenant: number | null;
  url: string | null;
  metadata: Record<string, unknown>;
  text: string;
  n: number;
  score: number;
}

/**
 * BM25 computed in SQL over the service's own tables. Postings carry term frequency and chunk length; document
 * frequencies and the collection size are kept exact in the same transaction as every change, so scores are
 * always those of the current index. Tenant, collection and metadata filters are conditions of the ranking
 * query itself.
 */
@Injectable()
export class PostgresIndex implements SearchIndex {
  readonly backend = 'postgres';

  constructor(
    private readonly ds: DataSource,
    @Inject(RETRIEVAL_CONFIG) private readonly config: RetrievalConfig,
  ) {}

  async replace(scope: Scope, items: ChunkInput[]): Promise<number> {
    const project = scope.projectId;
    const chunks: Array<Omit<Row, 'score' | 'client_item_id' | 'item_id'> & { item_id: string; client_item_id: string; length: number }> = [];
    const p = { term: [] as string[], chunk: [] as string[], tf: [] as number[], length: [] as number[], tenant: [] as Array<number | null>, collection: [] as string[] };
    for (const item of items) {
      item.chunks.forEach((text, n) => {
        const id = chunkId(item.itemId, n);
        const tf = termFrequencies(indexedText(item, text));
        let length = 0;
        for (const f of tf.values()) length += f;
        chunks.push({
          id, item_id: item.itemId, client_item_id: item.clientItemId, collection: item.collection, tenant: item.tenant,
          url: item.url, metadata: item.metadata, text, n, length,
        });
        for (const [term, f] of tf) {
          p.term.push(term.slice(0, 64));
          p.chunk.push(id);
          p.tf.push(Math.min(f, 32767));
          p.length.push(length);
          p.tenant.push(item.tenant);
          p.collection.push(item.collection);
        }
      });
    }
    const itemIds = items.map((i) => i.itemId);
    await this.ds.transaction(async (tx) => {
      // One writer per project at a time: document frequencies are shared rows.
      await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`retrieval:${project}`]);
      const removed = await queryRows<{ id: string; length: number }>(
        tx,
        'DELETE FROM retrieval.chunks WHERE project_id = $1 AND item_id = ANY($2::uuid[]) RETURNING id, length',
        [project, itemIds],
      );
      if (removed.length) {
        await tx.query(
          `WITH d AS (DELETE FROM retrieval.postings WHERE project_id = $1 AND chunk_id = ANY($2::uuid[]) RETURNING term),
                c AS (SELECT term, count(*)::int AS n FROM d GROUP BY term)
           UPDATE retrieval.terms t SET df = t.df - c.n FROM c WHERE t.project_id = $1 AND t.term = c.term`,
          [project, removed.map((r) => r.id)],
        );
        await tx.query('DELETE FROM retrieval.terms WHERE project_id = $1 AND df <= 0', [project]);
      }
      if (chunks.length) {
        await tx.query(
          `INSERT INTO retrieval.chunks (id, project_id, collection, tenant, item_id, client_item_id, n, text, url, metadata, length)
           SELECT c.id, $1, c.collection, c.tenant, c.item_id, c.client_item_id, c.n, c.text, c.url, COALESCE(c.metadata, '{}'::jsonb), c.length
           FROM jsonb_to_recordset($2::jsonb) AS c(id uuid, collection text, tenant int, item_id uuid, client_item_id text, n int, text text, url text, metadata jsonb, length int)`,
          [project, JSON.stringify(chunks)],
        );
        await tx.query(
          `INSERT INTO retrieval.postings (project_id, term, chunk_id, tf, length, tenant, collection)
           SELECT $1, * FROM unnest($2::text[], $3::uuid[], $4::smallint[], $5::int[], $6::int[], $7::text[])`,
          [project, p.term, p.chunk, p.tf, p.length, p.tenant, p.collection],
        );
        await tx.query(
          `INSERT INTO retrieval.terms (project_id, term, df)
           SELECT $1, term, count(*) FROM unnest($2::text[]) AS term GROUP BY term ORDER BY term
           ON CONFLICT (project_id, term) DO UPDATE SET df = retrieval.terms.df + EXCLUDED.df`,
          [project, p.term],
        );
      }
      const dCount = chunks.length - removed.length;
      const dLength = chunks.reduce((s, c) => s + c.length, 0) - removed.reduce((s, r) => s + r.length, 0);
      await tx.query(
        `INSERT INTO retrieval.stats (project_id, chunk_count, total_length) VALUES ($1, $2, $3)
         ON CONFLICT (project_id) DO UPDATE SET chunk_count = retrieval.stats.chunk_count + EXCLUDED.chunk_count,
           total_length = retrieval.stats.total_length + EXCLUDED.total_length`,
        [project, dCount, dLength],
      );
    });
    return chunks.length;
  }

  async search(q: SearchQuery): Promise<RetrievedChunk[]> {
    const stop = metrics.retrievalDuration.startTimer({ backend: this.backend });
    try {
      const terms = queryTerms(q.text).map((t) => t.slice(0, 64));
      if (terms.length === 0) return [];
      const params: unknown[] = [q.scope.projectId, terms, this.config.BM25_K1, this.config.BM25_B];
      const where = ['p.project_id = $1', 'p.term = ANY($2::text[])'];
      if (q.tenant !== null) {
        params.push(q.tenant);
        where.push(`p.tenant = $${params.length}`);
      }
      if (q.collections) {
        params.push(q.collections);
        where.push(`p.collection = ANY($${params.length}::text[])`);
      }
      const metadata = filterSql(q.filters, 'c.metadata', params);
      params.push(q.limit);
      const limit = `$${params.length}`;
      // Without metadata conditions the best chunks are found on postings alone, then joined; with them, the
      // conditions apply to every scored chunk before the limit, so a filter never empties a page silently.
      const candidates = metadata.length ? '' : `ORDER BY score DESC LIMIT GREATEST(${limit} * 4, 40)`;
      const rows = (await this.ds.query(
        `WITH s AS (
           SELECT chunk_count::float8 AS n, GREATEST(total_length::float8 / NULLIF(chunk_count, 0), 1) AS avgdl
           FROM retrieval.stats WHERE project_id = $1
         ),
         t AS (
           SELECT d.term, ln(1 + (s.n - d.df + 0.5) / (d.df + 0.5)) AS idf
           FROM retrieval.terms d, s WHERE d.project_id = $1 AND d.term = ANY($2::text[]) AND d.df > 0
         ),
         scored AS (
           SELECT p.chunk_id, sum(t.idf * p.tf * ($3::float8 + 1) / (p.tf + $3::float8 * (1 - $4::float8 + $4::float8 * p.length / s.avgdl))) AS score
           FROM retrieval.postings p JOIN t ON t.term = p.term CROSS JOIN s
           WHERE ${where.join(' AND ')}
           GROUP BY p.chunk_id
           ${candidates}
         ),
         ranked AS (
           SELECT DISTINCT ON (c.item_id) c.id, c.item_id, c.client_item_id, c.collection, c.tenant, c.url, c.metadata, c.text, c.n, scored.score
           FROM scored JOIN retrieval.chunks c ON c.id = scored.chunk_id AND c.project_id = $1
           ${metadata.length ? `WHERE ${metadata.join(' AND ')}` : ''}
           ORDER BY c.item_id, scored.score DESC
         )
         SELECT * FROM ranked ORDER BY score DESC, item_id LIMIT ${limit}`,
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
