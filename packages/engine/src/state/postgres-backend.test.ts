/**
 * The postgres backend against a real PostgreSQL (embedded, one cluster for this file, a fresh
 * database per test): the document and its journal steps round-trip, the advisory lock makes a
 * second backend wait or fail naming the holder, a forced unlock ends the holder's session so it can
 * no longer write, and the password is in no message.
 */
import { hostname, userInfo } from 'node:os';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { useTestPostgres } from '../../../../test/support/postgres.js';
import { emptyState } from './document.js';
import { isStateError, type StateError } from './errors.js';
import { beginOperation, newJournalEntry } from './journal.js';
import { ADVISORY_NAMESPACE, advisoryKey, createPostgresBackend, displayConnectionString, stateTableName } from './postgres-backend.js';
import type { StateDocument } from './types.js';

const postgres = useTestPostgres();
const TARGET = { baseUrl: 'http://127.0.0.1:4010', accountId: 'acc-1' };

async function caught(promise: Promise<unknown>): Promise<StateError> {
  try {
    await promise;
  } catch (error) {
    if (isStateError(error)) return error;
    throw error;
  }
  throw new Error('expected a StateError, but the call succeeded');
}

function withResource(document: StateDocument, index: number): StateDocument {
  return { ...document, resources: { ...document.resources, [`api-check.c${index}`]: { kind: 'api-check', remoteId: index, applied: {}, dependsOn: [] } } };
}

async function query<T extends pg.QueryResultRow>(url: string, text: string, values: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(text, values)).rows;
  } finally {
    await client.end();
  }
}

describe('stateTableName', () => {
  it('keeps a plain lower-case id and hashes anything else into a distinct, short identifier', () => {
    expect(stateTableName('shop')).toBe('vigil_state_shop');
    expect(stateTableName('shop_eu')).toBe('vigil_state_shop_eu');
    expect(stateTableName('shop-eu')).toMatch(/^vigil_state_shop_eu_[0-9a-f]{8}$/);
    expect(stateTableName('Shop/EU')).toMatch(/^vigil_state_shop_eu_[0-9a-f]{8}$/);
    expect(new Set(['shop-eu', 'shop.eu', 'Shop/EU', 'shop_eu'].map(stateTableName)).size).toBe(4);
    const long = stateTableName('x'.repeat(200));
    expect(long).toMatch(/^vigil_state_x{40}_[0-9a-f]{8}$/);
    expect(Buffer.byteLength(long)).toBeLessThanOrEqual(63);
  });

  it('shows a connection string without its password or query', () => {
    expect(displayConnectionString('postgres://ci:s3cret@db.example.com:5432/vigil?sslmode=require&sslpassword=x')).toBe('postgres://ci@db.example.com:5432/vigil');
    expect(() => displayConnectionString('mysql://db/vigil')).toThrow('the postgres state connection string must start with postgres://');
  });
});

