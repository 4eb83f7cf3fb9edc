import { ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Client } from 'pg';
import { flag, listArg, numberArg } from './lib/args';
import { jsonl, ndcgAt, qrels } from './lib/data';
import { repoRoot } from './lib/root';
import { Api, backgroundSettled, heldInMemory, machine, modeFromArgs, percentile, Running, startService } from './lib/service';
import { SyntheticCorpus } from './lib/synthetic';

/**
 * askdata beside other search engines on one corpus and one set of questions: PostgreSQL full-text search (a scratch
 * database on the local server, GIN index, `ts_rank_cd`), MiniSearch (in this process) and, when python3-xapian is
 * installed, Xapian (BM25, through bench/peers/xapian-peer.py; its search time is measured inside Python). Each
 * system ingests the documents in turn (askdata's searches wait until its work on the load, block merges and vacuum,
 * is over); then the questions go to every system in turn, top 10. With `--rounds N` they go N times and the table is
 * the last round's, each earlier round's p50 and p99 printed above it: a service that has just started is still being
 * compiled by V8 while it answers, where one that has run a while is not.
 *   node dist/bench/peers.js [--distributed] [--corpus scifact|synthetic] [--docs N] [--queries N] [--rounds N]
 *                            [--systems askdata,postgres,minisearch,xapian] [--filtered]
 * --filtered: askdata's items carry a metadata `group` (a quarter each) and its searches ask for one group, as a
 * search with a metadata filter (scored in SQL) does; the other systems search everything, so compare askdata with itself.
 * Disk: askdata standalone its data directory, distributed the tables of its schemas (indexes and TOAST included,
 * WAL not); PostgreSQL the table; Xapian its database directory.
 */
interface Doc {
  id: string;
  title: string;
  text: string;
}
interface Question {
  id: string;
  text: string;
}
interface Peer {
  name: string;
  ingest(docs: Doc[]): Promise<void>;
  /** The ids found, and the time the engine took when it is measured inside it (else the caller times the call). */
  search(text: string): Promise<{ ids: string[]; ms?: number }>;
  /** Waits until searches run as they will from now on (askdata: scored in memory), printing how long that took. */
  ready?(text: string): Promise<void>;
  diskBytes(): Promise<number | null>;
  rssMb(): number | null;
  stop(): Promise<void>;
}

const LIMIT = 10;
const PG = 'postgres://postgres@127.0.0.1:5432/postgres';

function dirBytes(dir: string): number {
  let sum = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    sum += e.isDirectory() ? dirBytes(p) : e.isFile() ? statSync(p).size : 0;
  }
  return sum;
}

function rssMb(pids: number[]): number | null {
  let kb = 0;
  for (const pid of pids) {
    const m = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    if (!m) return null;
    kb += Number(m[1]);
  }
  return kb / 1024;
}

async function askdata(): Promise<Peer> {
  const mode = modeFromArgs();
  const service: Running = await startService(mode);
  const api = await Api.withProject(service);
  const filtered = flag('filtered');
  const filter = filtered ? { filter: { group: 'b' } } : {};
  return {
    name: `askdata ${mode} (HTTP)${filtered ? ', filtered' : ''}`,
    ingest: async (docs) => {
      const group = (i: number) => (filtered ? { metadata: { group: 'abcd'[i % 4] } } : {});
      await api.upsertAll(docs.map((d, i) => ({ id: d.id, data: { title: d.title, text: d.text }, ...group(i) })));
    },
    search: async (text) => {
      const { data } = await api.call<{ data: Array<{ item_id: string }> }>('POST', '/search', { text, limit: LIMIT, ...filter });
      return { ids: data.map((h) => h.item_id) };
    },
    ready: async (text) => {
      // Searches are timed once the service's work on the load (block merges, vacuum) is over.
      const t = performance.now();
      const merges = await backgroundSettled(service, 6000);
      if (merges.merged)
        console.log(
          `  askdata: posting blocks merged (${merges.merged} rows into ${merges.made} in ${merges.seconds.toFixed(1)} s); settled ${((performance.now() - t) / 1000).toFixed(0)} s after the load`,
        );
      await heldInMemory(service, api, text);
    },
    diskBytes: async () => {
      if (service.dataDir) {
        const dir = service.dataDir;
        const parts = readdirSync(dir, { withFileTypes: true, recursive: true })
          .filter((e) => e.isDirectory() && /^(pg_wal|base)$/.test(e.name))
          .map((e) => `${e.name} ${(dirBytes(join(e.parentPath, e.name)) / 2 ** 20).toFixed(0)} MB`);
        const bytes = dirBytes(dir);
        console.log(`  askdata data directory: ${(bytes / 2 ** 20).toFixed(0)} MB, of which ${parts.join(', ')}`);
        return bytes;
      }
      const db = new Client({ connectionString: service.databaseUrl! });
      await db.connect();
      try {
        const { rows } = await db.query<{ bytes: string }>(
          `SELECT sum(pg_total_relation_size(c.oid)) AS bytes FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
           WHERE n.nspname IN ('gateway', 'ingestion', 'catalog', 'retrieval', 'conversation') AND c.relkind IN ('r', 'm')`,
        );
        return Number(rows[0].bytes);
      } finally {
        await db.end();
      }
    },
    rssMb: () => rssMb([...service.processes.values()].flat().map((p) => p.pid!)),
    stop: () => service.stop(),
  };
}

