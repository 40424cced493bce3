/**
 * PostgreSQL that is down at start, goes away while in use, or runs a statement too long: the
 * service waits for it, never crashes, fails queries with an error naming it (never its password),
 * and carries on once it is back. One cluster of this file's own, stopped and started again on its
 * port (test-database.ts's cluster cannot be stopped under other tests).
 */
import { execFile } from 'node:child_process';
import { chmod, chown, mkdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openPostgres, type PostgresOptions } from './database.js';
import { PostgresHealth } from './health.js';
import { freePort, serverUser, startEmbeddedPostgres, type RunningPostgres } from './embedded.js';
import { openPostgresPorts } from './index.js';

const run = promisify(execFile);
let dir = '';
let port = 0;
let server: RunningPostgres | undefined;
const open: Array<{ close(): Promise<void> }> = [];

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'vigil-pg-resilience-'));
  port = await freePort();
});
afterEach(async () => {
  await Promise.all(open.splice(0).map((item) => item.close()));
});
afterAll(async () => {
  try {
    await server?.stop();
  } finally {
    if (dir) await rm(dir, { recursive: true, force: true });
  }
});

/** Starts this file's cluster on its port, unless it runs already. */
async function started(): Promise<RunningPostgres> {
  server ??= await startEmbeddedPostgres({ dir, port, durable: false });
  return server;
}

async function stopped(): Promise<void> {
  const running = server;
  server = undefined;
  await running?.stop();
}

/** Warnings in order, and a wait for the first one matching a pattern (named by it). */
function warnings() {
  const lines: string[] = [];
  const waiters: Array<{ pattern: RegExp; resolve: (line: string) => void }> = [];
  return {
    lines,
    warn(line: string) {
      lines.push(line);
      for (const waiter of waiters.splice(0)) {
        if (waiter.pattern.test(line)) waiter.resolve(line);
        else waiters.push(waiter);
      }
    },
    warned(pattern: RegExp): Promise<string> {
      const seen = lines.find((line) => pattern.test(line));
      return seen !== undefined ? Promise.resolve(seen) : new Promise((resolve) => waiters.push({ pattern, resolve }));
    },
  };
}

/** The cluster's URL with a password that is not the superuser's, to show a password is never printed. */
function urlWithPassword(password: string, database = 'postgres'): string {
  return `postgres://vigil:${encodeURIComponent(password)}@127.0.0.1:${port}/${database}`;
}

async function ports(options: Partial<PostgresOptions> & { connectionString: string }) {
  const opened = await openPostgresPorts(options);
  open.push(opened);
  return opened;
}

describe('a database that is down at start', () => {
  it('is tried again with backoff, a warning per try, and then refused with an error naming host:port/database only', async () => {
    const log = warnings();
    const secret = 'n0t-Printed!';
    const opening = openPostgresPorts({ connectionString: urlWithPassword(secret, 'vigil'), warn: log.warn, connectRetry: { attempts: 3, firstDelayMs: 20, random: () => 0 } });
    const refused = `connect ECONNREFUSED 127.0.0.1:${port}`;
    await expect(opening).rejects.toThrow(new Error(`PostgreSQL at 127.0.0.1:${port}/vigil is unavailable: ${refused} (gave up after 3 attempts)`));
    expect(log.lines).toHaveLength(2);
    expect(log.lines[0]).toMatch(new RegExp(`^PostgreSQL at 127\\.0\\.0\\.1:${port}/vigil is unavailable: ${refused} \\(attempt 1 of 3\\); trying again in 10 ms, at \\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z$`));
    expect(log.lines[1]).toMatch(new RegExp(`\\(attempt 2 of 3\\); trying again in 20 ms, at `));
    expect(log.lines.join('\n')).not.toContain('n0t');
  });

  it('gives up at once when its signal aborts, saying after how many tries', async () => {
    const log = warnings();
    const abort = new AbortController();
    const opening = openPostgresPorts({ connectionString: urlWithPassword('x'), warn: log.warn, connectRetry: { attempts: 50, firstDelayMs: 60_000, signal: abort.signal } });
    await log.warned(/attempt 1 of 50/);
    abort.abort();
    await expect(opening).rejects.toThrow(new Error(`PostgreSQL at 127.0.0.1:${port}/postgres is unavailable: connect ECONNREFUSED 127.0.0.1:${port} (stopped waiting: aborted after 1 attempt)`));
  });

  it('opens the ports once the database comes up', async () => {
    await stopped();
    const log = warnings();
    // The superuser's password is made on the cluster's first start: start it once to learn it.
    const first = await started();
    const url = first.url();
    await stopped();
    const opening = openPostgresPorts({ connectionString: url, warn: log.warn, connectRetry: { attempts: 1000, firstDelayMs: 20, maxDelayMs: 100 } });
    await log.warned(/is unavailable: connect ECONNREFUSED .*\(attempt 1 of 1000\)/);
    await started();
    const opened = await opening;
    open.push(opened);
    expect(await opened.periodicJobs.tryRun('prune-results', 1000, 60_000, 'replica-a')).toBe(true);
    expect(await opened.health()).toEqual({ ok: true });
  });

  it('is not waited for when the login is refused, and the password tried is not printed', async () => {
    await started();
    const log = warnings();
    const opening = openPostgresPorts({ connectionString: urlWithPassword('wrong-Passw0rd'), warn: log.warn, connectRetry: { attempts: 5, firstDelayMs: 20 } });
    await expect(opening).rejects.toThrow(new Error(`could not connect to PostgreSQL at 127.0.0.1:${port}/postgres: password authentication failed for user "vigil"`));
    expect(log.lines).toEqual([]);
  });
});

