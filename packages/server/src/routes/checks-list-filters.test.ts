/** `GET /v1/checks?status=…` and `?apiCheckUrlFilterPattern=…`, as the real document has them. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Store } from '../store/index.js';
import { sqlitePorts } from '../store/sqlite/index.js';
import { TEST_ACCOUNT, startTestServer, type TestApi } from '../test-support.js';

const dir = mkdtempSync(path.join(tmpdir(), 'vigil-checks-filters-'));
const databaseFile = path.join(dir, 'vigil.db');
const idsByName = new Map<string, string>();

type LastRun = { hasFailures: boolean; hasErrors?: boolean; isDegraded?: boolean };
async function recordStatus(store: Store, name: string, last: LastRun): Promise<void> {
  await sqlitePorts(store).checkStatuses.record(TEST_ACCOUNT, {
    name, checkId: idsByName.get(name)!, hasFailures: last.hasFailures, hasErrors: last.hasErrors ?? false, isDegraded: last.isDegraded ?? false,
    responseTime: 10, runLocation: 'eu-west-1', checkRunId: 1, stoppedAt: '2026-01-05T10:00:00.000Z',
  });
}

beforeAll(async () => {
  const store = new Store({ file: databaseFile });
  const check = async (name: string, extra: Record<string, unknown>, last?: LastRun) => {
    const doc = store.checks.insert(TEST_ACCOUNT, (id) => ({ id, name, activated: true, muted: false, frequency: 10, created_at: '2026-01-05T09:00:00.000Z', updated_at: null, ...extra }));
    idsByName.set(name, String(doc.id));
    if (last) await recordStatus(store, name, last);
  };
  const apiCheck = (url: string) => ({ checkType: 'API', request: { method: 'GET', url } });
  await check('Shop API', apiCheck('https://shop.Example.com/health'), { hasFailures: false });
  await check('Shop checkout', apiCheck('https://shop.example.com/checkout'), { hasFailures: true });
  await check('Blog', apiCheck('https://blog.example.org/'), { hasFailures: false, isDegraded: true });
  await check('Broken script', apiCheck('https://api.example.net/'), { hasFailures: false, hasErrors: true });
  await check('Shop page', { checkType: 'URL', request: { url: 'https://shop.example.com/' } }, { hasFailures: false });
  await check('Never ran', apiCheck('https://shop.example.com/new'));
  store.close();
  apiRef = await startTestServer({ databaseFile });
});
let apiRef: TestApi;
afterAll(async () => {
  await apiRef?.close();
  rmSync(dir, { recursive: true, force: true });
});

const names = async (query: string) => {
  const reply = await apiRef.get(`/v1/checks?limit=100&${query}`);
  expect(reply.status).toBe(200);
  return (reply.body as Array<{ name: string }>).map((check) => check.name);
};

describe('GET /v1/checks filters', () => {
  it.each([
    ['status=failing', ['Shop checkout', 'Broken script']],
    ['status=degraded', ['Blog']],
    ['status=passing', ['Shop API', 'Shop page']],
    ['apiCheckUrlFilterPattern=shop.example.com', ['Shop API', 'Shop checkout', 'Never ran']],
    ['apiCheckUrlFilterPattern=shop.example.com&status=passing', ['Shop API']],
  ])('%s', async (query, expected) => {
    expect(await names(query)).toEqual(expected);
  });

  it('counts only the matching checks in content-range', async () => {
    const reply = await apiRef.get('/v1/checks?status=failing');
    expect(reply.headers.get('content-range')).toBe('0-1/2');
  });

  it('follows a status that changed after the last list, though no check was written', async () => {
    expect(await names('status=degraded')).toEqual(['Blog']);
    const store = new Store({ file: databaseFile });
    try {
      recordStatus(store, 'Blog', { hasFailures: false });
      expect(await names('status=degraded')).toEqual([]);
      expect(await names('status=passing')).toEqual(['Shop API', 'Blog', 'Shop page']);
      expect((await apiRef.get('/v1/checks?status=passing')).headers.get('content-range')).toBe('0-2/3');
    } finally {
      recordStatus(store, 'Blog', { hasFailures: false, isDegraded: true });
      store.close();
    }
  });

  it('refuses an unknown status, naming it', async () => {
    const reply = await apiRef.get('/v1/checks?status=broken');
    expect(reply.status).toBe(400);
    expect(reply.body).toMatchObject({ message: '"status" must be one of [passing, failing, degraded]', validation: { source: 'query', keys: ['status'] } });
  });
});
