import { DataSource } from 'typeorm';
import { ProjectLanguages } from './project-languages';

/** ProjectLanguages over a database that holds these counts for every project. */
function over(rows: Array<{ language: string; chunks: number }>): ProjectLanguages {
  return new ProjectLanguages({ query: async () => rows } as unknown as DataSource);
}

describe('ProjectLanguages.forQuestion', () => {
  const project = '00000000-0000-7000-8000-000000000001';

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
      const detect = jest.fn(() => Promise.resolve('ru'));
      expect(await languages.forQuestion(project, detect, false)).toEqual(without);
      expect(detect).not.toHaveBeenCalled();
    }
    const detect = jest.fn(() => Promise.resolve('ru'));
    expect(
      await over([
        { language: 'en', chunks: 900 },
        { language: 'ru', chunks: 5 },
      ]).forQuestion(project, detect, false),
    ).toEqual(['ru', 'en']);
    expect(detect).toHaveBeenCalledTimes(1);
  });
});
