import { CreateUpsertDto, FeedbackDto, ListItemsQueryDto, QuestionDto, SearchDto, UpdateProjectDto, UpsertItemDto } from '@askdata/contracts';
import { validateDto, validateDtoInSlices } from './flatten';

describe('validateDto', () => {
  it('reports nested item errors with dotted paths and the full path in the message', () => {
    const result = validateDto(CreateUpsertDto, { items: [{ id: 'a', data: { x: 1 } }, { id: 'b' }, { data: {}, id: '' }] });
    expect(result.errors).toEqual({
      'items.1.data': ['The items.1.data field is required.'],
      'items.2.id': ['The items.2.id field must be a string or an integer of 1 to 255 characters.'],
      'items.2.data': ['The items.2.data field must be a non-empty object.'],
    });
  });

  it('accepts integer item ids, metadata and urls', () => {
    const result = validateDto(CreateUpsertDto, {
      items: [{ id: 7, data: { title: 'x' }, metadata: { a: 1 }, url: 'https://example.com/a', tenant: 2 }],
      collection: { slug: 'docs', metadata: { a: { type: 'number' } } },
    });
    expect(result.errors).toBeNull();
  });

  it('rejects wrong types, a bad url, a bad slug and a malformed field declaration', () => {
    const result = validateDto(CreateUpsertDto, {
      items: [{ id: 'a', data: { x: 1 }, tenant: 0, url: 'not a url', metadata: [] }],
      collection: { slug: 'Bad Slug', metadata: { a: { type: 'color' } } },
    });
    expect(Object.keys(result.errors ?? {}).sort()).toEqual(['collection.metadata', 'collection.slug', 'items.0.metadata', 'items.0.tenant', 'items.0.url']);
  });

  it('names a field the request does not have (a misspelt one, say) instead of ignoring it, at any depth', () => {
    const upsert = validateDto(CreateUpsertDto, { items: [{ id: 'a', data: { x: 1 }, tenent: 2 }], colection: { slug: 'docs' } });
    expect(upsert.errors).toEqual({
      colection: ['The colection field is not a field of this request.'],
      'items.0.tenent': ['The items.0.tenent field is not a field of this request.'],
    });
    expect(validateDto(QuestionDto, { text: 'what?', colections: ['docs'] }).errors).toEqual({ colections: ['The colections field is not a field of this request.'] });
    expect(validateDto(CreateUpsertDto, { items: [{ id: 'a', data: { anything: 1 }, metadata: { any_key: true } }] }).errors).toBeNull();
  });

  it('requires items to be a non-empty array', () => {
    expect(validateDto(CreateUpsertDto, {}).errors).toEqual({ items: ['The items field is required.'] });
    expect(validateDto(CreateUpsertDto, { items: [] }).errors).toEqual({ items: ['The items field must have at least 1 items.'] });
    expect(validateDto(CreateUpsertDto, { items: 'x' }).errors?.items).toContain('The items field must be an array.');
    // An object is not an array of one element: no errors at items.id or items.data.
    expect(validateDto(CreateUpsertDto, { items: {} }).errors).toEqual({
      items: ['The items field must be an array.', 'The items field must have at least 1 items.'],
    });
  });

  it('says a required field given as null is required, and nothing else', () => {
    expect(validateDto(CreateUpsertDto, { items: null }).errors).toEqual({ items: ['The items field is required.'] });
    expect(validateDto(CreateUpsertDto, { items: [{ id: null, data: null }] }).errors).toEqual({
      'items.0.id': ['The items.0.id field is required.'],
      'items.0.data': ['The items.0.data field is required.'],
    });
    expect(validateDto(QuestionDto, { text: null }).errors).toEqual({ text: ['The text field is required.'] });
    expect(validateDto(FeedbackDto, { feedback: null }).errors).toEqual({ feedback: ['The feedback field is required.'] });
  });

  it('rejects a body that is not an object', () => {
    expect(validateDto(QuestionDto, [1, 2]).errors).toEqual({ body: ['The request body must be a JSON object.'] });
  });

  it('validates question fields: blank text, collections elements, identifier', () => {
    const result = validateDto(QuestionDto, { text: '   ', collections: 'a', identifier: { name: 'x' } });
    expect(result.errors).toMatchObject({
      text: ['The text field is required.'],
      collections: ['The collections field must be an array.'],
      'identifier.id': ['The identifier.id field is required.'],
    });
  });

  it('refuses an empty collections list on a question and a search, with one message saying to leave the field out', () => {
    const message = 'The collections field must name at least one collection slug (omit it to search all collections).';
    for (const dto of [QuestionDto, SearchDto] as Array<new () => object>) {
      expect(validateDto(dto, { text: 'hours', collections: [] }).errors).toEqual({ collections: [message] });
      expect(validateDto(dto, { text: 'hours', collections: ['faq'] }).errors).toBeNull();
      expect(validateDto(dto, { text: 'hours' }).errors).toBeNull();
    }
  });

  it('refuses feedback that is only whitespace, not also saying so of an empty or non-string one', () => {
    expect(validateDto(FeedbackDto, { feedback: ' \t\n\u00a0' }).errors).toEqual({ feedback: ['The feedback field must not be only whitespace.'] });
    expect(validateDto(FeedbackDto, { feedback: '' }).errors).toEqual({ feedback: ['The feedback field must be at least 1 characters.'] });
    expect(validateDto(FeedbackDto, { feedback: 5 }).errors?.feedback).not.toContain('The feedback field must not be only whitespace.');
    expect(validateDto(FeedbackDto, { feedback: '  slow \n' }).value).toEqual({ feedback: '  slow \n' });
  });

  it('refuses NUL characters and unpaired surrogates in any string or key, at the field that holds them', () => {
    const result = validateDto(CreateUpsertDto, {
      items: [
        { id: 'a\u0000', data: { text: 'ok', nested: ['fine', 'x\ud800y'] } },
        { id: 'b', data: { ['k\u0000']: 1 }, metadata: { m: '\udc00' } },
      ],
      collection: { slug: 'docs', name: 'n\u0000' },
    });
    const message = (path: string) => [`The ${path} field must not contain NUL characters or unpaired surrogates.`];
    expect(result.errors).toEqual({
      'items.0.id': message('items.0.id'),
      'items.0.data.nested.1': message('items.0.data.nested.1'),
      'items.1.data': message('items.1.data'),
      'items.1.metadata.m': message('items.1.metadata.m'),
      'collection.name': message('collection.name'),
    });
    expect(validateDto(ListItemsQueryDto, { item_id: '\u0000' }).errors).toEqual({ item_id: message('item_id') });
    expect(validateDto(QuestionDto, { text: 'emoji \ud83d\ude00, RTL \u202e, zero width \u200b' }).errors).toBeNull();
  });

  it('refuses numbers beyond a double, which JSON would store as null, at the field that holds them', () => {
    const body = JSON.parse('{"items": [{"id": "a", "data": {"n": 1e999, "list": [1, -1e400]}, "metadata": {"m": 1.7976931348623157e308}}]}');
    const message = (path: string) => [`The ${path} field must be a number between -1.7976931348623157e308 and 1.7976931348623157e308.`];
    expect(validateDto(CreateUpsertDto, body).errors).toEqual({ 'items.0.data.n': message('items.0.data.n'), 'items.0.data.list.1': message('items.0.data.list.1') });
    expect(validateDto(SearchDto, JSON.parse('{"text": "x", "filter": {"price": {"$lt": 1e999}}}')).errors).toEqual({ 'filter.price.$lt': message('filter.price.$lt') });
  });

  it('refuses bodies nested deeper than 32 levels instead of exhausting the stack', () => {
    const nest = (levels: number) => {
      let v: unknown = 'leaf';
      for (let i = 0; i < levels; i++) v = { a: v };
      return v;
    };
    // The body is level 0, items 1, the item 2, data 3: data may hold 29 more levels of objects.
    expect(validateDto(CreateUpsertDto, { items: [{ id: 'a', data: nest(30) }] }).errors).toBeNull();
    const tooDeep = validateDto(CreateUpsertDto, { items: [{ id: 'a', data: nest(31) }] }).errors;
    const path = `items.0.data${'.a'.repeat(30)}`;
    expect(tooDeep).toEqual({ [path]: [`The ${path} field must not be nested more than 32 levels deep.`] });
    expect(Object.keys(validateDto(QuestionDto, { text: 'x', filter: nest(100_000) }).errors ?? {})).toHaveLength(1);
  });

  it('bounds tenants to what is stored (32-bit integers)', () => {
    expect(validateDto(QuestionDto, { text: 'x', tenant: 2_147_483_647 }).errors).toBeNull();
    expect(validateDto(QuestionDto, { text: 'x', tenant: 2 ** 31 }).errors).toEqual({ tenant: ['The tenant field must not be greater than 2147483647.'] });
    expect(validateDto(ListItemsQueryDto, { tenant: '99999999999' }).errors).toEqual({ tenant: ['The tenant field must not be greater than 2147483647.'] });
  });

  it("keeps free-form JSON exactly as sent, keys named like Object's members included", () => {
    const data = JSON.parse('{"title":"t","constructor":"c","toString":"s","valueOf":{"constructor":{"x":1}},"__proto__":{"p":1},"hasOwnProperty":[1,{"constructor":2}]}');
    const filter = JSON.parse('{"constructor":"a","kind":{"$in":["x"]},"__proto__":1}');
    const upsert = validateDto(CreateUpsertDto, {
      items: [{ id: 'a', data, metadata: { constructor: 'm', toString: 1 } }],
      collection: { slug: 'docs', metadata: JSON.parse('{"constructor":{"type":"string"},"toString":{"type":"number"}}') },
    });
    expect(upsert.errors).toBeNull();
    expect(JSON.stringify(upsert.value?.items[0].data)).toBe(JSON.stringify(data));
    expect(JSON.stringify(upsert.value?.items[0].metadata)).toBe('{"constructor":"m","toString":1}');
    expect(Object.keys(upsert.value?.collection?.metadata ?? {})).toEqual(['constructor', 'toString']);
    const question = validateDto(QuestionDto, { text: 'x', filter });
    expect(question.errors).toBeNull();
    expect(JSON.stringify(question.value?.filter)).toBe(JSON.stringify(filter));
    expect(validateDto(CreateUpsertDto, { items: [{ id: 'a', data: ['not', 'an', 'object'] }] }).errors).toEqual({
      'items.0.data': ['The items.0.data field must be a non-empty object.'],
    });
  });

  it('takes only objects where a nested object goes: identifier, collection, every item', () => {
    const object = (path: string) => [`The ${path} field must be an object.`];
    expect(validateDto(QuestionDto, { text: 'x', identifier: [] }).errors).toEqual({ identifier: object('identifier') });
    expect(validateDto(QuestionDto, { text: 'x', identifier: [{ id: 'a' }] }).errors).toEqual({ identifier: object('identifier') });
    expect(validateDto(QuestionDto, { text: 'x', identifier: 'ada' }).errors).toEqual({ identifier: object('identifier') });
    const items = [{ id: 'a', data: { t: 1 } }];
    expect(validateDto(CreateUpsertDto, { items, collection: [] }).errors).toEqual({ collection: object('collection') });
    expect(validateDto(CreateUpsertDto, { items, collection: [{ slug: 'x' }] }).errors).toEqual({ collection: object('collection') });
    expect(validateDto(CreateUpsertDto, { items: [items] }).errors).toEqual({ items: ['Every element of the items field must be an object.'] });
    expect(validateDto(CreateUpsertDto, { items: [items[0], null] }).errors).toMatchObject({ 'items.1': object('items.1') });
  });

  it('reports an object with a "constructor" key where a value goes as a wrong type, not a crash', () => {
    const withKey = JSON.parse('{"constructor":{}}');
    expect(validateDto(SearchDto, { text: 'x', limit: withKey }).errors).toMatchObject({ limit: expect.arrayContaining(['The limit field must be an integer.']) });
    expect(validateDto(QuestionDto, { text: withKey }).errors).toMatchObject({ text: expect.arrayContaining(['The text field must be a string.']) });
    expect(validateDto(FeedbackDto, { feedback: [withKey] }).errors).toMatchObject({ feedback: expect.arrayContaining(['The feedback field must be a string.']) });
  });

  it('takes a new name and tenancy for a project, but not null for them', () => {
    const errors = validateDto(UpdateProjectDto, { name: null, tenancy: null, instructions: null }).errors;
    expect(Object.keys(errors ?? {}).sort()).toEqual(['name', 'tenancy']);
    expect(errors).toMatchObject({ name: expect.arrayContaining(['The name field must be a string.']), tenancy: ['The tenancy field must be one of: single, multi.'] });
    expect(validateDto(UpdateProjectDto, { instructions: 'Be brief.' }).errors).toBeNull();
  });
});

