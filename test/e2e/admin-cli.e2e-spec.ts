import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { http, ROOT, sharedService } from '../support/harness';

/** The admin command-line tool, run as an operator would, against the running service. */
const run = promisify(execFile);
const CLI = join(ROOT, 'dist', 'launcher', 'src', 'admin.js');

async function cli(...args: string[]): Promise<any> {
  const s = sharedService();
  const { stdout } = await run(process.execPath, [CLI, '--url', s.adminUrl, '--token', s.adminToken, '--json', ...args], { env: {} });
  return JSON.parse(stdout);
}

describe('askdata-admin', () => {
  it('creates a project and a key, lists them, and revokes the key', async () => {
    const project = (await cli('projects', 'create', '--name', 'cli project', '--tenancy', 'multi')).data;
    expect(project).toMatchObject({ name: 'cli project', tenancy: 'multi' });
    expect((await cli('projects', 'list')).data.map((p: { id: string }) => p.id)).toContain(project.id);
    const key = (await cli('keys', 'create', project.id, '--name', 'backend')).data;
    expect(key.key).toMatch(/^ak_/);
    expect((await http('GET', '/v1/items', { key: key.key })).status).toBe(200);
    const keys = (await cli('keys', 'list', project.id)).data;
    expect(keys).toHaveLength(1);
    expect(keys[0]).not.toHaveProperty('key');
    await cli('keys', 'revoke', key.id);
    expect((await http('GET', '/v1/items', { key: key.key })).status).toBe(401);
    expect((await cli('projects', 'update', project.id, '--name', 'renamed')).data.name).toBe('renamed');
  });

  it('creates, lists and revokes a publishable key with its origins', async () => {
    const project = (await cli('projects', 'create', '--name', 'cli widget')).data;
    const key = (await cli('keys', 'create', project.id, '--name', 'widget', '--kind', 'publishable', '--origins', 'https://shop.example, http://localhost:8080')).data;
    expect(key).toMatchObject({ kind: 'publishable', origins: ['https://shop.example', 'http://localhost:8080'] });
    expect(key.key).toMatch(/^pk_/);
    const listed = (await cli('keys', 'list', project.id)).data;
    expect(listed).toEqual([
      { id: key.id, name: 'widget', prefix: key.key.slice(0, 10), kind: 'publishable', origins: key.origins, created_at: key.created_at, last_used_at: null },
    ]);
    const origin = { Origin: 'https://shop.example' };
    expect((await http('POST', '/v1/query', { key: key.key, body: { text: 'hello?' }, headers: origin })).status).toBe(201);
    await cli('keys', 'revoke', key.id);
    expect((await http('POST', '/v1/query', { key: key.key, body: { text: 'hello?' }, headers: origin })).status).toBe(401);
  });

  it("manages a project's webhook endpoints: the secret printed once, updated, disabled and enabled, its deliveries, deleted", async () => {
    const project = (await cli('projects', 'create', '--name', 'hooks')).data;
    const hook = (await cli('webhooks', 'create', project.id, '--endpoint', 'https://hooks.example/in', '--events', 'upsert.completed,feedback.created')).data;
    expect(hook).toMatchObject({ url: 'https://hooks.example/in', events: ['upsert.completed', 'feedback.created'], enabled: true });
    expect(hook.secret).toMatch(/^whsec_/);
    const listed = (await cli('webhooks', 'list', project.id)).data;
    expect(listed.map((h: { id: string }) => h.id)).toEqual([hook.id]);
    expect(listed[0]).not.toHaveProperty('secret');
    expect((await cli('webhooks', 'update', project.id, hook.id, '--disable')).data).toMatchObject({ enabled: false });
    expect((await cli('webhooks', 'update', project.id, hook.id, '--enable', '--events', 'delete.completed')).data).toMatchObject({ enabled: true, events: ['delete.completed'] });
    expect(await cli('webhooks', 'deliveries', project.id, hook.id, '--per-page', '5')).toMatchObject({ data: [], meta: { per_page: 5, total: 0 } });
    await cli('webhooks', 'delete', project.id, hook.id);
    expect((await cli('webhooks', 'list', project.id)).data).toEqual([]);
  });

  it('fails with the API message and a non-zero exit on bad input or a wrong token', async () => {
    const s = sharedService();
    await expect(
      run(process.execPath, [CLI, '--url', s.adminUrl, '--token', s.adminToken, 'projects', 'create', '--name', 'x', '--tenancy', 'many'], { env: {} }),
    ).rejects.toMatchObject({ code: 1, stderr: expect.stringContaining('422') });
    await expect(run(process.execPath, [CLI, '--url', s.adminUrl, '--token', 'wrong', 'projects', 'list'], { env: {} })).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining('401'),
    });
  });
});
