/**
 * `vigil server migrate-data` end to end: a real `vigil server --data DIR` filled through its API (a
 * group, an alert channel, a status-page service, checks, a status page, an incident, a maintenance
 * window, and results of real runs against a loopback HTTP target) and stopped; its data copied by the
 * real CLI into an embedded PostgreSQL database; then every kind read back through the PostgreSQL
 * ports and compared with what the SQLite ports return from the source. And every bad input, with
 * the exact error it gets.
 */
import type { ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../packages/server/src/store/database.js';
import { Store } from '../../packages/server/src/store/index.js';
import type { StoragePorts } from '../../packages/server/src/store/ports.js';
import { DOCUMENT_KINDS } from '../../packages/server/src/store/document-ports.js';
import { openPostgresPorts } from '../../packages/server/src/store/postgres/index.js';
import { sqlitePorts } from '../../packages/server/src/store/sqlite/index.js';
import { startVigilServer, vigil, waitFor } from '../support/cli.js';
import { useTestPostgres } from '../support/postgres.js';

const ACCOUNT = 'local';
const postgres = useTestPostgres();
let target: Server;
let workdir: string;
let dataDir: string;
let service: ChildProcess | undefined;
const created: { checks: string[]; incident?: string } = { checks: [] };

async function api<T>(base: string, method: string, route: string, body?: unknown): Promise<T> {
  const response = await fetch(`${base}${route}`, {
    method,
    headers: { authorization: 'Bearer vigil-local', 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  if (response.status >= 300) throw new Error(`${method} ${route} answered ${response.status}: ${text}`);
  return JSON.parse(text) as T;
}

function migrate(...args: string[]) {
  return vigil(['server', 'migrate-data', ...args], { cwd: workdir });
}

async function sha256(file: string): Promise<string> {
  return createHash('sha256').update(await readFile(file)).digest('hex');
}

/** A loopback port nothing listens on (bound, then released). */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

beforeAll(async () => {
  target = createServer((_request, response) => response.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}'));
  await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
  const targetUrl = `http://127.0.0.1:${(target.address() as AddressInfo).port}/health`;
  workdir = await mkdtemp(path.join(tmpdir(), 'vigil-migrate-'));
  dataDir = path.join(workdir, 'data');
  const started = await startVigilServer(['--data', dataDir]);
  service = started.child;
  const base = started.url;
  const group = await api<{ id: number }>(base, 'POST', '/v2/check-groups', { name: 'Web', locations: ['eu-west-1'] });
  const channel = await api<{ id: number }>(base, 'POST', '/v1/alert-channels', { type: 'EMAIL', config: { address: 'ops@example.com' } });
  const serviceDoc = await api<{ id: string }>(base, 'POST', '/v1/status-pages/services', { name: 'Website' });
  for (const name of ['Homepage', 'Health']) {
    const check = await api<{ id: string }>(base, 'POST', '/v1/checks/api', {
      name,
      frequency: 0,
      frequencyOffset: 10,
      locations: ['eu-west-1'],
      groupId: group.id,
      alertChannelSubscriptions: [{ alertChannelId: channel.id, activated: true }],
      request: { url: targetUrl },
    });
    created.checks.push(check.id);
  }
  await api(base, 'POST', '/v1/status-pages', { name: 'Acme status', url: 'acme-migrate', cards: [{ name: 'Web', services: [{ id: serviceDoc.id }] }] });
  const incident = await api<{ id: string }>(base, 'POST', '/v1/status-pages/incidents', {
    name: 'Website slow',
    severity: 'MINOR',
    services: [{ id: serviceDoc.id }],
    incidentUpdates: [{ description: 'Looking into it.', status: 'INVESTIGATING' }],
  });
  created.incident = incident.id;
  await api(base, 'POST', '/v1/maintenance-windows', { name: 'Upgrade', tags: ['db'], startsAt: '2030-01-01T00:00:00.000Z', endsAt: '2030-01-01T01:00:00.000Z', repeatUnit: 'DAY' });
  for (const checkId of created.checks) {
    await waitFor(`two results of check ${checkId}`, async () => {
      const results = await api<unknown[]>(base, 'GET', `/v1/check-results/${checkId}?limit=10`);
      return results.length >= 2 ? true : undefined;
    });
  }
  const exited = new Promise((resolve) => service!.once('exit', resolve));
  service.kill('SIGTERM');
  await exited;
  service = undefined;
});

afterAll(async () => {
  service?.kill('SIGKILL');
  await new Promise<void>((resolve) => target?.close(() => resolve()));
  if (workdir) await rm(workdir, { recursive: true, force: true });
});

async function readAll(ports: StoragePorts, checkIds: readonly string[], incidentId: string) {
  const documents: Record<string, unknown> = {};
  for (const kind of DOCUMENT_KINDS) documents[kind] = await ports.documents.page(kind, ACCOUNT, { page: 1, limit: 100 });
  const perCheck: Record<string, unknown> = {};
  for (const checkId of checkIds) {
    const results = await ports.checkResults.newestFirst(ACCOUNT, checkId, { limit: 1000 });
    perCheck[checkId] = {
      results,
      found: await ports.checkResults.find(ACCOUNT, checkId, results[0]!.id),
      hourly: await ports.checkResults.rollups(ACCOUNT, checkId, 'hourly', 0, Date.now() + 3_600_000),
      daily: await ports.checkResults.rollups(ACCOUNT, checkId, 'daily', 0, Date.now() + 86_400_000),
      status: await ports.checkStatuses.find(ACCOUNT, checkId),
      errors: await ports.errorGroups.ofCheck(ACCOUNT, checkId, { page: 1, limit: 100 }),
      alertState: (await ports.alertStates.read(ACCOUNT, checkId))?.state,
      subscriptions: await ports.alertSubscriptions.ofOwners(ACCOUNT, 'check', [checkId]),
    };
  }
  const pages = await ports.statusPages.pageAfter(ACCOUNT, 0, 100);
  return {
    documents,
    perCheck,
    pages,
    showing: await ports.statusPages.showingService(ACCOUNT, (pages[0]!.page['cards'] as Array<{ services: Array<{ id: string }> }>)[0]!.services[0]!.id),
    incidents: await ports.incidents.pageBefore(ACCOUNT, Number.MAX_SAFE_INTEGER, 100),
    incident: await ports.incidents.get(ACCOUNT, incidentId),
    statuses: await ports.checkStatuses.list(ACCOUNT),
  };
}

describe('vigil server migrate-data', () => {
  it('copies a server filled through the API into PostgreSQL, where the ports read back what SQLite returns', async () => {
    const file = path.join(dataDir, 'vigil.db');
    const before = await sha256(file);
    const url = await postgres.freshDatabase();
    const run = await migrate('--from', dataDir, '--to', url);
    expect(run.stderr).not.toContain('Error');
    expect(run.code).toBe(0);
    const password = new URL(url).password;
    if (password) expect(run.stdout + run.stderr).not.toContain(password);
    expect(run.stdout).toMatch(/^copied into 127\.0\.0\.1:\d+\/test_\d+ in [\d.]+ s; rows of each kind:$/m);
    expect(run.stdout).toMatch(/^ {2}checks +2 +2$/m);
    expect(run.stdout).toMatch(/^ {2}check_groups +1 +1$/m);
    expect(run.stdout).toMatch(/^ {2}status pages +1 +1$/m);
    expect(run.stdout).toMatch(/^ {2}incidents +1 +1$/m);
    // The service keeps its id (clients' state names the service by it) and its link-signing key.
    expect(run.stdout).toMatch(/^ {2}service id +1 +1$/m);
    expect(run.stdout).toMatch(/^ {2}service secrets +1 +1$/m);
    expect(run.stdout).toMatch(/^results: [\d,]+ rows in [\d.]+ s \([\d,]+ rows\/s\)$/m);
    // The source is read, never written.
    expect(await sha256(file)).toBe(before);

    const sqlite = sqlitePorts(new Store({ file }));
    const pg = await openPostgresPorts({ connectionString: url });
    try {
      const fromSqlite = await readAll(sqlite, created.checks, created.incident!);
      const fromPostgres = await readAll(pg, created.checks, created.incident!);
      for (const checkId of created.checks) expect((fromSqlite.perCheck[checkId] as { results: unknown[] }).results.length).toBeGreaterThanOrEqual(2);
      expect(fromPostgres).toEqual(fromSqlite);

      // New ids continue after the copied ones: the next group is not the copied group's id again.
      const group = (fromSqlite.documents['check_groups'] as { items: Array<{ id: number }> }).items[0]!;
      const next = await pg.documents.insert('check_groups', ACCOUNT, (id) => ({ id, name: 'After the move' }));
      expect(next.id).toBe(group.id + 1);
      // And so do appended results and ordered rows: a new result of a copied check reads first.
      const [first] = created.checks;
      const newest = (fromSqlite.perCheck[first!] as { results: Array<Record<string, unknown>> }).results[0]!;
      const later = new Date(Date.parse(newest['created_at'] as string) + 1000).toISOString();
      const [appended] = await pg.checkResults.appendRun(ACCOUNT, [{ ...newest, id: 'after-the-move', created_at: later } as never]);
      expect((await pg.checkResults.newestFirst(ACCOUNT, first!, { limit: 1 }))[0]!.id).toBe(appended!.id);
    } finally {
      await sqlite.close();
      await pg.close();
    }
  });

  it('refuses a target that already holds data, naming what it holds', async () => {
    const url = await postgres.freshDatabase();
    const pg = await openPostgresPorts({ connectionString: url });
    await pg.documents.insert('checks', ACCOUNT, (id) => ({ id, name: 'Already here', checkType: 'API' }));
    await pg.close();
    const run = await migrate('--from', dataDir, '--to', url);
    expect(run.code).toBe(1);
    const where = `${new URL(url).hostname}:${new URL(url).port}${new URL(url).pathname}`;
    expect(run.stderr).toBe(
      `Error: the target database ${where} already holds data: checks (1 row); migrate-data copies into an empty database only (create a new one, or drop and re-create this one)\n`,
    );
  });

  it('refuses a source holding rows of a kind it does not know, copying nothing', async () => {
    const file = path.join(workdir, 'uncopyable.db');
    await copyFile(path.join(dataDir, 'vigil.db'), file);
    const db = openDatabase({ file });
    // A table a later vigil might add: rows of no kind the copy knows are never dropped silently.
    db.exec("CREATE TABLE future_things (id TEXT); INSERT INTO future_things VALUES ('a'), ('b')");
    db.close();
    const url = await postgres.freshDatabase();
    const run = await migrate('--from', file, '--to', url);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      `Error: cannot migrate ${file}: the PostgreSQL schema of this vigil has no table yet for future_things (2 rows); nothing was copied (delete those rows, or wait for a vigil that can copy them)\n`,
    );
  });

  it('needs --from', async () => {
    const run = await migrate('--to', 'postgres://vigil:s3cret@127.0.0.1:5432/vigil');
    expect(run.code).toBe(2);
    expect(run.stderr).toBe('Error: vigil server migrate-data needs --from DIR: the --data directory of the server to copy (or its vigil.db)\n');
  });

  it('needs --to or VIGIL_DATABASE_URL', async () => {
    const run = await migrate('--from', dataDir);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe('Error: vigil server migrate-data needs --to postgres://user:password@host:port/database (or VIGIL_DATABASE_URL)\n');
  });

  it('refuses a --from that does not exist, has no vigil.db, or is no database', async () => {
    const url = 'postgres://vigil:s3cret@127.0.0.1:5432/vigil';
    const missing = path.join(workdir, 'missing');
    expect(await migrate('--from', missing, '--to', url)).toMatchObject({ code: 1, stderr: `Error: --from ${missing}: no such directory or file\n` });
    const empty = path.join(workdir, 'empty');
    await mkdir(empty);
    expect(await migrate('--from', empty, '--to', url)).toMatchObject({
      code: 1,
      stderr: `Error: --from ${empty}: no vigil.db in it (give the --data directory of a vigil server, or its vigil.db file)\n`,
    });
    const notDatabase = path.join(workdir, 'notes.txt');
    await writeFile(notDatabase, 'these are not the rows you are looking for\n'.repeat(200));
    expect(await migrate('--from', notDatabase, '--to', url)).toMatchObject({
      code: 1,
      stderr: `Error: --from ${notDatabase}: cannot read it as a SQLite database: file is not a database\n`,
    });
  });

  it('refuses a --to that is not a PostgreSQL URL without echoing it', async () => {
    const run = await migrate('--from', dataDir, '--to', 'mysql://vigil:s3cret@127.0.0.1/vigil');
    expect(run.code).toBe(2);
    expect(run.stderr).toBe('Error: --to must be a PostgreSQL URL: postgres://user:password@host:port/database\n');
  });

  it('names an unreachable database by host:port/database, without its password', async () => {
    const port = await closedPort();
    const run = await vigil(['server', 'migrate-data', '--from', dataDir], { cwd: workdir, env: { VIGIL_DATABASE_URL: `postgres://vigil:s3cret@127.0.0.1:${port}/vigil` } });
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(`Error: cannot connect to PostgreSQL at 127.0.0.1:${port}/vigil: connect ECONNREFUSED 127.0.0.1:${port}\n`);
    expect(run.stdout + run.stderr).not.toContain('s3cret');
  });
});
