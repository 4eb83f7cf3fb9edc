import type { DataSource } from 'typeorm';
import { ChunkRow, ChunkRows, rowBytes } from './chunk-rows';

describe('ChunkRows', () => {
  const MB = 1024 * 1024;
  const row = (key: string, id: string, chars = 10): ChunkRow => ({
    id,
    project_id: key,
    item_id: `item-${id.padStart(4, '0')}`,
    client_item_id: id,
    collection: 'c',
    tenant: null,
    url: null,
    metadata: {},
    text: 'x'.repeat(chars),
    language: 'en',
    n: 0,
  });

  /** A database that answers every chunk asked for by number, an index of `size` chunks of `chars` characters read ahead, and counts what it was asked. */
  function database(size = 0, chars = 10) {
    const asked: string[][] = [];
    let pages = 0;
    const query = ({ text, values }: { text: string; values: unknown[] }) => {
      const [key] = values as [string];
      if (text.includes('id = ANY')) {
        const ids = values[1] as string[];
        asked.push(ids);
        return Promise.resolve({ rows: ids.map((id) => row(key, id, chars)) });
      }
      if (text.includes('retrieval.stats')) return Promise.resolve({ rows: [{ chunk_count: size }] });
      // A page of the read ahead: the rows after the cursor (item, then number).
      pages++;
      const [, item, id, limit] = values as [string, string, string, number];
      const rows = Array.from({ length: size }, (_, i) => row(key, String(i), chars)).filter((r) => r.item_id > item || (r.item_id === item && Number(r.id) > Number(id)));
      return Promise.resolve({ rows: rows.slice(0, limit) });
    };
    return { ds: { driver: { master: { query } } } as unknown as DataSource, asked, pages: () => pages };
  }

  it('reads only the chunks it has not kept, and never gives one key the row of another', async () => {
    const db = database();
    const rows = new ChunkRows(db.ds, MB);
    expect([...(await rows.read('a', ['1', '2'])).keys()]).toEqual(['1', '2']);
    expect((await rows.read('a', ['2', '3'])).get('2')?.text).toBe('x'.repeat(10));
    expect(db.asked).toEqual([['1', '2'], ['3']]);
    await rows.read('b', ['1']);
    expect(db.asked[2]).toEqual(['1']);
  });

  it('keeps rows within its budget of bytes, letting the least recently found go first', async () => {
    const db = database(0, 1000);
    const one = rowBytes(row('a', '1', 1000));
    const rows = new ChunkRows(db.ds, one * 9.5); // nine rows
    await rows.read('a', ['first', 'second']);
    await rows.read(
      'a',
      Array.from({ length: 7 }, (_, i) => `n${i}`),
    );
    await rows.read('a', ['first']);
    await rows.read('a', ['last']);
    db.asked.length = 0;
    await rows.read('a', ['first', 'second', 'n6']);
    expect(db.asked).toEqual([['second']]);
  });

  it("keeps a row's pieces with it, counted in its budget", async () => {
    const db = database(0, 1000);
    const rows = new ChunkRows(db.ds, rowBytes(row('a', '1', 1000)) * 4);
    const read = await rows.read('a', ['1', '2', '3']);
    const pieces = rows.pieces(read.get('1')!);
    expect(rows.pieces(read.get('1')!)).toBe(pieces);
    // A row not kept is cut anew each time.
    const other = row('a', '9', 1000);
    expect(rows.pieces(other)).not.toBe(rows.pieces(other));
    // Four rows fill the budget exactly, but the pieces took room too: the least recently found goes.
    await rows.read('a', ['4']);
    db.asked.length = 0;
    await rows.read('a', ['2', '3', '4', '1']);
    expect(db.asked).toEqual([['1']]);
  });

  it('counts text beyond Latin-1 at two bytes a character', () => {
    expect(rowBytes({ ...row('a', '1'), text: '漢'.repeat(100) }) - rowBytes({ ...row('a', '1'), text: 'e'.repeat(100) })).toBe(100);
  });

  it('reads a small index ahead whole, once, so that its hits need no statement', async () => {
    const db = database(1200);
    const rows = new ChunkRows(db.ds, 4 * MB);
    await rows.readAhead('a');
    await rows.readAhead('a');
    expect(db.pages()).toBe(3); // pages of 1,000 and 200 rows, and the empty one after them
    const found = await rows.read('a', ['0', '599', '1199']);
    expect([...found.keys()]).toEqual(['0', '599', '1199']);
    expect(db.asked).toEqual([]);
    // Their texts were cut for snippets as they were read: the same pieces every time.
    const row = found.get('599')!;
    expect(rows.pieces(row)).toBe(rows.pieces(row));
    expect(rows.pieces(row).origins.length).toBe(1);
    // Another key's rows are not those.
    await rows.read('b', ['0']);
    expect(db.asked).toEqual([['0']]);
  });

  it('lets a dropped index go, and reads it ahead again when it is written anew', async () => {
    const db = database(10);
    const rows = new ChunkRows(db.ds, 4 * MB);
    await rows.readAhead('a');
    await rows.read('b', ['x']);
    rows.forget('a');
    await rows.read('a', ['1']);
    await rows.read('b', ['x']);
    expect(db.asked).toEqual([['x'], ['1']]);
    const pages = db.pages();
    await rows.readAhead('a');
    expect(db.pages()).toBe(pages + 2);
  });

  it('keeps no row read before its index was dropped', async () => {
    const db = database();
    const rows = new ChunkRows(db.ds, 4 * MB);
    const reading = rows.read('a', ['1']);
    rows.forget('a');
    expect((await reading).get('1')?.id).toBe('1');
    db.asked.length = 0;
    await rows.read('a', ['1']);
    expect(db.asked).toEqual([['1']]);
  });

  it('reads none of an index whose rows would take more than half its budget', async () => {
    const db = database(1200, 1000);
    const rows = new ChunkRows(db.ds, rowBytes(row('a', '1', 1000)) * 2000);
    await rows.readAhead('a');
    expect(db.pages()).toBe(1);
    await rows.read('a', ['0']);
    expect(db.asked).toEqual([['0']]);
  });
});
