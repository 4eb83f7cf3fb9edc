import { STEMMED_LANGUAGES } from '@askdata/common';
import { RetrievedChunk } from '@askdata/contracts';
import { NOT_IN_DATA, notInData } from './answer-generator';
import { ExtractiveAnswerer, matchingLanguage } from './extractive-answerer';

const chunk = (n: number, text: string, language: string, score = 1): RetrievedChunk => ({
  id: `00000000-0000-7000-8000-00000000000${n}`,
  item_id: `item-${n}`,
  collection: 'c',
  tenant: null,
  url: null,
  metadata: {},
  score,
  snippet: '',
  text,
  chunk: 0,
  language,
});

describe('ExtractiveAnswerer in other languages', () => {
  it('quotes the sentence of a Chinese chunk that answers a Chinese question, split at 。', async () => {
    const chunks = [chunk(0, '长城是中国古代的军事防御工程。它始建于春秋战国时期。', 'zh'), chunk(1, '故宫位于北京中轴线的中心。故宫博物院成立于1925年。', 'zh', 0.9)];
    const answer = await new ExtractiveAnswerer().generate({ question: '故宫博物院是哪一年成立的？', history: [], chunks, instructions: null, language: 'zh' });
    expect(answer.text).toContain('故宫博物院成立于1925年。');
    expect(answer.text).not.toContain('长城');
    expect(answer.citations).toEqual([1]);
  });

  it('meets a word of the question in a sentence that writes it with another prefix or suffix (Arabic "to Shakira")', async () => {
    const chunks = [chunk(0, 'كان الألبوم الأول لفرقة البيتلز عام 1963.', 'ar'), chunk(1, 'ولدت شاكيرا في بارانكيا. كان ألبوم شاكيرا الأول عام 1991 باسم ماجيا.', 'ar', 0.95)];
    const answer = await new ExtractiveAnswerer().generate({ question: 'ما الألبوم الأول لشاكيرا؟', history: [], chunks, instructions: null, language: 'ar' });
    expect(answer.text).toContain('1991');
    expect(answer.citations[0]).toBe(1);
  });

  it('says that the data does not hold the answer in the question’s language, English for others', async () => {
    const chunks = [chunk(0, 'Байкал — самое глубокое озеро на планете.', 'ru')];
    const answer = await new ExtractiveAnswerer().generate({ question: 'Сколько стоит билет в театр?', history: [], chunks, instructions: null, language: 'ru' });
    expect(answer).toEqual({ text: 'Я не нашёл ответа на этот вопрос в данных.', citations: [] });
    expect(notInData('xx')).toBe(NOT_IN_DATA);
    expect(notInData()).toBe(NOT_IN_DATA);
    for (const language of STEMMED_LANGUAGES.filter((l) => l !== 'en')) expect([language, notInData(language)]).not.toEqual([language, NOT_IN_DATA]);
  });

  it('reads a question in another language than the data in the data’s language', () => {
    expect(matchingLanguage('de', [chunk(0, 'x', 'en')])).toBe('en');
    expect(matchingLanguage('de', [chunk(0, 'x', 'en'), chunk(1, 'y', 'de')])).toBe('de');
  });
});