async function postgres(): Promise<Peer> {
  const name = `askdata_peers_test_${process.pid}`;
  const admin = new Client({ connectionString: PG });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  const db = new Client({ connectionString: PG.replace(/\/postgres$/, `/${name}`) });
  await db.connect();
  await db.query('CREATE TABLE docs (id text PRIMARY KEY, tsv tsvector NOT NULL)');
  await db.query('CREATE INDEX ON docs USING gin (tsv)');
  return {
    name: 'PostgreSQL FTS (TCP)',
    ingest: async (docs) => {
      for (let i = 0; i < docs.length; i += 500) {
        await db.query(`INSERT INTO docs SELECT d.id, to_tsvector('english', d.title || ' ' || d.text) FROM jsonb_to_recordset($1::jsonb) AS d(id text, title text, text text)`, [
          JSON.stringify(docs.slice(i, i + 500)),
        ]);
      }
      await db.query('ANALYZE docs');
    },
    search: async (text) => {
      // OR of the question's lexemes (an AND finds almost nothing for claims), ranked by cover density.
      const { rows } = await db.query<{ id: string }>(
        `WITH q AS (SELECT NULLIF(replace(plainto_tsquery('english', $1)::text, '&', '|'), '')::tsquery AS q)
         SELECT id FROM docs, q WHERE tsv @@ q.q ORDER BY ts_rank_cd(tsv, q.q, 1) DESC, id LIMIT ${LIMIT}`,
        [text],
      );
      return { ids: rows.map((r) => r.id) };
    },
    diskBytes: async () => Number((await db.query<{ b: string }>(`SELECT pg_total_relation_size('docs') AS b`)).rows[0].b),
    rssMb: () => null,
    stop: async () => {
      await db.end();
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    },
  };
}

async function minisearch(): Promise<Peer> {
  const { default: MiniSearch } = await import('minisearch');
  const index = new MiniSearch<Doc>({ fields: ['title', 'text'] });
  return {
    name: 'MiniSearch (in-process)',
    ingest: async (docs) => index.addAll(docs),
    search: async (text) => {
      const t = performance.now();
      const ids = index
        .search(text)
        .slice(0, LIMIT)
        .map((r) => String(r.id));
      return { ids, ms: performance.now() - t };
    },
    diskBytes: async () => null,
    rssMb: () => null,
    stop: async () => undefined,
  };
}

const PYTHON = '/usr/bin/python3';

function xapianAvailable(): Promise<boolean> {
  if (!existsSync(PYTHON)) return Promise.resolve(false);
  return new Promise<boolean>((ok) => {
    const p = spawn(PYTHON, ['-c', 'import xapian'], { stdio: 'ignore' });
    p.once('exit', (code) => ok(code === 0));
    p.once('error', () => ok(false));
  });
}

