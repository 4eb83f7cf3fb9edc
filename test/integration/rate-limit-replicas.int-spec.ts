import { Api, Running } from '../../bench/lib/service';
import { sleep, twoGateways } from './support/faults';

/**
 * The rate limit is per key, not per gateway: with two gateways, requests through either count against the key's
 * one limit (the gateways tell each other what they admitted every RATE_LIMIT_SYNC_MS).
 */
jest.setTimeout(120000);

const LIMIT = 20;

describe('the rate limit across two gateways', () => {
  let deployment: Awaited<ReturnType<typeof twoGateways>>;
  let service: Running;
  let b: string;

  beforeAll(async () => {
    deployment = await twoGateways({ RATE_LIMIT_PER_MINUTE: String(LIMIT), RATE_LIMIT_SYNC_MS: '100' });
    ({ service, second: b } = deployment);
  });
  afterAll(() => deployment?.stop());

  const get = async (gateway: string, key: string) => {
    const res = await fetch(`${gateway}/v1/collections`, { headers: { 'Api-Key': key } });
    return { status: res.status, remaining: Number(res.headers.get('x-ratelimit-remaining')), retryAfter: res.headers.get('retry-after') };
  };

  it('counts requests through either gateway against the one limit of the key', async () => {
    const { key } = await Api.withProject(service);
    const half = LIMIT / 2;
    for (let i = 0; i < half; i++) expect((await get(service.url, key)).status).toBe(200);
    await sleep(500);
    // The second gateway already knows of the first one's requests.
    const first = await get(b, key);
    expect(first.status).toBe(200);
    expect(first.remaining).toBeLessThanOrEqual(half);
    for (let i = 1; i < half; i++) expect((await get(b, key)).status).toBe(200);
    await sleep(500);
    // The key's minute is used up on both gateways (a request or two may have refilled since).
    const statuses = [];
    for (let i = 0; i < 6; i++) statuses.push((await get(service.url, key)).status, (await get(b, key)).status);
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(10);
    const refused = await get(b, key);
    expect(refused.status).toBe(429);
    expect(Number(refused.retryAfter)).toBeGreaterThanOrEqual(1);
  });

  it('leaves the other keys alone', async () => {
    const { key } = await Api.withProject(service);
    expect((await get(service.url, key)).status).toBe(200);
    expect((await get(b, key)).status).toBe(200);
  });
});