describe('validateDtoInSlices', () => {
  const item = (i: number) => ({ id: `doc-${i}`, data: { title: `Title ${i}`, body: 'Some text.' }, metadata: { n: i } });
  const items = Array.from({ length: 120 }, (_, i) => item(i));
  const bodies: Array<[string, unknown]> = [
    ['valid', { items, collection: { slug: 'docs' } }],
    ['items wrong in several slices', { items: items.map((x, i) => (i === 3 ? { id: '' } : i === 57 ? { ...x, tenant: 0 } : i === 119 ? { ...x, url: 'no' } : x)) }],
    [
      'a wrong collection and an unknown field beside wrong items',
      { items: items.map((x, i) => (i === 75 ? { ...x, colour: 1 } : x)), collection: { slug: 'Bad Slug' }, extra: 1 },
    ],
    ['elements that are not objects', { items: items.map((x, i) => (i === 61 ? null : i === 100 ? [x] : x)) }],
    ['a wrong collection only', { items, collection: [] }],
    ['a NUL character', { items: items.map((x, i) => (i === 90 ? { ...x, data: { t: 'a\u0000b' } } : x)) }],
    ['a short list', { items: items.slice(0, 10) }],
  ];

  it.each(bodies)('gives what validateDto gives, errors in the same order (%s)', async (name, body) => {
    const whole = validateDto(CreateUpsertDto, body);
    expect(whole.errors === null).toBe(name === 'valid' || name === 'a short list');
    const sliced = await validateDtoInSlices(CreateUpsertDto, body, 'items', 50);
    expect(Object.entries(sliced.errors ?? {})).toEqual(Object.entries(whole.errors ?? {}));
    expect(JSON.stringify(sliced.value)).toBe(JSON.stringify(whole.value));
  });

  it('gives every item as an instance of its class, in order', async () => {
    const { value } = await validateDtoInSlices(CreateUpsertDto, { items }, 'items', 50);
    expect(value?.items).toHaveLength(120);
    expect(value?.items.every((x, i) => x instanceof UpsertItemDto && x.id === `doc-${i}`)).toBe(true);
  });
});
