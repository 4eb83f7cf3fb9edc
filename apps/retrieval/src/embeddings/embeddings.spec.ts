import { Logger } from '@nestjs/common';
import { createServer } from 'node:net';
import { ErrorCode } from '@askdata/contracts';
import { ConfigError, loadConfig, ServiceError } from '@askdata/common';
import { checkRetrievalConfig, retrievalSettings } from '../retrieval.config';
import { EmbeddingStub, startEmbeddingStub, stubEmbedding } from '../../../../test/stand-ins/embedding-stubs';
import { createEmbeddingProvider } from './embedding-factory';
import { EmbeddingProvider } from './embedding-provider';

beforeAll(() => Logger.overrideLogger(false));

const config = (env: Record<string, string>) => loadConfig(retrievalSettings, { SEARCH_BACKEND: 'qdrant', ...env });

function provider(stub: EmbeddingStub, env: Record<string, string> = {}): EmbeddingProvider {
  const p = createEmbeddingProvider(config({ EMBEDDING_PROVIDER: stub.kind, EMBEDDING_URL: stub.url, EMBEDDING_MODEL: 'test-model', EMBEDDING_API_KEY: 'sk-test', ...env }), {
    backoffMs: 5,
  });
  if (!p) throw new Error('no provider');
  return p;
}

async function failure(p: Promise<unknown>): Promise<ServiceError> {
  const e = await p.then(
    () => null,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(ServiceError);
  return e as ServiceError;
}

describe.each(['openai', 'voyage'] as const)('%s embeddings', (kind) => {
  let stub: EmbeddingStub;
  beforeEach(async () => {
    stub = await startEmbeddingStub(kind, { apiKey: 'sk-test', maxBatch: 3 });
  });
  afterEach(async () => {
    await stub.close();
  });

  it('embeds documents in batches of EMBEDDING_BATCH_SIZE, in order', async () => {
    const texts = ['apples', 'pears', 'plums', 'cherries', 'grapes', 'figs', 'dates'];
    const vectors = await provider(stub, { EMBEDDING_BATCH_SIZE: '3' }).embedDocuments(texts);
    expect(vectors).toEqual(texts.map((t) => stubEmbedding(t, 64)));
    expect(stub.served.map((b) => (b.input as string[]).length)).toEqual([3, 3, 1]);
    expect(stub.served.every((b) => b.model === 'test-model')).toBe(true);
    expect(stub.problems()).toEqual([]);
  });

  it('asks for the configured dimensions and embeds queries', async () => {
    const p = provider(stub, { EMBEDDING_DIMENSIONS: '16' });
    expect(await p.embedQuery('red apples')).toEqual(stubEmbedding('red apples', 16));
    const [request] = stub.served;
    expect(request[kind === 'openai' ? 'dimensions' : 'output_dimension']).toBe(16);
    expect(stub.problems()).toEqual([]);
  });

  it('retries a 429 and a 500, then succeeds', async () => {
    stub.failNext(429, 1, 0);
    await expect(provider(stub).embedQuery('apples')).resolves.toHaveLength(64);
    expect(stub.received()).toBe(2);
    stub.failNext(500, 2);
    await expect(provider(stub).embedDocuments(['apples', 'pears'])).resolves.toHaveLength(2);
    expect(stub.received()).toBe(5);
  });

  it('waits as long as Retry-After says', async () => {
    stub.failNext(429, 1, 1);
    const started = Date.now();
    await expect(provider(stub).embedQuery('apples')).resolves.toHaveLength(64);
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
  });

  it('gives up after EMBEDDING_RETRIES with UNAVAILABLE', async () => {
    stub.failNext(503, 10);
    const e = await failure(provider(stub, { EMBEDDING_RETRIES: '2' }).embedDocuments(['apples']));
    expect(e.code).toBe(ErrorCode.Unavailable);
    expect(e.message).toMatch(new RegExp(`embedding provider \\(${kind}\\).*503.*3 attempts`));
    expect(stub.received()).toBe(3);
  });

  it('does not retry a refused request (wrong key) and says why', async () => {
    const e = await failure(provider(stub, { EMBEDDING_API_KEY: 'sk-wrong' }).embedQuery('apples'));
    expect(e.code).toBe(ErrorCode.Unavailable);
    expect(e.message).toMatch(/401/);
    expect(stub.received()).toBe(1);
    expect(e.message).not.toMatch(/sk-wrong/);
  });

  it('times out a request that takes too long, and retries it', async () => {
    stub.delayNext(3000, 1);
    const started = Date.now();
    const e = await failure(provider(stub, { EMBEDDING_TIMEOUT_MS: '200', EMBEDDING_RETRIES: '0' }).embedQuery('apples'));
    expect(e.code).toBe(ErrorCode.Unavailable);
    expect(e.message).toMatch(/did not answer within 200 ms/);
    expect(Date.now() - started).toBeLessThan(2000);
    stub.delayNext(3000, 1);
    await expect(provider(stub, { EMBEDDING_TIMEOUT_MS: '200', EMBEDDING_RETRIES: '1' }).embedQuery('apples')).resolves.toHaveLength(64);
  });

  it('fails with UNAVAILABLE when the model returns other dimensions than configured', async () => {
    const fixed = await startEmbeddingStub(kind, { dimensions: 8, ignoreRequestedDimensions: true });
    try {
      const e = await failure(provider(fixed, { EMBEDDING_DIMENSIONS: '16' }).embedQuery('apples'));
      expect(e.code).toBe(ErrorCode.Unavailable);
      expect(e.message).toMatch(/8 dimensions, EMBEDDING_DIMENSIONS is 16/);
    } finally {
      await fixed.close();
    }
  });
});

it('voyage embeds documents and queries with their input types', async () => {
  const stub = await startEmbeddingStub('voyage');
  try {
    const p = provider(stub);
    await p.embedDocuments(['apples']);
    await p.embedQuery('apples');
    expect(stub.served.map((b) => b.input_type)).toEqual(['document', 'query']);
  } finally {
    await stub.close();
  }
});

it('an unreachable embeddings API is UNAVAILABLE', async () => {
  const port = await new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const p = (s.address() as { port: number }).port;
      s.close(() => resolve(p));
    });
  });
  const p = createEmbeddingProvider(config({ EMBEDDING_PROVIDER: 'openai', EMBEDDING_URL: `http://127.0.0.1:${port}/v1`, EMBEDDING_MODEL: 'm', EMBEDDING_RETRIES: '1' }), {
    backoffMs: 5,
  })!;
  const e = await failure(p.embedQuery('apples'));
  expect(e.code).toBe(ErrorCode.Unavailable);
  expect(e.message).toMatch(/unreachable \(ECONNREFUSED\).*2 attempts/);
});

