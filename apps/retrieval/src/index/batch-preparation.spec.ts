import { ChunkInput } from '@askdata/contracts';
import { isGram, termFrequencies } from '@askdata/common/text/analyzer';
import * as pg from 'pg';
import { arrayLiteral, chunkNumber, prepareBatch } from './batch-preparation';
import { IMPACT_BITS, unpackForward } from './forward-entries';

const item = (n: number, chunks: string[], tenant: number | null = null): ChunkInput => ({
  itemId: `00000000-0000-4000-8000-0000000000${String(n).padStart(2, '0')}`,
  clientItemId: `doc-${n}`,
  collection: 'default',
  tenant,
  url: null,
  metadata: { n },
  title: '',
  chunks,
});
const bm25 = { k1: 0.9, b: 0.4, avgLength: 100 };

/** How `pg` sends a parameter (its `utils` are not in its type declarations). */
const prepareValue = (pg as unknown as { utils: { prepareValue(value: unknown): string } }).utils.prepareValue;

/** The elements of a one-dimensional array literal, as PostgreSQL reads them. */
function elements(literal: string): string[] {
  return [...literal.slice(1, -1).matchAll(/"((?:[^"\\]|\\.)*)"|([^,]+)/g)].map(([, quoted, bare]) => (quoted ?? bare).replace(/\\(.)/g, '$1'));
}

interface Row {
  id: string;
  block: string;
  item_id: string;
  n: number;
  text: string;
  length: number;
  terms: Record<string, number>;
}

/** The batch's chunk rows, each forward index read back (`forward`, packed) as term -> entry. */
function rowsOf(chunks: string): Row[] {
  return (JSON.parse(chunks) as Array<Omit<Row, 'terms'> & { forward: string }>).map(({ forward, ...row }) => {
    const { names, entries } = unpackForward(Buffer.from(forward, 'base64'));
    return { ...row, terms: Object.fromEntries(names.map((name, k) => [name, entries[k]])) };
  });
}

