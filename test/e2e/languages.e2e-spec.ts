import { ChatMessage, createProject, http, Item, Page, Project, SearchHit } from '../support/harness';
import { expectValidation } from '../support/shapes';

interface Case {
  language: string;
  items: Array<{ id: string; data: { title: string; text: string } }>;
  question: string;
  answer: { item: string; contains: string };
  /** What the answer says when the data does not hold it, in this language. */
  notInData: string;
}

const CASES: Case[] = [
  {
    language: 'zh',
    items: [
      { id: 'wall', data: { title: '长城', text: '长城是中国古代的军事防御工程，总长度超过两万公里。它始建于春秋战国时期。' } },
      { id: 'palace', data: { title: '故宫', text: '故宫位于北京中轴线的中心，是明清两代的皇家宫殿。故宫博物院成立于1925年。' } },
      { id: 'panda', data: { title: '大熊猫', text: '大熊猫主要生活在四川的山区。它们以竹子为主要食物，每天要吃十几公斤。' } },
    ],
    question: '故宫博物院是哪一年成立的？',
    answer: { item: 'palace', contains: '1925' },
    notInData: '我在数据中没有找到这个问题的答案。',
  },
  {
    language: 'ar',
    items: [
      { id: 'nile', data: { title: 'نهر النيل', text: 'نهر النيل هو أطول نهر في أفريقيا. يبلغ طوله نحو ستة آلاف وستمائة كيلومتر.' } },
      { id: 'university', data: { title: 'جامعة القاهرة', text: 'تأسست جامعة القاهرة عام 1908. وهي من أقدم الجامعات في مصر والعالم العربي.' } },
      { id: 'pyramids', data: { title: 'الأهرامات', text: 'بُنيت أهرامات الجيزة قبل أكثر من أربعة آلاف وخمسمائة عام. وهي من عجائب الدنيا السبع.' } },
    ],
    question: 'متى تأسست جامعة القاهرة؟',
    answer: { item: 'university', contains: '1908' },
    notInData: 'لم أجد الإجابة عن ذلك في البيانات.',
  },
  {
    language: 'ru',
    items: [
      { id: 'baikal', data: { title: 'Байкал', text: 'Байкал — самое глубокое озеро на планете. Его глубина достигает 1642 метров.' } },
      { id: 'hermitage', data: { title: 'Эрмитаж', text: 'Эрмитаж находится в Санкт-Петербурге. Музей был основан Екатериной Второй в 1764 году.' } },
      { id: 'railway', data: { title: 'Транссиб', text: 'Транссибирская магистраль соединяет Москву и Владивосток. Её длина около 9300 километров.' } },
    ],
    question: 'В каком году был основан Эрмитаж?',
    answer: { item: 'hermitage', contains: '1764' },
    notInData: 'Я не нашёл ответа на этот вопрос в данных.',
  },
  {
    language: 'th',
    items: [
      { id: 'bangkok', data: { title: 'กรุงเทพมหานคร', text: 'กรุงเทพมหานครเป็นเมืองหลวงของประเทศไทย มีประชากรประมาณสิบล้านคน' } },
      { id: 'inthanon', data: { title: 'ดอยอินทนนท์', text: 'ดอยอินทนนท์เป็นภูเขาที่สูงที่สุดในประเทศไทย มีความสูง 2565 เมตรจากระดับน้ำทะเล' } },
      { id: 'river', data: { title: 'แม่น้ำเจ้าพระยา', text: 'แม่น้ำเจ้าพระยาไหลผ่านกรุงเทพมหานครลงสู่อ่าวไทย' } },
    ],
    question: 'ภูเขาที่สูงที่สุดในประเทศไทยสูงเท่าไร',
    answer: { item: 'inthanon', contains: '2565' },
    notInData: 'ฉันไม่พบคำตอบของคำถามนี้ในข้อมูล',
  },
];

