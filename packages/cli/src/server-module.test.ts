import { describe, expect, it } from 'vitest';
import { CliError } from './errors.js';
import { loadServer, missingSqliteMessage } from './server-module.js';

function moduleNotFound(message: string): Error {
  return Object.assign(new Error(message), { code: 'ERR_MODULE_NOT_FOUND' });
}

describe('loadServer', () => {
  it('says how to get better-sqlite3 when it is not installed', async () => {
    const missing = moduleNotFound("Cannot find package 'better-sqlite3' imported from /p/node_modules/@vigil-mon/cli/dist/src-X.mjs");
    const failed = loadServer({}, () => Promise.reject(missing));
    await expect(failed).rejects.toBeInstanceOf(CliError);
    await expect(failed).rejects.toThrow(
      'vigil server and the embedded local service (plan, apply and the other commands without VIGIL_API_URL) store their data with better-sqlite3, which is not installed\n' +
        'hint: npm install -D better-sqlite3@^12.4.1 (it downloads a prebuilt binary, or compiles one with python3, make and a C++ compiler), ' +
        'or set VIGIL_API_URL (and VIGIL_API_KEY) to a running service',
    );
    expect(missingSqliteMessage()).toContain('better-sqlite3@^12.4.1');
  });

  it('lets any other failure through as it is', async () => {
    const other = moduleNotFound("Cannot find package 'hono' imported from /p/dist/src-X.mjs");
    await expect(loadServer({}, () => Promise.reject(other))).rejects.toBe(other);
  });

  it('stops before loading the server when better-sqlite3 cannot be found, unless the service is on PostgreSQL', async () => {
    const notFound = Object.assign(new Error("Cannot find module 'better-sqlite3'"), { code: 'MODULE_NOT_FOUND' });
    const findSqlite = () => {
      throw notFound;
    };
    let imported = 0;
    const importServer = async () => {
      imported += 1;
      return {} as Awaited<ReturnType<typeof loadServer>>;
    };
    await expect(loadServer({}, importServer, findSqlite)).rejects.toThrow(missingSqliteMessage());
    expect(imported).toBe(0);
    await loadServer({ sqlite: false }, importServer, findSqlite);
    expect(imported).toBe(1);
  });

  it('loads the server where better-sqlite3 is installed', async () => {
    expect(typeof (await loadServer()).startServer).toBe('function');
  });
});