async function xapian(): Promise<Peer> {
  const dir = mkdtempSync(join(tmpdir(), 'askdata-peers-xapian-'));
  const child: ChildProcess = spawn(PYTHON, [join(repoRoot(), 'bench', 'peers', 'xapian-peer.py'), join(dir, 'db')], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  const ask = async <T>(req: unknown): Promise<T> => {
    child.stdin!.write(JSON.stringify(req) + '\n');
    const { value, done } = await lines.next();
    if (done) throw new Error('the Xapian helper stopped');
    return JSON.parse(value) as T;
  };
  return {
    name: 'Xapian 1.4 (in-process)',
    ingest: async (docs) => {
      for (let i = 0; i < docs.length; i += 500) await ask({ op: 'add', docs: docs.slice(i, i + 500) });
      await ask({ op: 'commit' });
    },
    search: (text) => ask<{ ids: string[]; ms: number }>({ op: 'search', text, limit: LIMIT }),
    diskBytes: async () => dirBytes(dir),
    rssMb: () => rssMb([child.pid!]),
    stop: async () => {
      child.stdin!.end();
      await new Promise((r) => (child.exitCode !== null ? r(null) : child.once('exit', r)));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function corpusOf(kind: string, docs: number, queries: number): { docs: Doc[]; questions: Question[]; rels: Map<string, Map<string, number>> | null } {
  if (kind === 'scifact') {
    const all = jsonl<{ _id: string; title: string; text: string }>('scifact/corpus.jsonl').slice(0, docs);
    const rels = qrels('scifact/qrels/train.tsv');
    const questions = jsonl<{ _id: string; text: string }>('scifact/queries.train.jsonl')
      .filter((q) => rels.has(q._id))
      .slice(0, queries)
      .map((q) => ({ id: q._id, text: q.text }));
    return { docs: all.map((d) => ({ id: d._id, title: d.title, text: d.text })), questions, rels };
  }
  if (kind !== 'synthetic') throw new Error('--corpus is scifact or synthetic');
  const corpus = new SyntheticCorpus();
  const out = Array.from({ length: docs }, (_, i) => corpus.item(i, 1200)).map((d) => ({ id: d.id, title: d.data.title, text: d.data.text }));
  return { docs: out, questions: Array.from({ length: queries }, (_, i) => ({ id: String(i), text: corpus.question() })), rels: null };
}

const fmt = (v: number | null, digits = 1) => (v === null || Number.isNaN(v) ? '-' : v.toFixed(digits));

async function main(): Promise<void> {
  const kind = listArg('corpus', ['scifact'])[0];
  const { docs, questions, rels } = corpusOf(kind, numberArg('docs', kind === 'scifact' ? 5183 : 5000), numberArg('queries', kind === 'scifact' ? 809 : 300));
  const jsonBytes = docs.reduce((s, d) => s + JSON.stringify({ id: d.id, data: { title: d.title, text: d.text } }).length, 0);
  const wanted = listArg('systems', ['askdata', 'postgres', 'minisearch', 'xapian']);
  const hasXapian = await xapianAvailable();
  if (wanted.includes('xapian') && !hasXapian) console.log('Xapian left out: /usr/bin/python3 cannot import xapian (apt-get install -y python3-xapian)');
  console.log(
    `peers: ${kind}, ${docs.length} documents (${(jsonBytes / 2 ** 20).toFixed(1)} MB of JSON), ${questions.length} questions, top ${LIMIT}; askdata ${modeFromArgs()}; ${machine()}`,
  );
  const makers: Record<string, () => Promise<Peer>> = { askdata, postgres, minisearch, xapian };
  const peers: Peer[] = [];
  const rows: Array<{ peer: Peer; rate: number; lat: number[]; ndcg: number | null; disk: number | null; rss: number | null }> = [];
  try {
    for (const name of wanted) {
      if (!makers[name]) throw new Error(`unknown system ${name}`);
      if (name === 'xapian' && !hasXapian) continue;
      const peer = await makers[name]();
      peers.push(peer);
      const t = performance.now();
      await peer.ingest(docs);
      const rate = docs.length / ((performance.now() - t) / 1000);
      console.log(`  ${peer.name}: ingested at ${rate.toFixed(0)} docs/s`);
      await peer.ready?.(questions[0].text);
      rows.push({ peer, rate, lat: [], ndcg: null, disk: null, rss: null });
    }
    const runs = rows.map(() => new Map<string, string[]>());
    const warm = Math.min(20, questions.length);
    const rounds = numberArg('rounds', 1);
    for (let round = 1; round <= rounds; round++) {
      for (const row of rows) row.lat = [];
      for (let i = -warm; i < questions.length; i++) {
        const q = questions[(i + questions.length) % questions.length];
        for (let k = 0; k < rows.length; k++) {
          // Taking turns: each question starts with the next system.
          const j = (k + i + warm) % rows.length;
          const t = performance.now();
          const found = await rows[j].peer.search(q.text);
          const ms = found.ms ?? performance.now() - t;
          if (i >= 0) {
            rows[j].lat.push(ms);
            runs[j].set(q.id, found.ids);
          }
        }
      }
      if (round === rounds) break;
      for (const row of rows) {
        const sorted = [...row.lat].sort((a, b) => a - b);
        console.log(`  ${row.peer.name}: round ${round} of ${rounds}, search p50 ${fmt(percentile(sorted, 50), 2)} ms, p99 ${fmt(percentile(sorted, 99), 2)}`);
      }
    }
    for (const [j, row] of rows.entries()) {
      row.lat.sort((a, b) => a - b);
      if (rels) row.ndcg = questions.reduce((s, q) => s + ndcgAt(runs[j].get(q.id) ?? [], rels.get(q.id)!, 10), 0) / questions.length;
      row.disk = await row.peer.diskBytes();
      row.rss = row.peer.rssMb();
    }
  } finally {
    for (const p of peers) await p.stop();
  }
  const x = rows.find((r) => r.peer.name.startsWith('Xapian'));
  const xp50 = x ? percentile(x.lat, 50) : null;
  console.log('');
  console.log('| system | search p50 ms | p99 ms | p99/p50 | p50 / Xapian p50 | ingest docs/s | disk MB | disk / JSON | RSS MB | nDCG@10 |');
  console.log('|---|---|---|---|---|---|---|---|---|---|');
  for (const r of rows) {
    const p50 = percentile(r.lat, 50);
    const p99 = percentile(r.lat, 99);
    console.log(
      `| ${r.peer.name} | ${fmt(p50, 2)} | ${fmt(p99, 2)} | ${fmt(p99 / p50)} | ${xp50 ? fmt(p50 / xp50) : '-'} | ${fmt(r.rate, 0)} | ${r.disk === null ? '-' : fmt(r.disk / 2 ** 20, 0)} | ${r.disk === null ? '-' : fmt(r.disk / jsonBytes)} | ${fmt(r.rss, 0)} | ${r.ndcg === null ? '-' : r.ndcg.toFixed(4)} |`,
    );
  }
  if (flag('distributed')) console.log('askdata distributed: RSS is the sum of its five processes; disk excludes the WAL.');
}

main().catch((e: Error) => {
  console.error(e);
  process.exit(1);
});
