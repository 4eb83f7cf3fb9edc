import { QueryFailedError, QueryRunnerAlreadyReleasedError, QueryRunnerProviderAlreadyReleasedError } from 'typeorm';
import { isDatabaseUnavailable } from './database-errors';

describe('isDatabaseUnavailable', () => {
  const pgError = (code: string, message: string) => Object.assign(new Error(message), { code });

  it('recognises a server that went away, however the driver or TypeORM reports it', () => {
    expect(isDatabaseUnavailable(pgError('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:5432'))).toBe(true);
    expect(isDatabaseUnavailable(pgError('57P01', 'terminating connection due to administrator command'))).toBe(true);
    expect(isDatabaseUnavailable(new Error('Connection terminated unexpectedly'))).toBe(true);
    // pg-pool: every connection stayed taken for the whole connection timeout.
    expect(isDatabaseUnavailable(new Error('timeout exceeded when trying to connect'))).toBe(true);
    expect(isDatabaseUnavailable(new QueryFailedError('SELECT 1', [], pgError('57P03', 'the database system is shutting down')))).toBe(true);
    // A transaction whose connection dropped: TypeORM has released its runner before the next statement.
    expect(isDatabaseUnavailable(new QueryRunnerAlreadyReleasedError())).toBe(true);
    expect(isDatabaseUnavailable(new QueryRunnerProviderAlreadyReleasedError())).toBe(true);
  });

  it('leaves a bad query or a bug as an internal error', () => {
    expect(isDatabaseUnavailable(new QueryFailedError('SELECT nope', [], pgError('42703', 'column "nope" does not exist')))).toBe(false);
    expect(isDatabaseUnavailable(pgError('23505', 'duplicate key value violates unique constraint'))).toBe(false);
    expect(isDatabaseUnavailable(new TypeError("Cannot read properties of undefined (reading 'id')"))).toBe(false);
    expect(isDatabaseUnavailable(undefined)).toBe(false);
  });
});
