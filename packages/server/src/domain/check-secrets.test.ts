/**
 * The checks' `has_secret` column (migration 5): backfilled on upgrade, kept right through create,
 * PUT and merge, and what lets a list page be serialised by SQLite without hiding anything it must.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createApp, type SqliteServiceApp } from '../app.js';
import { openDatabase } from '../store/database.js';
import { migrateSqlite } from '../store/sqlite/migrations/index.js';
import { multiStepCheckBody } from '../test-support.js';

const API_KEY = 'k';
const dirs: string[] = [];
const apps: SqliteServiceApp[] = [];
function tempDir(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'vigil-secrets-'));
  dirs.push(dir);
  return dir;
}
function open(dataDir: string, checkResponses = true): SqliteServiceApp {
  const service = createApp({ dataDir, accounts: [{ apiKey: API_KEY, accountId: 'acme' }], checkResponses });
  apps.push(service);
  return service;
}
afterEach(() => {
  for (const service of apps.splice(0)) service.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function call(service: SqliteServiceApp, method: string, url: string, body?: unknown): Promise<{ status: number; text: string; headers: Headers }> {
  const response = await service.app.request(url, {
    method,
    headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, text: await response.text(), headers: response.headers };
}

function flags(service: SqliteServiceApp): Record<string, number> {
  const rows = service.store.db.prepare('SELECT id, has_secret FROM checks ORDER BY seq').all() as Array<{ id: string; has_secret: number }>;
  return Object.fromEntries(rows.map((row) => [row.id, row.has_secret]));
}

const secretVariable = { key: 'TOKEN', value: 's3cret', locked: true, secret: true };
const plainVariable = { key: 'REGION', value: 'eu', locked: false, secret: false };

describe('has_secret', () => {
  it('is backfilled when a database made before migration 5 is opened', async () => {
    const dir = tempDir();
    const db = openDatabase({ dir });
    migrateSqlite(db, { through: 4 });
    const insert = db.prepare('INSERT INTO checks (account_id, id, doc, check_type) VALUES (?, ?, ?, ?)');
    const doc = (id: string, environmentVariables: unknown) =>
      JSON.stringify({ id, name: id, checkType: 'API', environmentVariables, alertChannelSubscriptions: [] });
    insert.run('acme', 'a', doc('a', [plainVariable, secretVariable]), 'API');
    insert.run('acme', 'b', doc('b', [plainVariable]), 'API');
    insert.run('acme', 'c', doc('c', null), 'API');
    // Not an array, so nothing is hidden and the flag stays off.
    insert.run('acme', 'd', doc('d', { TOKEN: { secret: true } }), 'API');
    db.close();

    // The hand-written documents are not full checks, so responses are not checked against the schema.
    const service = open(dir, false);
    expect(flags(service)).toEqual({ a: 1, b: 0, c: 0, d: 0 });
    const list = await call(service, 'GET', '/v1/checks?limit=10');
    expect(list.status).toBe(200);
    const items = JSON.parse(list.text) as Array<{ id: string; environmentVariables: unknown }>;
    expect(items.map((item) => item.id)).toEqual(['a', 'b', 'c', 'd']);
    expect(items[0]!.environmentVariables).toEqual([plainVariable, { ...secretVariable, value: null }]);
  });

  it('follows create, PUT and merge, and lists hide secret values', async () => {
    const service = open(tempDir());
    const created = await call(service, 'POST', '/v1/checks/multistep', multiStepCheckBody({ environmentVariables: [secretVariable] }));
    expect(created.status).toBe(201);
    const id = (JSON.parse(created.text) as { id: string }).id;
    expect(flags(service)[id]).toBe(1);

    // A PUT without environmentVariables keeps the stored ones, so the flag stays.
    expect((await call(service, 'PUT', `/v1/checks/multistep/${id}`, { name: 'renamed' })).status).toBe(200);
    expect(flags(service)[id]).toBe(1);
    let list = JSON.parse((await call(service, 'GET', '/v1/checks')).text) as Array<{ name: string; environmentVariables: unknown }>;
    expect(list[0]).toMatchObject({ name: 'renamed', environmentVariables: [{ ...secretVariable, value: null }] });

    expect((await call(service, 'PUT', `/v1/checks/multistep/${id}`, { environmentVariables: [plainVariable] })).status).toBe(200);
    expect(flags(service)[id]).toBe(0);
    list = JSON.parse((await call(service, 'GET', '/v1/checks')).text) as Array<{ name: string; environmentVariables: unknown }>;
    expect(list[0]!.environmentVariables).toEqual([plainVariable]);

    expect((await call(service, 'PUT', `/v1/checks/multistep/${id}`, { environmentVariables: [plainVariable, secretVariable] })).status).toBe(200);
    expect(flags(service)[id]).toBe(1);
  });

  it('lists pages byte for byte as the checks read one by one, with and without secrets', async () => {
    const service = open(tempDir());
    const ids: string[] = [];
    for (let index = 0; index < 7; index += 1) {
      const environmentVariables = index === 1 ? [secretVariable] : [plainVariable];
      const created = await call(service, 'POST', '/v1/checks/multistep', multiStepCheckBody({ name: `check ${index} é`, environmentVariables }));
      ids.push((JSON.parse(created.text) as { id: string }).id);
    }
    // Page 1 holds the check with a secret (presented in JS); pages 2 and 3 are serialised by SQLite.
    for (const [page, expected] of [
      [1, ids.slice(0, 3)],
      [2, ids.slice(3, 6)],
      [3, ids.slice(6)],
      [4, []],
    ] as const) {
      const list = await call(service, 'GET', `/v1/checks?limit=3&page=${page}`);
      const singles = await Promise.all(expected.map(async (id) => (await call(service, 'GET', `/v1/checks/${id}`)).text));
      expect(list.text).toBe(`[${singles.join(',')}]`);
      expect(list.headers.get('content-range')).toBe(expected.length > 0 ? `${(page - 1) * 3}-${(page - 1) * 3 + expected.length - 1}/7` : '*/7');
    }
  });
});
