import { BlockNumbers } from './block-numbers';
import { ProjectStatistics } from './project-statistics';
import { ProjectTurns } from './project-turns';

describe('index batch bookkeeping', () => {
  it("runs a project's work in the order it came, after a failure too, while another project's goes on", async () => {
    const turns = new ProjectTurns();
    const log: string[] = [];
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const first = turns.inTurn('p', async () => {
      await held;
      log.push('p1');
      throw new Error('p1 failed');
    });
    const second = turns.inTurn('p', async () => void log.push('p2'));
    await turns.inTurn('q', async () => void log.push('q1'));
    release();
    await expect(first).rejects.toThrow('p1 failed');
    await second;
    expect(log).toEqual(['q1', 'p1', 'p2']);
  });

  it('counts the batches prepared since the statistics were read, and reads them again once none is in hand', async () => {
    const stats = new ProjectStatistics();
    const read = jest.fn(async () => ({ chunkCount: 10, totalLength: 100 }));
    const a = { chunks: 2, length: 20 };
    const b = { chunks: 3, length: 30 };
    expect(await stats.before('p', a, read)).toEqual({ chunkCount: 10, totalLength: 100 });
    expect(await stats.before('p', b, read)).toEqual({ chunkCount: 12, totalLength: 120 });
    expect(read).toHaveBeenCalledTimes(1);
    stats.settle('p', a, { chunkCount: 12, totalLength: 120 });
    const c = { chunks: 1, length: 1 };
    expect(await stats.before('p', c, read)).toEqual({ chunkCount: 15, totalLength: 150 });
    stats.settle('p', b);
    stats.settle('p', c);
    expect(read).toHaveBeenCalledTimes(1);
    expect(await stats.before('p', c, read)).toEqual({ chunkCount: 10, totalLength: 100 });
    expect(read).toHaveBeenCalledTimes(2);
  });

  it('hands out every block number taken once, taking more ahead of need, and fails when the sequence does', async () => {
    let n = 0;
    const blocks = new BlockNumbers(async (k) => Array.from({ length: k }, () => String(++n)));
    const got = await Promise.all(Array.from({ length: 20 }, () => blocks.next()));
    expect(new Set(got).size).toBe(20);
    const failing = new BlockNumbers(() => Promise.reject(new Error('no sequence')));
    await expect(failing.next()).rejects.toThrow('no sequence');
  });
});
