import { Collection, createProject, Item, Page, Project } from '../support/harness';
import { expectValidation } from '../support/shapes';

/**
 * Responses stay bounded whatever was upserted: a collection declares or infers at most 100 metadata fields (every
 * item embeds its collection with them), and an item lists its newest 20 upserts.
 */
const LIMIT = 100;
const keys = (n: number, prefix = 'k', from = 0) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`${prefix}${from + i}`, i]));

describe('bounded responses', () => {
  let p: Project;
  beforeAll(async () => {
    p = await createProject();
  });

  it('refuses an upsert whose items would give a collection more than 100 fields, naming the first beyond', async () => {
    const r = await p.upsert([{ id: 'wide', data: { text: 'wide' }, metadata: keys(2000) }], { slug: 'wide' });
    expectValidation(r, ['items.0.metadata.k100']);
    expect(r.body.message).toBe('The items.0.metadata.k100 field is one more metadata field than a collection may declare or infer (100).');
    const spread = await p.upsert(
      [
        { id: 'a', data: { text: 'a' }, metadata: keys(60) },
        { id: 'b', data: { text: 'b' }, metadata: keys(60, 'k', 60) },
      ],
      { slug: 'wide' },
    );
    expectValidation(spread, ['items.1.metadata.k100']);
    expect((await p.get<Page<Collection>>('/collections?slug=wide')).body.data).toEqual([]);
  });

  it('counts the fields the collection has already, and only new ones', async () => {
    await p.upsertAndWait([{ id: 'first', data: { text: 'first' }, metadata: keys(60) }], { slug: 'growing' });
    expectValidation(await p.upsert([{ id: 'second', data: { text: 'second' }, metadata: keys(41, 'n') }], { slug: 'growing' }), ['items.0.metadata.n40']);
    const fits = await p.upsertAndWait([{ id: 'second', data: { text: 'second' }, metadata: { ...keys(60), ...keys(40, 'n') } }], { slug: 'growing' });
    expect(fits.status).toBe('completed');
    const [collection] = (await p.get<Page<Collection>>('/collections?slug=growing')).body.data;
    expect(collection.metadata).toHaveLength(LIMIT);
    // Full: an existing field is fine, a new one is not, whatever its item.
    expect((await p.upsert([{ id: 'third', data: { text: 'third' }, metadata: { k1: 5 } }], { slug: 'growing' })).status).toBe(201);
    expectValidation(await p.upsert([{ id: 'third', data: { text: 'third' }, metadata: { k1: 5, extra: 'x' } }], { slug: 'growing' }), ['items.0.metadata.extra']);
  });

  it('counts declared fields with inferred ones', async () => {
    const declared = Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`d${i}`, { type: 'string' }]));
    expectValidation(await p.upsert([{ id: 'x', data: { text: 'x' } }], { slug: 'declared', metadata: declared }), ['collection.metadata.d100']);
    const some = Object.fromEntries(Array.from({ length: 90 }, (_, i) => [`d${i}`, { type: 'string' }]));
    expectValidation(await p.upsert([{ id: 'x', data: { text: 'x' }, metadata: keys(11) }], { slug: 'declared', metadata: some }), ['items.0.metadata.k10']);
  });

  it('does not count metadata keys that are not fields (objects, mixed arrays)', async () => {
    const nested = Object.fromEntries(Array.from({ length: 150 }, (_, i) => [`o${i}`, { a: i }]));
    const done = await p.upsertAndWait([{ id: 'nested', data: { text: 'nested' }, metadata: { ...nested, mixed: [1, 'a'], kind: 'x' } }], { slug: 'nested' });
    expect(done.status).toBe('completed');
    const [collection] = (await p.get<Page<Collection>>('/collections?slug=nested')).body.data;
    expect(collection.metadata).toEqual([{ name: 'kind', type: 'string' }]);
  });

  it('an item lists its newest 20 upserts, newest first', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 22; i++) ids.push((await p.upsertAndWait([{ id: 'busy', data: { text: `version ${i}` } }], { slug: 'busy' })).id);
    const page = await p.get<Page<Item>>('/items?item_id=busy');
    expect(page.body.data[0].upserts.map((u) => u.id)).toEqual(ids.slice(-20).reverse());
    const one = await p.get<{ data: Item }>(`/items/${page.body.data[0].id}`);
    expect(one.body.data.upserts.map((u) => u.id)).toEqual(ids.slice(-20).reverse());
  }, 120_000);
});
