import type { DataSource } from 'typeorm';
import { cut, piecesBytes } from '../analysis/snippet';
import { ChunkRow, ChunkRows, jsonbOrdered, rowBytes } from './chunk-rows';

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

  it('reads ahead as many rows of an index too big for half its budget as fit there, and leaves the rest to searches', async () => {
    const db = database(1200, 1000);
    const one = rowBytes(row('a', '1', 1000)) + piecesBytes(cut('x'.repeat(1000), 'en'));
    const rows = new ChunkRows(db.ds, one * 1000);
    await rows.readAhead('a');
    expect(db.pages()).toBe(1);
    // About the first half of them (rows are read in the order of their items) is kept: their hits need no statement.
    const ids = Array.from({ length: 1200 }, (_, i) => String(i));
    await rows.read('a', ids.slice(0, 490));
    expect(db.asked).toEqual([]);
    await rows.read('a', ids.slice(510));
    expect(db.asked).toEqual([ids.slice(510)]);
    // Not read whole: what is written to it is not kept.
    expect(rows.keepsWrites('a')).toBe(false);
  });

  it('keeps the rows written to an index read ahead whole, up to half its budget, and none once its rows are let go', async () => {
    const db = database(10, 1000);
    const one = rowBytes(row('a', '1', 1000));
    const rows = new ChunkRows(db.ds, one * 40);
    // Not read ahead: nothing written is kept.
    expect(rows.keepsWrites('a')).toBe(false);
    rows.written('a', [row('a', 'w0', 1000)]);
    await rows.readAhead('a');
    expect(rows.keepsWrites('a')).toBe(true);
    rows.written('a', [row('a', 'w1', 1000), row('a', 'w2', 1000)]);
    await rows.read('a', ['w0', 'w1', 'w2']);
    expect(db.asked).toEqual([['w0']]);
    // Ten read ahead, three written: seven more would pass half the budget (20 rows), so none of them is kept.
    rows.written(
      'a',
      Array.from({ length: 8 }, (_, i) => row('a', `x${i}`, 1000)),
    );
    expect(rows.keepsWrites('a')).toBe(false);
    db.asked.length = 0;
    await rows.read('a', ['x0']);
    expect(db.asked).toEqual([['x0']]);

    // Another index read ahead whole stops keeping what is written once any of its rows is let go for room.
    // Four rows and their cut texts fit in half the budget; nine rows more do not fit beside them.
    const small = new ChunkRows(database(4, 1000).ds, (one + piecesBytes(cut('x'.repeat(1000), 'en'))) * 9);
    await small.readAhead('b');
    expect(small.keepsWrites('b')).toBe(true);
    await small.read(
      'c',
      Array.from({ length: 9 }, (_, i) => `c${i}`),
    );
    expect(small.keepsWrites('b')).toBe(false);
  });

  it('lets go of the rows of removed chunks', async () => {
    const db = database();
    const rows = new ChunkRows(db.ds, MB);
    await rows.read('a', ['1', '2']);
    rows.removed(['1', '9']);
    db.asked.length = 0;
    await rows.read('a', ['1', '2']);
    expect(db.asked).toEqual([['1']]);
  });

  it("orders JSON objects' members as jsonb gives them back, keeping every member", () => {
    const value = JSON.parse('{"zeta": 1, "a": {"bb": [1, {"yy": 2, "x": 3}], "a": 2}, "ée": true, "eé": false, "__proto__": "kept"}') as object;
    const ordered = jsonbOrdered(value) as Record<string, unknown>;
    // Shorter names (in UTF-8 bytes) first, then bytewise: "a", "zeta", "__proto__" ("ée" and "eé" are 3 bytes).
    expect(JSON.stringify(ordered)).toBe('{"a":{"a":2,"bb":[1,{"x":3,"yy":2}]},"eé":false,"ée":true,"zeta":1,"__proto__":"kept"}');
    expect(Object.getPrototypeOf(ordered)).toBe(Object.prototype);
  });
});
