import { admin, Chat, createProject, eventually, Project, Upsert } from '../support/harness';
import { signatureValid, WebhookReceiver } from '../support/webhook-receiver';

/**
 * Webhooks (admin API, docs/api.md "Webhooks"): endpoints managed through the admin API, events signed and delivered
 * to a real HTTP server of the test, retried after a 500 and after a timeout, in order per endpoint, and an endpoint
 * that keeps failing disabled and enabled again. The shared service runs with short retries (global-setup.ts).
 */
describe('webhooks', () => {
  let receiver: WebhookReceiver;
  beforeEach(async () => {
    receiver = await new WebhookReceiver().start();
  });
  afterEach(() => receiver.close());

  async function endpoint(p: Project, events = ['upsert.completed', 'upsert.failed', 'delete.completed', 'feedback.created']): Promise<{ id: string; secret: string }> {
    const r = await admin('POST', `/admin/projects/${p.id}/webhooks`, { url: receiver.url, events });
    expect(r.status).toBe(201);
    return r.body.data;
  }

  const log = async (p: Project, id: string, q = '') => (await admin('GET', `/admin/projects/${p.id}/webhooks/${id}/deliveries${q}`)).body;

  it('are created with a secret shown once, listed, changed and deleted through the admin API, each change audited', async () => {
    const p = await createProject();
    const created = await admin('POST', `/admin/projects/${p.id}/webhooks`, { url: 'https://hooks.example/askdata', events: ['upsert.completed'] });
    expect(created.status).toBe(201);
    const hook = created.body.data;
    expect(hook).toMatchObject({
      project_id: p.id,
      url: 'https://hooks.example/askdata',
      events: ['upsert.completed'],
      enabled: true,
      disabled_reason: null,
      consecutive_failures: 0,
    });
    expect(hook.secret).toMatch(/^whsec_/);

    const listed = await admin('GET', `/admin/projects/${p.id}/webhooks`);
    expect(listed.status).toBe(200);
    expect(listed.body.data.map((w: { id: string }) => w.id)).toEqual([hook.id]);
    expect(JSON.stringify(listed.body)).not.toContain(hook.secret);
    expect((await admin('GET', `/admin/projects/${p.id}/webhooks/${hook.id}`)).body.data).not.toHaveProperty('secret');

    const changed = await admin('PATCH', `/admin/projects/${p.id}/webhooks/${hook.id}`, { events: ['upsert.completed', 'feedback.created'], enabled: false });
    expect(changed.status).toBe(200);
    expect(changed.body.data).toMatchObject({ events: ['upsert.completed', 'feedback.created'], enabled: false, disabled_reason: 'Disabled through the admin API.' });
    expect((await admin('PATCH', `/admin/projects/${p.id}/webhooks/${hook.id}`, { enabled: true })).body.data).toMatchObject({ enabled: true, disabled_reason: null });

    expect((await admin('DELETE', `/admin/projects/${p.id}/webhooks/${hook.id}`)).status).toBe(204);
    expect((await admin('GET', `/admin/projects/${p.id}/webhooks/${hook.id}`)).status).toBe(404);
    const audit = await admin('GET', `/admin/audit?project=${p.id}`);
    expect(audit.body.data.map((e: { action: string }) => e.action).slice(0, 4)).toEqual(['webhook.deleted', 'webhook.updated', 'webhook.updated', 'webhook.created']);
    expect(JSON.stringify(audit.body)).not.toContain(hook.secret);
  });

  it('refuse a bad endpoint with 422 naming the field, and unknown projects and endpoints with 404', async () => {
    const p = await createProject();
    const bad: Array<[unknown, string]> = [
      [{ url: 'ftp://hooks.example/x', events: ['upsert.completed'] }, 'url'],
      [{ url: 'not a url', events: ['upsert.completed'] }, 'url'],
      [{ url: 'https://user:pw@hooks.example/x', events: ['upsert.completed'] }, 'url'],
      [{ url: `https://hooks.example/${'x'.repeat(2100)}`, events: ['upsert.completed'] }, 'url'],
      [{ events: ['upsert.completed'] }, 'url'],
      [{ url: 'https://hooks.example/x', events: [] }, 'events'],
      [{ url: 'https://hooks.example/x', events: ['item.created'] }, 'events'],
      [{ url: 'https://hooks.example/x', events: ['upsert.completed', 'upsert.completed'] }, 'events'],
      [{ url: 'https://hooks.example/x', events: ['upsert.completed'], secret: 'mine' }, 'secret'],
    ];
    for (const [body, field] of bad) {
      const r = await admin('POST', `/admin/projects/${p.id}/webhooks`, body);
      expect({ body, status: r.status, fields: Object.keys(r.body.errors ?? {}) }).toEqual({ body, status: 422, fields: [field] });
    }
    expect((await admin('POST', '/admin/projects/00000000-0000-7000-8000-000000000000/webhooks', { url: 'https://h.example', events: ['upsert.completed'] })).status).toBe(404);
    expect((await admin('GET', `/admin/projects/${p.id}/webhooks/nope/deliveries`)).status).toBe(404);
    expect((await admin('GET', `/admin/projects/${p.id}/webhooks`)).body.data).toEqual([]);
    expect((await admin('GET', `/admin/projects/${p.id}/webhooks`, undefined, 'wrong')).status).toBe(401);
  });

  it('deliver signed events carrying the resource as the API shows it: upserts, deletes and feedback', async () => {
    const p = await createProject();
    const { id, secret } = await endpoint(p);
    const done = await p.upsertAndWait([{ id: 'heron', data: { title: 'Heron', text: 'The grey heron fishes in shallow water.' } }]);
    const [first] = await receiver.until((r) => r.length >= 1);
    expect(signatureValid(secret, first.headers['askdata-signature'], first.raw)).toBe(true);
    expect(signatureValid('whsec_wrong', first.headers['askdata-signature'], first.raw)).toBe(false);
    expect(first.headers['askdata-event-id']).toBe(first.body.id);
    expect(first.body).toMatchObject({ type: 'upsert.completed', project: p.id, resource: 'upsert' });
    expect(first.body.data).toEqual((await p.get<{ data: Upsert }>(`/upserts/${done.id}`)).body.data);

    const item = await p.item('heron');
    const deleted = await p.deleteAndWait(`/items/${item.id}`);
    const chat = (await p.post<{ data: Chat }>('/chats', { text: 'Where does the heron fish?' })).body.data;
    const feedback = await p.post<{ data: Chat }>(`/chats/${chat.id}/feedback`, { feedback: 'positive' });
    expect(feedback.status).toBe(201);
    const all = await receiver.until((r) => r.length >= 3);
    expect(all.map((r) => r.body.type)).toEqual(['upsert.completed', 'delete.completed', 'feedback.created']);
    expect(all[1].body.data).toEqual(deleted);
    expect(all[1].body.data).toMatchObject({ kind: 'delete', items_count: 1 });
    expect(all[2].body).toMatchObject({ resource: 'chat', data: feedback.body.data });
    expect(all.every((r) => signatureValid(secret, r.headers['askdata-signature'], r.raw))).toBe(true);

    // The receiver has the event before the sender has recorded its answer.
    const deliveries = await eventually('the feedback delivery recorded', async () => {
      const page = await log(p, id);
      return page.data[0]?.status === 'delivered' ? page : undefined;
    });
    expect(deliveries.meta.total).toBe(3);
    expect(deliveries.data[0]).toMatchObject({ event: 'feedback.created', status: 'delivered', attempts: 1, last_status_code: 200, last_error: null, next_attempt_at: null });
    expect(deliveries.data.map((d: { event_id: string }) => d.event_id)).toEqual(all.map((r) => r.body.id).reverse());
    expect((await log(p, id, '?per_page=1&page=2')).data.map((d: { event: string }) => d.event)).toEqual(['delete.completed']);
    expect((await admin('GET', `/admin/projects/${p.id}/webhooks/${id}/deliveries?status=lost`)).status).toBe(422);
  });

  it('retry after a 500 and after no answer in time, holding later events of the endpoint back meanwhile', async () => {
    const p = await createProject();
    const { id } = await endpoint(p, ['upsert.completed']);
    // The first event: two 500s, then no answer within WEBHOOK_TIMEOUT_MS, then 200.
    let attempts = 0;
    receiver.answer = (r) => (r.body.data.items_count !== 1 ? 200 : ++attempts <= 2 ? 500 : attempts === 3 ? 'hang' : 200);
    const a = await p.upsertAndWait([{ id: 'a', data: { text: 'first' } }]);
    const b = await p.upsertAndWait([
      { id: 'b1', data: { text: 'second' } },
      { id: 'b2', data: { text: 'second' } },
    ]);
    const c = await p.upsertAndWait([
      { id: 'c1', data: { text: 'third' } },
      { id: 'c2', data: { text: 'third' } },
      { id: 'c3', data: { text: 'third' } },
    ]);
    await receiver.until((r) => r.filter((x) => x.answer === 200).length >= 3);
    expect(receiver.received.map((r) => [r.body.data.id, r.answer])).toEqual([
      [a.id, 500],
      [a.id, 500],
      [a.id, 'hang'],
      [a.id, 200],
      [b.id, 200],
      [c.id, 200],
    ]);
    // The same event each time.
    expect(new Set(receiver.received.slice(0, 4).map((r) => r.body.id)).size).toBe(1);
    const first = (await log(p, id)).data.find((d: { event_id: string }) => d.event_id === receiver.received[0].body.id);
    expect(first).toMatchObject({ status: 'delivered', attempts: 4, last_status_code: 200 });
    expect((await admin('GET', `/admin/projects/${p.id}/webhooks/${id}`)).body.data).toMatchObject({ enabled: true, consecutive_failures: 0 });
  });

  it('disable an endpoint that keeps failing, with the reason, and deliver what waited once it is enabled again', async () => {
    const p = await createProject();
    const { id } = await endpoint(p, ['upsert.completed']);
    receiver.answer = () => 503;
    await p.upsertAndWait([{ id: 'x', data: { text: 'x' } }]);
    const deadline = Date.now() + 30000;
    let hook = (await admin('GET', `/admin/projects/${p.id}/webhooks/${id}`)).body.data;
    while (hook.enabled) {
      if (Date.now() > deadline) throw new Error(`not disabled: ${JSON.stringify(hook)}`);
      await new Promise((r) => setTimeout(r, 200));
      hook = (await admin('GET', `/admin/projects/${p.id}/webhooks/${id}`)).body.data;
    }
    expect(hook.disabled_reason).toBe('Disabled after 6 failed attempts in a row (the last: HTTP 503).');
    expect(receiver.received).toHaveLength(6);
    const pending = (await log(p, id, '?status=pending')).data;
    expect(pending).toHaveLength(1);
    expect(pending[0]).toMatchObject({ attempts: 6, last_status_code: 503, last_error: 'HTTP 503' });

    receiver.answer = () => 200;
    expect((await admin('PATCH', `/admin/projects/${p.id}/webhooks/${id}`, { enabled: true })).body.data).toMatchObject({
      enabled: true,
      disabled_reason: null,
      consecutive_failures: 0,
    });
    await receiver.until((r) => r.some((x) => x.answer === 200));
    expect(receiver.delivered()).toHaveLength(1);
  });
});
