import { queryTerms } from '@askdata/common';
import { ChunkInput } from '@askdata/contracts';
import { randomUUID } from 'node:crypto';
import { prepareBatch } from '../apps/retrieval/src/index/batch-preparation';
import { packedByItem } from '../apps/retrieval/src/index/memory-indexes';
import { MemoryPostings } from '../apps/retrieval/src/index/memory-postings';
import { chunkText } from '../apps/ingestion/src/pipeline/chunk';
import { numberArg } from './lib/args';
import { machine, percentile } from './lib/service';
import { SyntheticCorpus } from './lib/synthetic';

/**
 * What a memory index of synthetic items holds, without the service: items of about 1.2 KB (the peers benchmark's
 * synthetic corpus) chunked and prepared as ingestion and retrieval do, 500 at a time, applied to a `MemoryPostings`
 * as retrieval applies its writes, trimmed as after a load. Prints its terms and postings, the memory it takes (V8 heap
 * and typed arrays' stores: what full collections leave with it, less what they leave once it is let go) and what its
 * own estimate (`bytes`, held against SEARCH_MEMORY_MB) says; then the time of a search scored in it (no HTTP, no
 * rows), p50 and p99 over --queries questions, three rounds.
 *   node --expose-gc dist/bench/memory-index.js [--items 100000] [--queries 200]
 */
const items = numberArg('items', 100_000);
const queries = numberArg('queries', 200);
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc');

function used(): { heap: number; buffers: number } {
  for (let i = 0; i < 3; i++) gc!();
  const m = process.memoryUsage();
  return { heap: m.heapUsed, buffers: m.arrayBuffers };
}

function inputs(corpus: SyntheticCorpus, first: number, count: number): ChunkInput[] {
  return Array.from({ length: count }, (_, i) => {
    const it = corpus.item(first + i, 1200);
    const chunks = chunkText(it.data.text, { maxTokens: 200, overlapTokens: 40 });
    return { itemId: randomUUID(), clientItemId: it.id, collection: 'docs', tenant: null, url: null, metadata: it.metadata, title: it.data.title, chunks };
  });
}

async function main(): Promise<void> {
  console.log(`${machine()}; ${items} synthetic items`);
  const corpus = new SyntheticCorpus();
  let memory: MemoryPostings | null = new MemoryPostings();
  let chunkCount = 0;
  let totalLength = 0;
  for (let first = 0, block = 1; first < items; first += 500, block++) {
    const batch = inputs(corpus, first, Math.min(500, items - first));
    const prepared = await prepareBatch(batch, { block: String(block), chunkCount, totalLength }, { k1: 0.9, b: 0.4, avgLength: 100 });
    chunkCount += prepared.chunks;
    totalLength += prepared.length;
    const chunks = packedByItem(
      batch.map((item) => item.itemId),
      prepared.batch!.memory,
    );
    for (const item of batch) memory.replaceItem(item.itemId, chunks.get(item.itemId)!, item.metadata);
  }
  memory.trim();
  const held = used();
  const stats = memory.stats();
  const estimate = memory.bytes;
  const questions = Array.from({ length: queries }, () => queryTerms(corpus.question(), 'en'));
  for (let round = 1; round <= 3; round++) {
    const times: number[] = [];
    for (const terms of questions) {
      const t = performance.now();
      memory.search({ terms, k1: 0.9, b: 0.4, gramDepth: 0, tenant: null, collections: null, limit: 10 });
      times.push(performance.now() - t);
    }
    times.sort((a, b) => a - b);
    console.log(`round ${round}: search in memory p50 ${percentile(times, 50).toFixed(3)} ms, p99 ${percentile(times, 99).toFixed(3)} ms`);
  }
  memory = null;
  const gone = used();
  const heap = (held.heap - gone.heap) / 2 ** 20;
  const buffers = (held.buffers - gone.buffers) / 2 ** 20;
  console.log('\n| chunks | terms | postings | V8 heap MB | typed arrays MB | in all MB | bytes in all a posting | its estimate MB |');
  console.log('|---|---|---|---|---|---|---|---|');
  console.log(
    `| ${stats.chunks} | ${stats.terms} | ${stats.postings} | ${heap.toFixed(1)} | ${buffers.toFixed(1)} | ${(heap + buffers).toFixed(1)} | ${(((heap + buffers) * 2 ** 20) / stats.postings).toFixed(2)} | ${(estimate / 2 ** 20).toFixed(1)} |`,
  );
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
