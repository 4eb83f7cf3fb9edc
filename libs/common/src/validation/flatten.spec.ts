import { CreateUpsertDto, QuestionDto } from '@askdata/contracts';
import { validateDto } from './flatten';

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
    expect(Object.keys(result.errors ?? {}).sort()).toEqual([
      'collection.metadata', 'collection.slug', 'items.0.metadata', 'items.0.tenant', 'items.0.url',
    ]);
  });

  it('requires items to be a non-empty array', () => {
    expect(validateDto(CreateUpsertDto, {}).errors).toEqual({ items: ['The items field is required.'] });
    expect(validateDto(CreateUpsertDto, { items: [] }).errors).toEqual({ items: ['The items field must have at least 1 items.'] });
    expect(validateDto(CreateUpsertDto, { items: 'x' }).errors?.items).toContain('The items field must be an array.');
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
});
