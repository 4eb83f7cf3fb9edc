import { transformFileSync } from '@swc/core';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { getPriority, tmpdir } from 'node:os';
import { join } from 'node:path';
import { BULK_THREAD_NICE, ThreadCalls } from './thread-calls';

/**
 * The thread side of ThreadCalls as it runs: this module compiled to JavaScript beside a script that serves each
 * request with the thread's own nice value.
 */
describe('serveThreadCalls', () => {
  let dir: string;
  let calls: ThreadCalls<{ ask: 'nice' }, number>;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'thread-calls-'));
    const compiled = transformFileSync(join(__dirname, 'thread-calls.ts'), { module: { type: 'commonjs' }, jsc: { parser: { syntax: 'typescript' }, target: 'es2022' } });
    writeFileSync(join(dir, 'thread-calls.js'), compiled.code);
    writeFileSync(
      join(dir, 'nice.js'),
      `const { getPriority } = require('node:os');
       require('./thread-calls').serveThreadCalls(() => getPriority());`,
    );
    calls = new ThreadCalls(join(dir, 'nice.js'), { failed: 'asking the nice value failed', thread: 'the test thread', hungMs: 10000 });
  });

  afterAll(async () => {
    await calls.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('runs its bulk work at a lower priority than the event loop on Linux, which keeps its own', async () => {
    const before = getPriority();
    const nice = await calls.call({ ask: 'nice' });
    if (process.platform === 'linux') expect(nice).toBe(Math.max(before, BULK_THREAD_NICE));
    // Elsewhere the nice value is the process's: the thread leaves it as it is.
    else expect(nice).toBe(before);
    expect(getPriority()).toBe(before);
  });
});
