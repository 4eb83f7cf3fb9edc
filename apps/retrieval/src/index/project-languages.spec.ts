import { DataSource } from 'typeorm';
import { ProjectLanguages } from './project-languages';

const project = '00000000-0000-7000-8000-000000000001';

/** ProjectLanguages over a database that holds these counts for every project. */
function over(rows: Array<{ language: string; chunks: number }>): ProjectLanguages {
  return new ProjectLanguages({ query: async () => rows } as unknown as DataSource);
}

/** The languages a question is analyzed in when detection would find `found`, and how often it was asked to. */
async function detected(languages: ProjectLanguages, found: string): Promise<{ languages: string[]; detections: number }> {
  const detect = jest.fn(() => Promise.resolve(found));
  return { languages: await languages.forQuestion(project, detect, false), detections: detect.mock.calls.length };
}

describe('ProjectLanguages.forQuestion', () => {
  it('analyzes a question in the languages holding 1% or more of the project, most used first', async () => {
    const languages = over([
      { language: 'en', chunks: 900 },
      { language: 'de', chunks: 95 },
      { language: 'et', chunks: 5 },
    ]);
    expect(await languages.forQuestion(project, null, false)).toEqual(['en', 'de']);
  });

  it('adds the question’s own language when given, or when the project has chunks in it', async () => {
    const languages = over([
      { language: 'en', chunks: 900 },
      { language: 'ru', chunks: 5 },
    ]);
    expect(await languages.forQuestion(project, 'ru', false)).toEqual(['ru', 'en']);
    expect(await languages.forQuestion(project, 'fr', false)).toEqual(['en']);
    expect(await languages.forQuestion(project, 'fr', true)).toEqual(['fr', 'en']);
  });

  it('reads English for a project indexed before languages were kept, and caps the list at eight', async () => {
    expect(await over([]).forQuestion(project, null, false)).toEqual(['en']);
    const many = over('ab cd ef gh ij kl mn op qr st'.split(' ').map((language) => ({ language, chunks: 10 })));
    expect(await many.forQuestion(project, null, false)).toHaveLength(8);
  });

  it("finds the question's language only where the project has several: with one or none, the languages are the same whatever it is", async () => {
    for (const rows of [[], [{ language: 'de', chunks: 40 }]]) {
      const languages = over(rows);
      const without = await languages.forQuestion(project, null, false);
      for (const asked of ['de', 'en', 'ru']) expect(await languages.forQuestion(project, asked, false)).toEqual(without);
      expect(await detected(languages, 'ru')).toEqual({ languages: without, detections: 0 });
    }
    const several = over([
      { language: 'en', chunks: 900 },
      { language: 'ru', chunks: 5 },
    ]);
    expect(await detected(several, 'ru')).toEqual({ languages: ['ru', 'en'], detections: 1 });
  });

  it('takes a language holding under 0.1% of the project for a misread one: a question is neither detected in it nor analyzed in it unless given', async () => {
    const languages = over([
      { language: 'en', chunks: 10_000 },
      { language: 'af', chunks: 2 },
    ]);
    expect(await detected(languages, 'af')).toEqual({ languages: ['en'], detections: 0 });
    expect(await languages.forQuestion(project, 'af', false)).toEqual(['en']);
    expect(await languages.forQuestion(project, 'af', true)).toEqual(['af', 'en']);
    // With a tenth of a percent or more in it, it counts.
    const present = over([
      { language: 'en', chunks: 10_000 },
      { language: 'af', chunks: 20 },
    ]);
    expect(await detected(present, 'af')).toEqual({ languages: ['af', 'en'], detections: 1 });
  });

  it('finds the language of a question when more languages are main than a question is analyzed in, so that its own is kept', async () => {
    const many = over('ab cd ef gh ij kl mn op qr st'.split(' ').map((language) => ({ language, chunks: 10 })));
    const { languages, detections } = await detected(many, 'st');
    expect(detections).toBe(1);
    expect(languages).toHaveLength(8);
    expect(languages[0]).toBe('st');
  });
});