describe('a database that goes away while in use', () => {
  it('fails queries with an error naming it, reports unhealthy since then, and serves again once it is back', async () => {
    const url = (await started()).url();
    const log = warnings();
    const opened = await ports({ connectionString: url, warn: log.warn, health: { cacheMs: 0 } });
    expect(await opened.periodicJobs.tryRun('job', 1000, 60_000, 'a')).toBe(true);
    await stopped();
    // The pool's idle connection was closed by the shutdown: reported, not thrown.
    await log.warned(new RegExp(`^an idle PostgreSQL connection to 127\\.0\\.0\\.1:${port}/postgres failed: terminating connection due to administrator command$`));
    const away = `PostgreSQL at 127.0.0.1:${port}/postgres is unavailable: connect ECONNREFUSED 127.0.0.1:${port}`;
    await expect(opened.periodicJobs.tryRun('job', 70_000, 60_000, 'a')).rejects.toMatchObject({ name: 'PostgresUnavailableError', message: away, code: 'ECONNREFUSED' });
    const unhealthy = await opened.health();
    expect(unhealthy).toEqual({ ok: false, error: away, since: expect.stringMatching(/^\d{4}-\d\d-\d\dT[\d:.]+Z$/) });
    expect((await opened.health()).since).toBe(unhealthy.since);
    await started();
    expect(await opened.periodicJobs.tryRun('job', 70_000, 60_000, 'a')).toBe(true);
    expect(await opened.health()).toEqual({ ok: true });
  });

  it('survives a connection in use being terminated: that connection fails, the next one works', async () => {
    const url = (await started()).url();
    const log = warnings();
    const { db, close } = openPostgres({ connectionString: url, warn: log.warn });
    open.push({ close });
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    open.push({ close: () => admin.end() });
    await db.connection().execute(async (connection) => {
      const { rows } = await sql<{ pid: number }>`SELECT pg_backend_pid() AS pid`.execute(connection);
      await admin.query('SELECT pg_terminate_backend($1)', [rows[0]!.pid]);
      // Checked out, so no listener of the pool's: without one of ours pg's 'error' would end the process.
      await log.warned(/^a PostgreSQL connection in use to .* failed: terminating connection due to administrator command$/);
      await expect(sql`SELECT 1`.execute(connection)).rejects.toMatchObject({
        name: 'PostgresUnavailableError',
        message: `PostgreSQL at 127.0.0.1:${port}/postgres is unavailable: Client has encountered a connection error and is not queryable`,
      });
    });
    const { rows } = await sql<{ one: number }>`SELECT 1 AS one`.execute(db);
    expect(rows).toEqual([{ one: 1 }]);
  });
});

describe('health', () => {
  it('is asked once for callers at the same time, and reused for its cache time', async () => {
    const { db, close } = openPostgres({ connectionString: (await started()).url() });
    open.push({ close });
    let now = 1_000_000;
    const health = new PostgresHealth(db, 'here', { cacheMs: 1000, now: () => now });
    const [first, second] = await Promise.all([health.check(), health.check()]);
    expect(first).toEqual({ ok: true });
    expect(second).toBe(first);
    now += 999;
    expect(await health.check()).toBe(first);
    now += 1;
    const third = await health.check();
    expect(third).toEqual({ ok: true });
    expect(third).not.toBe(first);
  });

  it('reports a database that does not answer in time (every connection busy) as unhealthy', async () => {
    const { db, close } = openPostgres({ connectionString: (await started()).url(), maxConnections: 1 });
    open.push({ close });
    const health = new PostgresHealth(db, `127.0.0.1:${port}/postgres`, { cacheMs: 0, timeoutMs: 50 });
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const holding = db.connection().execute(() => held);
    expect(await health.check()).toEqual({
      ok: false,
      error: `PostgreSQL at 127.0.0.1:${port}/postgres did not answer SELECT 1 within 50 ms`,
      since: expect.stringMatching(/Z$/),
    });
    release();
    await holding;
    expect(await health.check()).toEqual({ ok: true });
  });
});