describe('prepareBatch', () => {
  const items = [
    item(1, ['Zebras graze; a zebra runs. Café au lait in Zürich, 2024.', 'Second passage about zebras and coffee.']),
    item(2, ['Coffee is brewed from roasted beans; the café serves coffee all day.'], 7),
  ];

  it('writes each chunk once, numbered in its block, with its terms, frequencies and length', async () => {
    const { batch, chunks, length } = await prepareBatch(items, { block: '5', chunkCount: 0, totalLength: 0 }, bm25);
    const rows = rowsOf(batch!.chunks);
    expect(chunks).toBe(3);
    expect(rows.map((r) => [r.id, r.block, r.item_id, r.n])).toEqual([
      [chunkNumber('5', 0), '5', items[0].itemId, 0],
      [chunkNumber('5', 1), '5', items[0].itemId, 1],
      [chunkNumber('5', 2), '5', items[1].itemId, 0],
    ]);
    const texts = [...items[0].chunks, ...items[1].chunks];
    rows.forEach((row, i) => {
      const tf = termFrequencies(texts[i]);
      expect(Object.fromEntries(Object.entries(row.terms).map(([t, e]) => [t, Math.floor(e / 2 ** IMPACT_BITS)]))).toEqual(Object.fromEntries(tf));
      expect(row.length).toBe([...tf.values()].reduce((s, f) => s + f, 0));
    });
    expect(length).toBe(rows.reduce((s, r) => s + r.length, 0));
  });

  it("holds a Russian chunk's words and their runs of characters, its length counting the words alone", async () => {
    const russian = { ...item(3, ['Книгами полна библиотека.']), language: 'ru' };
    const { batch, length } = await prepareBatch([russian], { block: '6', chunkCount: 0, totalLength: 0 }, bm25);
    const [row] = rowsOf(batch!.chunks);
    const terms = Object.keys(row.terms);
    expect(terms.filter((t) => !isGram(t)).sort()).toEqual(['библиотек', 'книг', 'полн']);
    expect(terms).toEqual(expect.arrayContaining(['#книг', '#библ', '#ами_']));
    expect([row.length, length]).toEqual([3, 3]);
  });

  it("posts every (term, chunk) once, each block counting its postings, so a term's blocks sum to the chunks holding it", async () => {
    const { batch } = await prepareBatch(items, { block: '5', chunkCount: 0, totalLength: 0 }, bm25);
    const rows = rowsOf(batch!.chunks);
    const [terms, ids, counts] = [elements(batch!.blocks[0]), elements(batch!.blocks[3]), elements(batch!.blocks[6]).map(Number)];
    const blockIds = ids.map((list) => list.slice(1, -1).split(','));
    expect(counts).toEqual(blockIds.map((list) => list.length));
    const posted = terms.flatMap((t, i) => blockIds[i].map((id) => `${t} ${id}`));
    expect(posted.sort()).toEqual(rows.flatMap((r) => Object.keys(r.terms).map((t) => `${t} ${r.id}`)).sort());
    expect(batch!.postings).toBe(posted.length);
    const df = new Map<string, number>();
    terms.forEach((t, i) => df.set(t, (df.get(t) ?? 0) + counts[i]));
    for (const term of new Set(rows.flatMap((r) => Object.keys(r.terms)))) {
      expect([term, df.get(term)]).toEqual([term, rows.filter((r) => term in r.terms).length]);
    }
  });

  it("gives a term a block per band and collection, best impact first, with its chunks' tenants beside them", async () => {
    const coffee = (n: number, text: string, collection: string, tenant: number | null) => ({ ...item(n, [text], tenant), collection });
    const batchItems = [
      coffee(10, 'Coffee.', 'default', 3),
      coffee(11, 'Coffee and tea and milk and sugar and cups and saucers and spoons.', 'default', null),
      coffee(12, 'Coffee coffee coffee.', 'recipes', 4),
      coffee(13, 'Coffee.', 'default', 5),
      coffee(14, 'Coffee, coffee.', 'default', null),
    ];
    const { batch } = await prepareBatch(batchItems, { block: '9', chunkCount: 0, totalLength: 0 }, bm25);
    const rows = rowsOf(batch!.chunks);
    const columns = batch!.blocks.map(elements);
    const blocks = columns[0]
      .map((term, i) => ({
        term,
        key: `${columns[1][i]} ${columns[2][i]}`,
        collection: columns[2][i],
        ids: columns[3][i].slice(1, -1).split(','),
        impacts: columns[4][i].slice(1, -1).split(',').map(Number),
        tenants: columns[5][i],
      }))
      .filter((b) => b.term === 'coffe');
    const place = (id: string) => rows.findIndex((r) => r.id === id);
    const idOf = (n: number) => rows[n].id;
    const impactOf = (id: string) => rows[place(id)].terms.coffe & (2 ** IMPACT_BITS - 1);
    expect(new Set(blocks.map((b) => b.key)).size).toBe(blocks.length);
    const tenantOf = ['3', 'NULL', '4', '5', 'NULL'];
    for (const b of blocks) {
      expect(b.impacts).toEqual(b.ids.map(impactOf));
      // Best impact first, the earlier chunk first among equals.
      const sorted = [...b.ids].sort((x, y) => impactOf(y) - impactOf(x) || place(x) - place(y));
      expect(b.ids).toEqual(sorted);
      expect(b.ids.every((id) => batchItems[place(id)].collection === b.collection)).toBe(true);
      // A block whose chunks have no tenant holds an empty array (unnest pads it with NULLs).
      const tenants = b.ids.map((id) => tenantOf[place(id)]);
      expect(b.tenants).toBe(tenants.every((t) => t === 'NULL') ? '{}' : `{${tenants.join(',')}}`);
    }
    const of = (collection: string) => blocks.filter((b) => b.collection === collection).flatMap((b) => b.ids);
    expect(of('default').sort()).toEqual([idOf(0), idOf(1), idOf(3), idOf(4)].sort());
    expect(of('recipes')).toEqual([idOf(2)]);
    // Equal impacts share a block, in the order of their chunks.
    const same = blocks.find((b) => b.ids.includes(idOf(0)))!;
    expect(same.ids.indexOf(idOf(0))).toBe(same.ids.indexOf(idOf(3)) - 1);
    // Without tenants at all, every block's is empty.
    const single = await prepareBatch([coffee(15, 'Coffee.', 'default', null)], { block: '10', chunkCount: 0, totalLength: 0 }, bm25);
    expect(elements(single.batch!.blocks[5])).toEqual(elements(single.batch!.blocks[0]).map(() => '{}'));
  });

  it("lists each chunk's terms once, in the batch's order: shorter first in UTF-8 bytes, then bytewise", async () => {
    const { batch } = await prepareBatch(items, { block: '5', chunkCount: 0, totalLength: 0 }, bm25);
    for (const { forward } of JSON.parse(batch!.chunks) as Array<{ forward: string }>) {
      const { names } = unpackForward(Buffer.from(forward, 'base64'));
      const order = [...names].sort((a, b) => Buffer.byteLength(a) - Buffer.byteLength(b) || Buffer.compare(Buffer.from(a), Buffer.from(b)));
      expect(names.length).toBeGreaterThan(2);
      expect(new Set(names).size).toBe(names.length);
      expect(names).toEqual(order);
    }
  });

  it('writes each column as the array literal pg would send for it, quotes and backslashes escaped', () => {
    const values = ['plain', 'a "quoted" word', 'back\\slash', '{1,2}', 'comma, space', 'ünï'];
    expect(arrayLiteral(values)).toBe(prepareValue(values));
    expect(elements(arrayLiteral(values))).toEqual(values);
    expect(arrayLiteral([3, 10])).toBe('{3,10}');
    expect(arrayLiteral([])).toBe(prepareValue([]));
  });
});
