import { Logger } from '@nestjs/common';
import { TypeOrmLogger } from './typeorm-logger';

describe('TypeOrmLogger', () => {
  const lines: string[] = [];
  beforeAll(() => {
    const capture = (m: unknown) => void lines.push(String(m));
    Logger.overrideLogger({ log: capture, warn: capture, error: capture, debug: capture, verbose: capture });
  });
  afterAll(() => Logger.overrideLogger(false));

  it('reports a failed query on one line, without its parameters', () => {
    new TypeOrmLogger().logQueryError(new Error('connection terminated'), 'INSERT INTO ingestion.upsert_batches\n  (upsert_id, payload)\n  VALUES ($1, $2)', [
      'id',
      '{"text":"a customer record"}',
    ]);
    expect(lines).toEqual(['query failed (connection terminated): INSERT INTO ingestion.upsert_batches (upsert_id, payload) VALUES ($1, $2)']);
  });
});