describe('statement timeouts', () => {
  it('cancels a statement running longer than statement_timeout, with an error naming the timeout', async () => {
    const url = (await started()).url();
    const { db, close } = openPostgres({ connectionString: url, statementTimeoutMs: 150 });
    open.push({ close });
    await expect(sql`SELECT pg_sleep(30)`.execute(db)).rejects.toMatchObject({
      name: 'PostgresStatementTimeoutError',
      message: `PostgreSQL at 127.0.0.1:${port}/postgres cancelled a statement that ran longer than 150 ms (statement_timeout)`,
      code: '57014',
    });
    // The connection stays usable after the cancel.
    expect((await sql<{ statement_timeout: string }>`SHOW statement_timeout`.execute(db)).rows).toEqual([{ statement_timeout: '150ms' }]);
  });

  it('is 30 s unless configured', async () => {
    const { db, close } = openPostgres({ connectionString: (await started()).url() });
    open.push({ close });
    expect((await sql<{ statement_timeout: string }>`SHOW statement_timeout`.execute(db)).rows).toEqual([{ statement_timeout: '30s' }]);
  });
});

describe('TLS asked for in the URL', () => {
  it('reaches the driver: sslmode=require against a server without TLS is refused at once, not retried', async () => {
    const log = warnings();
    const url = `${(await started()).url()}?sslmode=require`;
    await expect(openPostgresPorts({ connectionString: url, warn: log.warn, connectRetry: { attempts: 5, firstDelayMs: 20 } })).rejects.toThrow(
      new Error(`could not connect to PostgreSQL at 127.0.0.1:${port}/postgres: The server does not support SSL connections`),
    );
    expect(log.lines).toEqual([]);
  });

  it('reads sslrootcert as a file of CA certificates', async () => {
    const url = `${(await started()).url()}?sslmode=require&sslrootcert=/nonexistent/vigil-ca.pem`;
    await expect(openPostgresPorts({ connectionString: url, connectRetry: { attempts: 5, firstDelayMs: 20 } })).rejects.toThrow(
      new Error(`could not connect to PostgreSQL at 127.0.0.1:${port}/postgres: ENOENT: no such file or directory, open '/nonexistent/vigil-ca.pem'`),
    );
  });
});

describe('TLS with a server that has it', () => {
  let tlsDir = '';
  let tls: RunningPostgres | undefined;
  let certificate = '';
  beforeAll(async () => {
    tlsDir = await mkdtemp(path.join(os.tmpdir(), 'vigil-pg-tls-'));
    await chmod(tlsDir, 0o711);
    // A self-signed certificate for 127.0.0.1, which is its own CA.
    const files = path.join(tlsDir, 'tls');
    await mkdir(files, { mode: 0o711 });
    certificate = path.join(files, 'server.crt');
    const key = path.join(files, 'server.key');
    await run('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', key, '-out', certificate]);
    await chmod(certificate, 0o644);
    await chmod(key, 0o600);
    const owner = await serverUser();
    if (owner) await chown(key, owner.uid, owner.gid);
    tls = await startEmbeddedPostgres({ dir: path.join(tlsDir, 'cluster'), port: 0, durable: false, settings: ['ssl=on', `ssl_cert_file=${certificate}`, `ssl_key_file=${key}`] });
  });
  afterAll(async () => {
    try {
      await tls?.stop();
    } finally {
      if (tlsDir) await rm(tlsDir, { recursive: true, force: true });
    }
  });

  it('connects encrypted, checking the server against sslrootcert', async () => {
    const opened = await ports({ connectionString: `${tls!.url()}?sslmode=verify-full&sslrootcert=${encodeURIComponent(certificate)}` });
    expect(await opened.periodicJobs.tryRun('job', 1000, 60_000, 'a')).toBe(true);
    const { db, close } = openPostgres({ connectionString: `${tls!.url()}?sslmode=verify-full&sslrootcert=${encodeURIComponent(certificate)}` });
    open.push({ close });
    const { rows } = await sql<{ ssl: boolean }>`SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()`.execute(db);
    expect(rows).toEqual([{ ssl: true }]);
  });

  it('refuses a server whose certificate it cannot check, at once', async () => {
    const log = warnings();
    await expect(openPostgresPorts({ connectionString: `${tls!.url()}?sslmode=verify-full`, warn: log.warn, connectRetry: { attempts: 5, firstDelayMs: 20 } })).rejects.toThrow(
      new Error(`could not connect to PostgreSQL at 127.0.0.1:${tls!.port}/postgres: self-signed certificate`),
    );
    expect(log.lines).toEqual([]);
  });
});
