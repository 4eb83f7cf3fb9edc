import type { DataSource } from 'typeorm';
import { ChunkRows } from './chunk-rows';

describe('ChunkRows', () => {
  /** A database that answers every chunk asked for, and counts what it was asked. */
  function database() {
    const asked: string[][] = [];
    const query = ({ values }: { values: [string, string[]] }) => {
      asked.push(values[1]);
      return Promise.resolve({ rows: values[1].map((id) => ({ id, project_id: values[0], text: `chunk ${id}` })) });
    };
    return { ds: { driver: { master: { query } } } as unknown as DataSource, asked };
  }

  it('reads only the chunks it has not kept, and never gives one key the row of another', async () => {
    const db = database();
    const rows = new ChunkRows(db.ds);
    expect([...(await rows.read('a', ['1', '2'])).keys()]).toEqual(['1', '2']);
    expect((await rows.read('a', ['2', '3'])).get('2')?.text).toBe('chunk 2');
    expect(db.asked).toEqual([['1', '2'], ['3']]);
    await rows.read('b', ['1']);
    expect(db.asked[2]).toEqual(['1']);
  });

  it('lets the least recently found go first', async () => {
    const db = database();
    const rows = new ChunkRows(db.ds);
    await rows.read('a', ['first', 'second']);
    await rows.read(
      'a',
      Array.from({ length: 2046 }, (_, i) => `n${i}`),
    );
    await rows.read('a', ['first']);
    await rows.read('a', ['last']);
    db.asked.length = 0;
    await rows.read('a', ['first', 'second']);
    expect(db.asked).toEqual([['second']]);
  });
});
