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

  it('takes a language holding under 0.1% of the project for a misread one: a question is neither detected in it nor analyzed in it unless given', async () => {
    const languages = over([
      { language: 'en', chunks: 10_000 },
      { language: 'af', chunks: 2 },
    ]);
    const detect = jest.fn(() => Promise.resolve('af'));
    expect(await languages.forQuestion(project, detect, false)).toEqual(['en']);
    expect(detect).not.toHaveBeenCalled();
    expect(await languages.forQuestion(project, 'af', false)).toEqual(['en']);
    expect(await languages.forQuestion(project, 'af', true)).toEqual(['af', 'en']);
    // With a tenth of a percent or more in it, it counts.
    const present = jest.fn(() => Promise.resolve('af'));
    expect(
      await over([
        { language: 'en', chunks: 10_000 },
        { language: 'af', chunks: 20 },
      ]).forQuestion(project, present, false),
    ).toEqual(['af', 'en']);
    expect(present).toHaveBeenCalledTimes(1);
  });

  it('finds the language of a question when more languages are main than a question is analyzed in, so that its own is kept', async () => {
    const many = over('ab cd ef gh ij kl mn op qr st'.split(' ').map((language) => ({ language, chunks: 10 })));
    const detect = jest.fn(() => Promise.resolve('st'));
    const languages = await many.forQuestion(project, detect, false);
    expect(languages).toHaveLength(8);
    expect(languages[0]).toBe('st');
  });
});