describe('languages', () => {
  describe.each(CASES)('items in $language', (c) => {
    let p: Project;
    beforeAll(async () => {
      p = await createProject();
      await p.upsertAndWait(c.items);
    });

    it('detects the items’ language and shows it on the item', async () => {
      expect((await p.item(c.items[0].id)).language).toBe(c.language);
    });

    it('answers a question in the language from the item that holds the answer, cited first', async () => {
      const m = (await p.post<{ data: ChatMessage }>('/query', { text: c.question })).body.data;
      expect(m.sources?.[0]?.item_id).toBe(c.answer.item);
      expect(m.text).toContain(c.answer.contains);
    });

    it('ranks that item first in search', async () => {
      const hits = (await p.post<{ data: SearchHit[] }>('/search', { text: c.question })).body.data;
      expect(hits[0]?.item_id).toBe(c.answer.item);
    });

    it('says in the question’s language that the data does not hold an answer', async () => {
      const m = (await p.post<{ data: ChatMessage }>('/query', { text: '???', language: c.language })).body.data;
      expect(m.text).toBe(c.notInData);
    });
  });

  describe('words written another way than in the data', () => {
    let p: Project;
    beforeAll(async () => {
      p = await createProject();
      await p.upsertAndWait([
        { id: 'revolution', data: { title: 'تاريخ فرنسا', text: 'بدأت الثورة الفرنسية عام 1789 وانتهت عام 1799.' } },
        { id: 'war', data: { title: 'تاريخ أوروبا', text: 'بدأت الحرب العالمية الأولى عام 1914 وانتهت عام 1918.' } },
      ]);
    });

    it('finds and answers from the item whose words the question spells with another ending (ه for ة)', async () => {
      const question = 'متى بدأت الثوره الفرنسيه؟';
      const hits = (await p.post<{ data: SearchHit[] }>('/search', { text: question })).body.data;
      expect(hits[0]?.item_id).toBe('revolution');
      const m = (await p.post<{ data: ChatMessage }>('/query', { text: question })).body.data;
      expect(m.sources?.[0]?.item_id).toBe('revolution');
      expect(m.text).toContain('1789');
    });
  });

  describe('a collection in several languages', () => {
    let p: Project;
    beforeAll(async () => {
      p = await createProject();
      await p.upsertAndWait(
        [
          { id: 'eiffel', data: { title: 'Eiffel Tower', text: 'The Eiffel Tower in Paris is 330 metres tall. It was completed in 1889 for the World Fair.' } },
          { id: 'dom', data: { title: 'Kölner Dom', text: 'Der Kölner Dom ist eine römisch-katholische Kirche in Köln. Der Kölner Dom wurde im Jahr 1880 fertiggestellt.' } },
          { id: 'wall', language: 'zh', data: { title: '长城', text: '长城是中国古代的军事防御工程，总长度超过两万公里。' } },
          { id: 'hermitage', data: { title: 'Эрмитаж', text: 'Эрмитаж находится в Санкт-Петербурге. Музей был основан в 1764 году.' } },
        ],
        { slug: 'sights' },
      );
    });

    it('keeps each item’s language, given or detected', async () => {
      const items = (await p.get<Page<Item>>('/items?collection=sights')).body.data;
      expect(Object.fromEntries(items.map((i) => [i.item_id, i.language]))).toEqual({ eiffel: 'en', dom: 'de', wall: 'zh', hermitage: 'ru' });
    });

    it('answers each language’s question from that language’s item', async () => {
      const asked: Array<[string, string, string]> = [
        ['Wann wurde der Kölner Dom fertiggestellt?', 'dom', '1880'],
        ['长城的总长度是多少？', 'wall', '两万公里'],
        ['Когда был основан Эрмитаж?', 'hermitage', '1764'],
        ['When was the Eiffel Tower completed?', 'eiffel', '1889'],
      ];
      for (const [question, item, contains] of asked) {
        const m = (await p.post<{ data: ChatMessage }>('/query', { text: question })).body.data;
        expect([question, m.sources?.[0]?.item_id]).toEqual([question, item]);
        expect(m.text).toContain(contains);
      }
    });

    it('finds English records for a German question by the names they share', async () => {
      const hits = (await p.post<{ data: SearchHit[] }>('/search', { text: 'Wie hoch ist der Eiffel Tower in Paris?', language: 'de' })).body.data;
      expect(hits[0]?.item_id).toBe('eiffel');
    });
  });

  describe('the language fields', () => {
    let p: Project;
    beforeAll(async () => {
      p = await createProject();
    });

    it('stores the collection’s language and uses it for items that give none', async () => {
      await p.upsertAndWait(
        [
          { id: 'short', data: { text: 'Ok' } },
          { id: 'own', language: 'fr', data: { text: 'Ok' } },
        ],
        { slug: 'greek', language: 'el' },
      );
      const short = await p.item('short');
      expect(short.language).toBe('el');
      expect(short.collection.language).toBe('el');
      expect((await p.item('own')).language).toBe('fr');
    });

    it('takes an item whose language cannot be told to be in the language of the rest of its upsert', async () => {
      await p.upsertAndWait([
        { id: 'long', data: { text: 'Der Kölner Dom ist eine römisch-katholische Kirche in Köln und wurde im Jahr 1880 fertiggestellt.' } },
        { id: 'tiny', data: { text: 'Ok' } },
      ]);
      expect((await p.item('tiny')).language).toBe('de');
    });

    it('documents the language fields in the OpenAPI document', async () => {
      const doc = (await http('GET', '/v1/openapi.json', { key: p.key })).body as { components: { schemas: Record<string, { properties?: Record<string, unknown> }> } };
      const withLanguage = Object.entries(doc.components.schemas)
        .filter(([, s]) => s.properties?.language)
        .map(([name]) => name);
      expect(withLanguage).toEqual(expect.arrayContaining(['UpsertItemDto', 'CollectionInputDto', 'QuestionDto', 'SearchDto', 'FollowUpDto', 'ItemView', 'CollectionView']));
    });

    it('rejects unknown language codes with 422 and the field path', async () => {
      expectValidation(await p.upsert([{ id: 'a', language: 'xx', data: { text: 'a' } }]), ['items.0.language']);
      expectValidation(await p.upsert([{ id: 'a', data: { text: 'a' } }], { slug: 'c', language: 'english' }), ['collection.language']);
      expectValidation(await p.post('/query', { text: 'hello', language: 'EN' }), ['language']);
      expectValidation(await p.post('/chats', { text: 'hello', language: 'zz' }), ['language']);
      expectValidation(await p.post('/search', { text: 'hello', language: 3 }), ['language']);
    });

    it('rejects codes withdrawn from ISO 639-1, naming the current one, wherever a language is taken', async () => {
      const said = (code: string, now: string) => (path: string) =>
        `The ${path} field must be an ISO 639-1 language code (two lowercase letters, e.g. "en"). "${code}" was withdrawn from ISO 639-1: send "${now}".`;
      const iw = said('iw', 'he');
      const item = await p.upsert([{ id: 'a', language: 'iw', data: { text: 'שלום עולם' } }]);
      expectValidation(item, ['items.0.language']);
      expect(item.body.errors?.['items.0.language']).toEqual([iw('items.0.language')]);
      expectValidation(await p.upsert([{ id: 'a', data: { text: 'a' } }], { slug: 'c', language: 'in' }), ['collection.language']);
      for (const path of ['/query', '/chats', '/search']) {
        const r = await p.post(path, { text: 'apa kabar', language: 'in' });
        expectValidation(r, ['language']);
        expect(r.body.message).toBe(said('in', 'id')('language'));
      }
      expect((await p.post('/search', { text: 'apa kabar', language: 'id' })).status).toBe(200);
    });
  });
});
