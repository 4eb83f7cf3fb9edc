import { Client } from 'pg';
import { DATA, jsonl, ndcgAt, qrels, recallAt } from './lib/data';
import { Api, machine, modeFromArgs, startService } from './lib/service';

/**
 * Retrieval quality on BEIR SciFact (train split: 809 queries) through POST /v1/search, next to PostgreSQL's
 * ts_rank_cd on the same documents, measured in the same run.
 *   node dist/bench/scifact.js [--distributed]
 */
interface Doc {
  _id: string;
  title: string;
  text: string;
}
interface Query {
  _id: string;
  text: string;
}

async function tsRankCdBaseline(docs: Doc[], queries: Query[]): Promise<Map<string, string[]>> {
  const admin = new Client({ connectionString: 'postgres://postgres@127.0.0.1:5432/postgres' });
  await admin.connect();
  const name = `askdata_scifact_test_${process.pid}`;
  await admin.query(`CREATE DATABASE ${name}`);
  const db = new Client({ connectionString: `postgres://postgres@127.0.0.1:5432/${name}` });
  await db.connect();
  try {
    await db.query(`CREATE TABLE docs (id text PRIMARY KEY, tsv tsvector)`);
    for (let i = 0; i < docs.length; i += 500) {
      await db.query(`INSERT INTO docs SELECT d.id, to_tsvector('english', d.title || ' ' || d.text) FROM jsonb_to_recordset($1::jsonb) AS d(id text, title text, text text)`, [
        JSON.stringify(docs.slice(i, i + 500).map((d) => ({ id: d._id, title: d.title, text: d.text }))),
      ]);
    }
    await db.query('CREATE INDEX ON docs USING gin (tsv)');
    const out = new Map<string, string[]>();
    for (const q of queries) {
      // OR of the query's lexemes (an AND finds almost nothing for claims), ranked by cover density.
      const { rows } = (await db.query(
        `WITH q AS (SELECT NULLIF(replace(plainto_tsquery('english', $1)::text, '&', '|'), '')::tsquery AS q)
         SELECT id FROM docs, q WHERE tsv @@ q.q ORDER BY ts_rank_cd(tsv, q.q, 1) DESC, id LIMIT 100`,
        [q.text],
      )) as { rows: Array<{ id: string }> };
      out.set(
        q._id,
        rows.map((r) => r.id),
      );
    }
    return out;
  } finally {
    await db.end();
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  }
}

function score(runs: Map<string, string[]>, rels: Map<string, Map<string, number>>, queries: Query[]) {
  let ndcg = 0;
  let recall = 0;
  for (const q of queries) {
    const rel = rels.get(q._id)!;
    ndcg += ndcgAt(runs.get(q._id) ?? [], rel, 10);
    recall += recallAt(runs.get(q._id) ?? [], rel, 100);
  }
  return { ndcg10: ndcg / queries.length, recall100: recall / queries.length };
}

async function main(): Promise<void> {
  const mode = modeFromArgs();
  const docs = jsonl<Doc>('scifact/corpus.jsonl');
  const rels = qrels('scifact/qrels/train.tsv');
  const queries = jsonl<Query>('scifact/queries.train.jsonl').filter((q) => rels.has(q._id));
  console.log(`SciFact: ${docs.length} documents, ${queries.length} train queries (${DATA}); ${mode}; ${machine()}`);

  const service = await startService(mode);
  try {
    const api = await Api.withProject(service);
    const t0 = Date.now();
    await api.upsertAll(docs.map((d) => ({ id: d._id, data: { title: d.title, text: d.text } })));
    console.log(`indexed in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    const runs = new Map<string, string[]>();
    const latencies: number[] = [];
    for (const q of queries) {
      const s = performance.now();
      const { data } = await api.call<{ data: Array<{ item_id: string }> }>('POST', '/search', { text: q.text, limit: 100 });
      latencies.push(performance.now() - s);
      runs.set(
        q._id,
        data.map((h) => h.item_id),
      );
    }
    latencies.sort((a, b) => a - b);
    const ours = score(runs, rels, queries);
    const baseline = score(await tsRankCdBaseline(docs, queries), rels, queries);
    console.log('| ranking | nDCG@10 | Recall@100 |');
    console.log('|---|---|---|');
    console.log(`| askdata POST /v1/search (default backend) | ${ours.ndcg10.toFixed(4)} | ${ours.recall100.toFixed(4)} |`);
    console.log(`| PostgreSQL ts_rank_cd (OR of lexemes, normalization 1) | ${baseline.ndcg10.toFixed(4)} | ${baseline.recall100.toFixed(4)} |`);
    console.log(`search latency through the gateway: p50 ${latencies[Math.floor(latencies.length / 2)].toFixed(1)} ms`);
  } finally {
    await service.stop();
  }
}

main().catch((e: Error) => {
  console.error(e);
  process.exit(1);
});