describe('the postgres backend', () => {
  it('writes the document, appends journal steps as rows, replays them on read, and folds them into the next checkpoint', async () => {
    const url = await postgres.freshDatabase();
    const backend = createPostgresBackend({ connectionString: url, workspace: 'shop-eu' });
    expect(await backend.read()).toBeUndefined();
    const lock = await backend.lock({ timeoutMs: 0, command: 'vigil apply' });
    let document = withResource(emptyState({ project: 'shop', target: TARGET }), 1);
    await lock.write(document);
    expect(lock.serial).toBe(1);
    expect(lock.canAppendSteps).toBe(true);
    const entry = newJournalEntry({ operation: 'create', address: 'api-check.c2', kind: 'api-check', idempotencyKey: 'key-2' });
    await lock.appendSteps!([{ type: 'begin', entry }]);
    await lock.appendSteps!([{ type: 'complete', id: entry.id, address: 'api-check.c2', resource: { kind: 'api-check', remoteId: 2, applied: {}, dependsOn: [] } }]);
    expect(lock.serial).toBe(3);
    const table = stateTableName('shop-eu');
    expect(await query(url, `SELECT kind FROM "${table}" ORDER BY id`)).toEqual([{ kind: 'lock' }, { kind: 'document' }, { kind: 'step' }, { kind: 'step' }]);
    const replayed = await createPostgresBackend({ connectionString: url, workspace: 'shop-eu' }).read();
    expect(replayed).toMatchObject({ serial: 3, journal: [] });
    expect(Object.keys(replayed!.resources).sort()).toEqual(['api-check.c1', 'api-check.c2']);

    document = withResource(replayed!, 3);
    await lock.write(document);
    await lock.release();
    expect(await query(url, `SELECT kind, serial::int AS serial FROM "${table}" ORDER BY id`)).toEqual([{ kind: 'document', serial: 4 }]);
    expect(Object.keys((await backend.read())!.resources)).toHaveLength(3);
  }, 60_000);

  it('keeps an interrupted operation in the journal for the next apply', async () => {
    const url = await postgres.freshDatabase();
    const backend = createPostgresBackend({ connectionString: url, workspace: 'shop' });
    const lock = await backend.lock({ timeoutMs: 0, command: 'vigil apply' });
    const document = emptyState({ project: 'shop', target: TARGET });
    await lock.write(document);
    const entry = newJournalEntry({ operation: 'create', address: 'api-check.c9', kind: 'api-check', idempotencyKey: 'key-9' });
    await lock.appendSteps!([{ type: 'begin', entry }]);
    // The holder goes away without releasing: its session ends and PostgreSQL drops the lock.
    await query(url, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'vigil state'");
    const successor = createPostgresBackend({ connectionString: url, workspace: 'shop' });
    const next = await successor.lock({ timeoutMs: 10_000, command: 'vigil apply' });
    const read = await successor.read();
    expect(read?.journal).toEqual(beginOperation(structuredClone(document), entry).journal);
    expect(next.serial).toBe(2);
    await next.release();
  }, 60_000);

  it('makes a second backend fail naming the holder, or wait for it and say whom it waits for', async () => {
    const url = await postgres.freshDatabase();
    const first = createPostgresBackend({ connectionString: url, workspace: 'shop', unlockCommand: 'vigil state unlock --force' });
    const second = createPostgresBackend({ connectionString: url, workspace: 'shop', pollMs: 20 });
    const held = await first.lock({ timeoutMs: 0, command: 'vigil apply' });
    const holder = `pid ${process.pid} on ${hostname()} (user ${userInfo().username}, "vigil apply", since `;
    const location = `postgres state vigil_state_shop at ${displayConnectionString(url)}`;
    const refused = await caught(second.lock({ timeoutMs: 0, command: 'vigil plan' }));
    expect(refused.code).toBe('state-locked');
    expect(refused.message).toMatch(
      new RegExp(
        `^state ${location.replace(/[.]/g, '\\.')} is locked by ${holder.replace(/[().]/g, '\\$&')}[^)]+\\); retry when it is done, or wait for it with --lock-timeout \\(e\\.g\\. --lock-timeout 5m\\)\\. If that process is gone, remove the lock with: vigil state unlock --force$`,
      ),
    );
    expect((await second.lockHolder())?.description).toContain(holder);

    const waits: string[] = [];
    const waiting = second.lock({ timeoutMs: 30_000, command: 'vigil apply', onWait: (who) => waits.push(who.description) });
    while (waits.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    await held.release();
    const taken = await waiting;
    expect(waits).toHaveLength(1);
    expect(waits[0]).toContain(holder);
    await taken.release();
    expect(await first.lockHolder()).toBeUndefined();
  }, 60_000);

  it('refuses a document of another lineage and a checkpoint changed behind the lock', async () => {
    const url = await postgres.freshDatabase();
    const backend = createPostgresBackend({ connectionString: url, workspace: 'shop' });
    const lock = await backend.lock({ timeoutMs: 0, command: 'vigil apply' });
    const document = emptyState({ project: 'shop', target: TARGET });
    await lock.write(document);
    const location = backend.describe();
    const other = emptyState({ project: 'shop', target: TARGET });
    const mismatch = await caught(lock.write(other));
    expect(mismatch.message).toBe(
      `refusing to overwrite state ${location} (lineage ${document.lineage}) with a document of lineage ${other.lineage}: they belong to different projects or targets`,
    );
    await query(url, `UPDATE vigil_state_shop SET serial = 7 WHERE kind = 'document'`);
    const behind = await caught(lock.write(document));
    expect(behind.code).toBe('state-serial-stale');
    expect(behind.message).toBe(
      `refusing to write state ${location}: its stored checkpoint is serial 7, not the 1 this lock read, so something wrote it without the lock; not overwriting it`,
    );
    await lock.release();
  }, 60_000);

  it('breaks the lock by ending the holder\'s session, after which the old holder cannot write', async () => {
    const url = await postgres.freshDatabase();
    const holder = createPostgresBackend({ connectionString: url, workspace: 'shop' });
    const lock = await holder.lock({ timeoutMs: 0, command: 'vigil apply' });
    const document = emptyState({ project: 'shop', target: TARGET });
    await lock.write(document);
    const breaker = createPostgresBackend({ connectionString: url, workspace: 'shop' });
    const result = await breaker.forceUnlock();
    expect(result).toMatchObject({ removed: true, owner: { pid: process.pid, command: 'vigil apply' } });
    const lost = await caught(lock.write(withResource(document, 1)));
    expect(lost.code).toBe('state-locked');
    expect(lost.message).toBe(
      `lost the lock on state ${holder.describe()}: its PostgreSQL session ended (e.g. vigil state unlock --force terminated it, or the connection dropped); not writing, so whoever holds it now is not overwritten`,
    );
    await lock.release();
    expect(await breaker.forceUnlock()).toEqual({ removed: false });
    const again = await breaker.lock({ timeoutMs: 0, command: 'vigil apply' });
    expect(again.serial).toBe(1);
    await again.release();
  }, 60_000);

  it('names a session of another application that holds the lock, and does not end it', async () => {
    const url = await postgres.freshDatabase();
    const other = new pg.Client({ connectionString: url, application_name: 'reporting' });
    await other.connect();
    try {
      await other.query('SELECT pg_advisory_lock($1, $2)', [ADVISORY_NAMESPACE, advisoryKey('vigil_state_shop')]);
      const { rows } = await other.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      const pid = rows[0]!.pid;
      const backend = createPostgresBackend({ connectionString: url, workspace: 'shop' });
      const description = `PostgreSQL session ${pid} (user vigil, from 127.0.0.1/32, "reporting"), which names no vigil owner`;
      expect(await backend.lockHolder()).toEqual({ description });
      const refused = await caught(backend.lock({ timeoutMs: 0, command: 'vigil apply' }));
      expect(refused.message).toBe(
        `state ${backend.describe()} is locked by ${description}; retry when it is done, or wait for it with --lock-timeout (e.g. --lock-timeout 5m). If that process is gone, remove the lock with: vigil state unlock --force`,
      );
      const kept = await caught(backend.forceUnlock());
      expect(kept.message).toBe(
        `${backend.describe()} is locked by ${description}, which is not a vigil session; vigil does not end other applications' sessions. If it must go, end it yourself: SELECT pg_terminate_backend(${pid})`,
      );
      expect((await other.query<{ one: number }>('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
    } finally {
      await other.end();
    }
  }, 60_000);

  it('never names the password, also when it cannot connect', async () => {
    const url = new URL(await postgres.freshDatabase());
    url.password = 'wrong-password-8c1d';
    const backend = createPostgresBackend({ connectionString: url.href, workspace: 'shop' });
    const failed = await caught(backend.read());
    expect(failed.code).toBe('state-io');
    expect(failed.message).toBe(`cannot connect to postgres state vigil_state_shop at ${displayConnectionString(url.href)}: password authentication failed for user "vigil"`);
    expect(failed.message).not.toContain('wrong-password-8c1d');
    expect(backend.describe()).not.toContain('wrong-password-8c1d');
  }, 60_000);
});
