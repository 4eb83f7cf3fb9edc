import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { unpackJson } from '@askdata/common';
import { chunkText } from './chunk';
import { ItemAnalysis } from './item-analysis';

const english = 'The ferry to the island leaves the harbour at noon every day, and returns in the evening when the weather allows.';

describe('ItemAnalysis', () => {
  let dir: string;
  const analyses: ItemAnalysis[] = [];
  beforeAll(() => (dir = mkdtempSync(join(tmpdir(), 'analysis-'))));
  afterEach(async () => {
    await Promise.all(analyses.splice(0).map((a) => a.onApplicationShutdown()));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("reads each item's title, body and (where asked) language, and chunks bodies, on the event loop when the thread is off or not compiled", async () => {
    for (const analysis of [
      new ItemAnalysis({ INGEST_ANALYSIS_THREAD: false, INGEST_ANALYSIS_TIMEOUT_MS: 60000 }),
      new ItemAnalysis({ INGEST_ANALYSIS_THREAD: true, INGEST_ANALYSIS_TIMEOUT_MS: 60000 }),
    ]) {
      expect(analysis.threaded).toBe(false);
      const data = [{ title: 'Ferry times', text: english }, { text: english }];
      const read = await analysis.read([
        { data: data[0], detect: true },
        { data: data[1], detect: false },
      ]);
      expect(read).toEqual([
        { title: 'Ferry times', body: `Ferry times\n${english}`, detected: 'en', packed: expect.any(String) },
        { title: '', body: english, detected: null, packed: expect.any(String) },
      ]);
      // Each item's data packed for catalog to store as it is.
      expect(read.map((r) => unpackJson(Buffer.from(r.packed, 'base64')))).toEqual(data);
      const options = { maxTokens: 8, overlapTokens: 2 };
      expect(await analysis.chunk([english, ''], options)).toEqual([chunkText(english, options), []]);
    }
  });

  it('sends the work to its thread when there is one, and fails with the reason the thread gives', async () => {
    const script = join(dir, 'thread.js');
    writeFileSync(
      script,
      `const { parentPort } = require('node:worker_threads');
       parentPort.on('message', (r) => parentPort.postMessage(r.read ? { id: r.id, result: r.read.map((i) => ({ title: '', body: i.data.text, detected: 'xx' })) } : { id: r.id, error: 'no chunks today' }));`,
    );
    const analysis = new ItemAnalysis({ INGEST_ANALYSIS_THREAD: true, INGEST_ANALYSIS_TIMEOUT_MS: 60000 }, script);
    analyses.push(analysis);
    analysis.onModuleInit();
    expect(analysis.threaded).toBe(true);
    expect(await analysis.read([{ data: { text: 'a' }, detect: true }])).toEqual([{ title: '', body: 'a', detected: 'xx' }]);
    await expect(analysis.chunk(['a'], { maxTokens: 8, overlapTokens: 0 })).rejects.toThrow("reading items' text failed: no chunks today");
  });
  it('stops a thread stuck on an item, fails what it held, and reads the next items on a new thread', async () => {
    const script = join(dir, 'stuck.js');
    writeFileSync(
      script,
      `const { parentPort } = require('node:worker_threads');
       parentPort.on('message', (r) => { if (r.read[0].data.text === 'loop') for (;;); parentPort.postMessage({ id: r.id, result: r.read.map((i) => ({ title: '', body: i.data.text, detected: null })) }); });`,
    );
    const analysis = new ItemAnalysis({ INGEST_ANALYSIS_THREAD: true, INGEST_ANALYSIS_TIMEOUT_MS: 1000 }, script);
    analyses.push(analysis);
    await expect(analysis.read([{ data: { text: 'loop' }, detect: false }])).rejects.toThrow('the item analysis thread did not answer within 1000 ms, and was stopped');
    expect(await analysis.read([{ data: { text: 'b' }, detect: false }])).toEqual([{ title: '', body: 'b', detected: null }]);
  });
});
