/** How PostgreSQL failures are named and classified, and the backoff between tries at start. */
import { describe, expect, it } from 'vitest';
import { retryDelayMs } from './connect-retry.js';
import { describeTarget, isUnavailable, PostgresStatementTimeoutError, PostgresUnavailableError, redactUrl, translateError, withoutSecrets } from './connection-errors.js';

const URL_WITH_SECRET = 'postgres://vigil:s%40cret-Pa55@db.internal:6543/vigil_prod?sslmode=require';

describe('naming the database without its password', () => {
  it.each([
    [URL_WITH_SECRET, 'db.internal:6543/vigil_prod'],
    ['postgres://vigil@127.0.0.1/vigil', '127.0.0.1:5432/vigil'],
    ['postgresql://u:p@[::1]:5433/app', '[::1]:5433/app'],
    ['postgres:///app?host=/var/run/postgresql', '/var/run/postgresql:5432/app'],
    ['postgres://alice@localhost', 'localhost:5432/alice'],
    ['not a url: password=hunter2', 'the configured PostgreSQL server'],
  ])('describes %s as %s', (url, target) => {
    expect(describeTarget(url)).toBe(target);
  });

  it('redacts the password of the authority and of a password= parameter', () => {
    expect(redactUrl(URL_WITH_SECRET)).toBe('postgres://vigil:***@db.internal:6543/vigil_prod?sslmode=require');
    expect(redactUrl('postgres://vigil@h/db?password=x%20y&sslmode=require')).toBe('postgres://vigil@h/db?password=***&sslmode=require');
    expect(redactUrl('postgres://h/db')).toBe('postgres://h/db');
  });

  it('masks the password in any text, as written in the URL and decoded, and the URL itself', () => {
    const text = `failed for ${URL_WITH_SECRET}: bad s@cret-Pa55 and s%40cret-Pa55`;
    expect(withoutSecrets(text, URL_WITH_SECRET)).toBe('failed for postgres://vigil:***@db.internal:6543/vigil_prod?sslmode=require: bad *** and ***');
  });
});

describe('telling the database being away from other failures', () => {
  const context = { connectionString: URL_WITH_SECRET, target: 'db.internal:6543/vigil_prod', statementTimeoutMs: 30_000 };
  const withCode = (message: string, code: string) => Object.assign(new Error(message), { code });

  it.each([
    ['a refused connection', withCode('connect ECONNREFUSED 10.0.0.5:6543', 'ECONNREFUSED')],
    ['a fast shutdown', withCode('terminating connection due to administrator command', '57P01')],
    ['a server starting up', withCode('the database system is starting up', '57P03')],
    ['a connection exception', withCode('connection failure', '08006')],
    ['a connection that ended', new Error('Connection terminated unexpectedly')],
    ['a pool that could not connect in time', new Error('timeout exceeded when trying to connect')],
  ])('%s is the database being away, told with its target', (_name, error) => {
    expect(isUnavailable(error)).toBe(true);
    const translated = translateError(error, context) as PostgresUnavailableError;
    expect(translated).toBeInstanceOf(PostgresUnavailableError);
    expect(translated.message).toBe(`PostgreSQL at db.internal:6543/vigil_prod is unavailable: ${error.message}`);
    expect(translated.code).toBe((error as { code?: string }).code);
    expect(translated.cause).toBe(error);
  });

  it.each([
    ['a refused login', withCode('password authentication failed for user "vigil"', '28P01')],
    ['a missing database', withCode('database "nope" does not exist', '3D000')],
    ['a unique violation', withCode('duplicate key value violates unique constraint', '23505')],
    ['a cancelled statement', withCode('canceling statement due to user request', '57014')],
  ])('%s is not, and passes through untouched', (_name, error) => {
    expect(isUnavailable(error)).toBe(false);
    expect(translateError(error, context)).toBe(error);
  });

  it('tells a statement timeout with the timeout it hit', () => {
    const error = translateError(withCode('canceling statement due to statement timeout', '57014'), context);
    expect(error).toBeInstanceOf(PostgresStatementTimeoutError);
    expect((error as Error).message).toBe('PostgreSQL at db.internal:6543/vigil_prod cancelled a statement that ran longer than 30000 ms (statement_timeout)');
    expect((error as PostgresStatementTimeoutError).code).toBe('57014');
  });

  it('names an AggregateError (every address of a name refused) by its first error', () => {
    const error = Object.assign(new AggregateError([withCode('connect ECONNREFUSED ::1:5432', 'ECONNREFUSED')], ''), { code: 'ECONNREFUSED' });
    expect((translateError(error, context) as Error).message).toBe('PostgreSQL at db.internal:6543/vigil_prod is unavailable: connect ECONNREFUSED ::1:5432');
  });
});

describe('the wait between tries at start', () => {
  it('doubles from the first delay, stays under the cap, and jitters between half and all of it', () => {
    const delays = (random: number) => [1, 2, 3, 4, 5, 6, 40].map((attempt) => retryDelayMs(attempt, { firstDelayMs: 250, maxDelayMs: 3000, random }));
    expect(delays(0)).toEqual([125, 250, 500, 1000, 1500, 1500, 1500]);
    expect(delays(0.999_999)).toEqual([250, 500, 1000, 2000, 3000, 3000, 3000]);
  });
});
