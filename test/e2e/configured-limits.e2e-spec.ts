import { createProjectOn, Item, Page, Project, RunningService, sharedService, startDedicatedGateway } from '../support/harness';
import { expectValidation } from '../support/shapes';

/**
 * The limits of decisions.md are configurable: a gateway started with another PER_PAGE_MAX takes pages up to that
 * size, larger or smaller than the default 100, and its default page is never larger than the limit.
 */
describe.each([
  ['larger', 150],
  ['smaller', 10],
])('a gateway with a %s PER_PAGE_MAX (%d)', (_label, max) => {
  let gw: RunningService | undefined;
  let p: Project;

  beforeAll(async () => {
    gw = await startDedicatedGateway(sharedService(), { PER_PAGE_MAX: String(max) });
    p = await createProjectOn(gw);
    await p.upsertAndWait(Array.from({ length: 12 }, (_, i) => ({ id: `doc-${i}`, data: { text: `Document number ${i}.` } })));
  }, 240_000);

  afterAll(async () => {
    await gw?.stop();
  }, 60_000);

  it('takes per_page up to the limit and refuses one more with 422', async () => {
    const full = await p.get<Page<Item>>(`/items?per_page=${max}`);
    expect(full.status).toBe(200);
    expect(full.body.meta.per_page).toBe(max);
    expect(full.body.data).toHaveLength(Math.min(max, 12));
    const over = await p.get(`/items?per_page=${max + 1}`);
    expectValidation(over, ['per_page']);
    expect(over.body.message).toBe(`The per_page field must not be greater than ${max}.`);
  });

  it('pages by 15, or by the limit when it is smaller, when per_page is not given', async () => {
    const r = await p.get<Page<Item>>('/items');
    expect(r.status).toBe(200);
    expect(r.body.meta.per_page).toBe(Math.min(15, max));
    expect(r.body.data).toHaveLength(Math.min(15, max, 12));
  });
});
