import { ANALYZER_VERSION, ENGLISH_TERMS_SINCE, loadConfig } from '@askdata/common';
import { randomUUID } from 'node:crypto';
import { embeddedDatabaseForTests } from '../../../../test/support/embedded-database';
import { retrievalSettings } from '../retrieval.config';
import { retrievalDatabase } from '../retrieval.database';
import { ProjectIndexes } from './project-indexes';

/**
 * Which indexes an older analyzer wrote are rebuilt: those whose terms this analyzer would change. An index kept as it
 * stands (English chunks only, written since ENGLISH_TERMS_SINCE) is never listed as due, even when an older replica
 * wrote it after the last look for such indexes (during a rolling upgrade): it is kept at the next look.
 */
describe('project indexes due for a rebuild', () => {
  const database = embeddedDatabaseForTests(retrievalDatabase);

  it('leaves out the indexes it keeps as they stand, whichever is asked first', async () => {
    const ds = database();
    const indexes = new ProjectIndexes(ds, loadConfig(retrievalSettings, { SEARCH_BACKEND: 'postgres' }));
    const write = async (analyzer: number, languages: string[]) => {
      const id = randomUUID();
      await ds.query(`INSERT INTO retrieval.project_indexes (project_id, live_key, backend, analyzer) VALUES ($1, $1, 'postgres', $2)`, [id, analyzer]);
      for (const language of languages) await ds.query(`INSERT INTO retrieval.project_languages (project_id, language, chunks) VALUES ($1, $2, 1)`, [id, language]);
      return id;
    };
    const english = await write(ENGLISH_TERMS_SINCE, ['en']);
    const mixed = await write(ENGLISH_TERMS_SINCE, ['en', 'de']);
    const older = await write(ENGLISH_TERMS_SINCE - 1, ['en']);
    const current = await write(ANALYZER_VERSION, ['en', 'de']);
    const due = async () => (await indexes.due()).map((d) => d.project_id).sort();

    expect(await due()).toEqual([mixed, older].sort());
    expect(await indexes.keepUnchanged()).toEqual([english]);
    expect(await due()).toEqual([mixed, older].sort());
    const [kept] = await ds.query<Array<{ analyzer: number }>>('SELECT analyzer FROM retrieval.project_indexes WHERE project_id = $1', [english]);
    expect(kept.analyzer).toBe(ANALYZER_VERSION);
    expect(await due()).not.toContain(current);
  });
});
