import { ChunkInput, ErrorCode } from '@askdata/contracts';
import { runWithRequestContext } from '@askdata/common';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { prepareBatch } from './batch-preparation';
import { BatchPreparer } from './batch-preparer';

const item = (id: string, text: string): ChunkInput => ({
  itemId: `00000000-0000-4000-8000-00000000000${id}`,
  clientItemId: `doc-${id}`,
  collection: 'default',
  tenant: null,
  url: null,
  metadata: {},
  title: '',
  chunks: [text],
});
const meta = { block: '7', chunkCount: 0, totalLength: 0 };
const config = { BM25_K1: 0.9, BM25_B: 0.4, BM25_AVG_LENGTH: 100, INDEX_PREPARATION_TIMEOUT_MS: 60000 };

describe('BatchPreparer', () => {
  let dir: string;
  const preparers: BatchPreparer[] = [];
  beforeAll(() => (dir = mkdtempSync(join(tmpdir(), 'preparer-'))));
  afterEach(async () => {
    await Promise.all(preparers.splice(0).map((p) => p.onModuleDestroy()));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** A preparation thread running `body` on each request ({ id, items, meta, bm25 }), answering with what it returns. */
  function threadOf(name: string, body: string, timeoutMs = config.INDEX_PREPARATION_TIMEOUT_MS): BatchPreparer {
    const script = join(dir, `${name}.js`);
    writeFileSync(
      script,
      `const { parentPort } = require('node:worker_threads');
       parentPort.on('message', (request) => { const answer = ((request) => { ${body} })(request); parentPort.postMessage({ id: request.id, ...answer }); });`,
    );
    const preparer = new BatchPreparer({ ...config, INDEX_PREPARATION_THREAD: true, INDEX_PREPARATION_TIMEOUT_MS: timeoutMs }, script);
    preparers.push(preparer);
    preparer.onModuleInit();
    return preparer;
  }

  it('prepares on the event loop when the thread is turned off, or when there is no compiled thread script (running from sources)', async () => {
    const items = [item('1', 'The ferry leaves at noon.'), item('2', 'Ferries cross the bay.')];
    const expected = await prepareBatch(items, meta, { k1: 0.9, b: 0.4, avgLength: 100 });
    for (const preparer of [new BatchPreparer({ ...config, INDEX_PREPARATION_THREAD: false }), new BatchPreparer({ ...config, INDEX_PREPARATION_THREAD: true })]) {
      expect(preparer.threaded).toBe(false);
      expect(await preparer.prepare(items, meta)).toEqual(expected);
    }
    expect(expected).toMatchObject({ chunks: 2, batch: { block: '7', blocks: expect.arrayContaining([expect.stringContaining('"ferri"')]) as unknown } });
  });

  it('sends each batch to its thread with the BM25 parameters, and answers each request with its own result', async () => {
    const preparer = threadOf('echo', `return { result: { batch: null, chunks: request.items.length, length: request.bm25.k1 * 10 + Number(request.meta.block) } };`);
    expect(preparer.threaded).toBe(true);
    const [one, two] = await Promise.all([preparer.prepare([item('1', 'a')], meta), preparer.prepare([item('1', 'a'), item('2', 'b')], { ...meta, block: '8' })]);
    expect(one).toEqual({ batch: null, chunks: 1, length: 16 });
    expect(two).toEqual({ batch: null, chunks: 2, length: 17 });
  });

  it('fails a batch whose preparation failed on the thread, with the reason', async () => {
    const preparer = threadOf('failing', `return { error: 'an index batch holds fewer than 16777216 chunks' };`);
    await expect(preparer.prepare([item('1', 'a')], meta)).rejects.toThrow('preparing an index batch failed: an index batch holds fewer than 16777216 chunks');
  });

  it('fails the batches a thread held when it exits, and starts a new thread for the next batch', async () => {
    const preparer = threadOf('crashing', `if (request.items.length === 0) process.exit(3); return { result: { batch: null, chunks: request.items.length, length: 0 } };`);
    await expect(preparer.prepare([], meta)).rejects.toThrow('the index preparation thread exited (code 3)');
    expect(await preparer.prepare([item('1', 'a')], meta)).toEqual({ batch: null, chunks: 1, length: 0 });
  });
  it('stops a thread that leaves a batch unanswered too long, fails the batches it held, and starts a new one for the next', async () => {
    // An empty batch sends this thread into a loop that never ends.
    const preparer = threadOf('stuck', `if (request.items.length === 0) for (;;); return { result: { batch: null, chunks: request.items.length, length: 0 } };`, 1000);
    const stuck = preparer.prepare([], meta);
    const behind = preparer.prepare([item('1', 'a')], meta);
    await expect(stuck).rejects.toThrow('the index preparation thread did not answer within 1000 ms, and was stopped');
    await expect(behind).rejects.toThrow('the index preparation thread did not answer within 1000 ms, and was stopped');
    expect(await preparer.prepare([item('1', 'a'), item('2', 'b')], meta)).toEqual({ batch: null, chunks: 2, length: 0 });
  });

  it("gives up a batch written for a caller at the caller's deadline, as unavailable, and the thread goes on", async () => {
    const preparer = threadOf('slow', `const until = Date.now() + 700; while (Date.now() < until); return { result: { batch: null, chunks: request.items.length, length: 0 } };`);
    const late = runWithRequestContext({ requestId: 'r', deadline: Date.now() + 200 }, () => preparer.prepare([item('1', 'a')], meta));
    await expect(late).rejects.toMatchObject({ code: ErrorCode.Unavailable, message: expect.stringContaining('before its index batch was prepared') });
    // No deadline (a rebuild's batch): waits for the thread, which was not stopped.
    expect(await preparer.prepare([item('1', 'a')], meta)).toEqual({ batch: null, chunks: 1, length: 0 });
  });
  it("stops a stuck thread though every batch sent to it had a caller's deadline, and the next batch gets a new one", async () => {
    const preparer = threadOf('stuck-late', `if (request.items.length === 0) for (;;); return { result: { batch: null, chunks: request.items.length, length: 0 } };`, 1000);
    const late = runWithRequestContext({ requestId: 'r', deadline: Date.now() + 200 }, () => preparer.prepare([], meta));
    await expect(late).rejects.toMatchObject({ code: ErrorCode.Unavailable });
    // The thread still owes that answer: past 1000 ms without one, it is stopped.
    await new Promise((r) => setTimeout(r, 1500));
    expect(await preparer.prepare([item('1', 'a')], meta)).toEqual({ batch: null, chunks: 1, length: 0 });
  });
});
