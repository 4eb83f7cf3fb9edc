import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ANALYZER_VERSION } from '../../libs/common/src/text/analyzer';
import { admin, createProject, Project, ROOT, SearchHit, sharedService } from '../support/harness';

/** A product sheet whose rare words and title name it alone. */
function sheet(i: number, note = `Part ${i} is stocked in aisle ${i % 40}.`): { id: string; data: { title: string; text: string } } {
  return { id: `part-${i}`, data: { title: `Part ${i} sheet`, text: `Product ${i} code zq${i}x. ${note}` } };
}

const ITEMS = 600;
const run = promisify(execFile);
const CLI = join(ROOT, 'dist', 'launcher', 'src', 'admin.js');

async function status(p: Project): Promise<any> {
  const r = await admin('GET', `/admin/projects/${p.id}/reindex`);
  expect(r.status).toBe(200);
  return r.body.data;
}

async function firstHit(p: Project, text: string): Promise<SearchHit | undefined> {
  const r = await p.post<{ data: SearchHit[] }>('/search', { text });
  expect({ text, status: r.status }).toEqual({ text, status: 200 });
  return r.body.data[0];
}

describe('index rebuilds', () => {
  let p: Project;
  beforeAll(async () => {
    p = await createProject();
    for (let i = 0; i < ITEMS; i += 200) await p.upsertAndWait(Array.from({ length: 200 }, (_, j) => sheet(i + j)));
  }, 120_000);

  it('reports the index a project has and that no rebuild ran', async () => {
    expect(await status(p)).toMatchObject({ project_id: p.id, index: { backend: 'postgres', analyzer: ANALYZER_VERSION }, status: 'none', chunks_done: 0 });
  });

  it('rebuilds while questions are asked: every question is answered from a full index, and writes made meanwhile are in the new one', async () => {
    const started = await admin('POST', `/admin/projects/${p.id}/reindex`);
    expect(started.status).toBe(202);
    expect(started.body.data).toMatchObject({ status: 'building', reason: 'requested', target: { backend: 'postgres', analyzer: ANALYZER_VERSION } });
    // Writes during the rebuild: a changed item and a new one.
    const changed = await p.upsert([sheet(7, 'Part 7 moved to the cold room.'), { id: 'late', data: { title: 'Late arrival', text: 'The quokka figurine came late.' } }]);
    expect(changed.status).toBe(201);
    let asked = 0;
    let seenBuilding = 0;
    for (let i = 0; ; i++) {
      const n = (i * 37) % ITEMS;
      const hit = await firstHit(p, `zq${n}x`);
      expect({ question: n, first: hit?.item_id }).toEqual({ question: n, first: `part-${n}` });
      const answer = await p.post<{ data: { sources: Array<{ item_id: string }> } }>('/query', { text: `Where is product zq${n}x stocked?` });
      expect({ question: n, status: answer.status, first: answer.body.data?.sources?.[0]?.item_id }).toEqual({ question: n, status: 201, first: `part-${n}` });
      asked++;
      const now = await status(p);
      if (now.status === 'building') {
        seenBuilding++;
        expect(now.chunks_done).toBeLessThanOrEqual(now.chunks_total);
        continue;
      }
      expect(now).toMatchObject({ status: 'completed', index: { backend: 'postgres', analyzer: ANALYZER_VERSION }, chunks_total: now.chunks_done, error: null });
      expect(now.chunks_total).toBeGreaterThanOrEqual(ITEMS);
      expect(now.finished_at).toEqual(expect.any(String));
      break;
    }
    expect(asked).toBeGreaterThan(0);
    expect(seenBuilding).toBeGreaterThan(0);
    await p.waitForUpsert(changed.body.data.id);
    expect((await firstHit(p, 'cold room'))?.item_id).toBe('part-7');
    expect((await firstHit(p, 'quokka'))?.item_id).toBe('late');
    expect(await firstHit(p, 'stocked aisle 7 part 7')).toBeDefined();
  }, 120_000);

  it('is started and followed from the command line', async () => {
    const s = sharedService();
    const { stdout } = await run(process.execPath, [CLI, '--url', s.adminUrl, '--token', s.adminToken, '--json', 'projects', 'reindex', p.id, '--wait'], { env: {} });
    expect(JSON.parse(stdout).data).toMatchObject({ project_id: p.id, status: 'completed', index: { backend: 'postgres', analyzer: ANALYZER_VERSION } });
    expect((await firstHit(p, 'zq123x'))?.item_id).toBe('part-123');
  }, 120_000);

  it('rebuilds a project with nothing indexed, and answers 404 for a project that does not exist', async () => {
    const empty = await createProject();
    expect((await admin('POST', `/admin/projects/${empty.id}/reindex`)).status).toBe(202);
    for (;;) {
      const now = await status(empty);
      if (now.status === 'building') {
        await new Promise((r) => setTimeout(r, 100));
        continue;
      }
      expect(now).toMatchObject({ status: 'completed', chunks_total: 0 });
      break;
    }
    for (const id of ['00000000-0000-4000-8000-000000000000', 'not-a-uuid']) {
      const r = await admin('POST', `/admin/projects/${id}/reindex`);
      expect({ id, status: r.status }).toEqual({ id, status: 404 });
      expect((await admin('GET', `/admin/projects/${id}/reindex`)).status).toBe(404);
    }
    expect((await admin('GET', `/admin/projects/${empty.id}/reindex`, undefined, 'wrong-token')).status).toBe(401);
  }, 60_000);
});