describe('embedding settings', () => {
  it('none (the default) means no provider', () => {
    expect(createEmbeddingProvider(config({}))).toBeNull();
  });

  it('refuses combinations that cannot work, naming each setting', () => {
    const check = (env: Record<string, string>) => () => checkRetrievalConfig(config(env));
    expect(check({ SEARCH_BACKEND: 'postgres', EMBEDDING_PROVIDER: 'openai', EMBEDDING_URL: 'http://127.0.0.1:11434/v1', EMBEDDING_MODEL: 'm' })).toThrow(
      /EMBEDDING_PROVIDER: openai needs SEARCH_BACKEND=qdrant/,
    );
    expect(check({ EMBEDDING_PROVIDER: 'voyage' })).toThrow(ConfigError);
    expect(check({ EMBEDDING_PROVIDER: 'voyage' })).toThrow(/EMBEDDING_MODEL[\s\S]*EMBEDDING_API_KEY/);
    expect(check({ EMBEDDING_PROVIDER: 'openai', EMBEDDING_MODEL: 'text-embedding-3-small' })).toThrow(/EMBEDDING_API_KEY: https:\/\/api.openai.com\/v1/);
    expect(check({ EMBEDDING_PROVIDER: 'openai', EMBEDDING_MODEL: 'nomic-embed-text', EMBEDDING_URL: 'http://127.0.0.1:11434/v1' })).not.toThrow();
    expect(check({})).not.toThrow();
  });
});
