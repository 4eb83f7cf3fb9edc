import type { CollectionsResolved } from './collections-resolved';
import type { RetrievedChunk, SearchRequest } from '@askdata/contracts';
import type { IndexRebuilds } from './index/index-rebuilds';
import type { ProjectLanguages } from './index/project-languages';
import { RetrievalService } from './retrieval.service';

describe('RetrievalService.search', () => {
  const hit: RetrievedChunk = {
    id: 'apples',
    item_id: 'apples',
    collection: 'fruit',
    tenant: null,
    url: null,
    metadata: {},
    score: 1.5,
    snippet: 'Apples are harvested in autumn.',
    text: 'Apples are harvested in autumn. '.repeat(40),
    chunk: 0,
  };
  const service = new RetrievalService(
    {} as CollectionsResolved,
    { forQuestion: () => Promise.resolve(['en']) } as unknown as ProjectLanguages,
    { searchTarget: (key: string) => Promise.resolve({ key, index: { search: () => Promise.resolve([{ ...hit }]) } }) } as unknown as IndexRebuilds,
  );
  const request: SearchRequest = {
    scope: { projectId: '0b0c8a9e-3d3c-4a51-9f7e-2f4e9b1d7c11', tenancy: 'single' },
    text: 'When are apples harvested?',
    collections: null,
    tenant: null,
    filter: null,
    limit: 10,
  };

  it("gives each hit its chunk's full text, unless the search asked for none", async () => {
    expect(await service.search(request)).toEqual([hit]);
    expect(await service.search({ ...request, texts: true })).toEqual([hit]);
    expect(await service.search({ ...request, texts: false })).toEqual([{ ...hit, text: '' }]);
  });
});
