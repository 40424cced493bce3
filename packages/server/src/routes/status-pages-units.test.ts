/**
 * Status pages written as units of work over the status-page port: the Idempotency-Key rules of the
 * unit route, the public page rendered again after a write (through the API, or through the port of
 * another process on the same file), a deleted page's subscriptions going with it, and the cursor
 * kept across a delete.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Store } from '../store/index.js';
import type { StoragePorts } from '../store/ports.js';
import { sqlitePorts } from '../store/sqlite/index.js';
import { startTestServer, type TestApi } from '../test-support.js';

let dir: string;
let api: TestApi;
/** Another replica on the server's database file: its own connection, as another process has. */
let replica: StoragePorts;
let web: { id: string };
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'vigil-status-pages-'));
  const databaseFile = path.join(dir, 'vigil.db');
  api = await startTestServer({ databaseFile });
  replica = sqlitePorts(new Store({ file: databaseFile }));
  web = (await api.post('/v1/status-pages/services', { name: 'Web' })).body;
});
afterAll(async () => {
  await replica?.close();
  await api?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** The public page as a visitor's browser gets it (no API key). */
async function visit(url: string): Promise<{ status: number; text: string }> {
  const response = await fetch(`${api.server.url}/status/${url}`);
  return { status: response.status, text: await response.text() };
}

const page = (url: string, name: string) => ({ name, url, cards: [{ name: 'Everything', services: [{ id: web.id }] }] });

describe('Idempotency-Key on status pages', () => {
  it('replays a repeated create with the first response and creates one page', async () => {
    const first = await api.post('/v1/status-pages', page('once', 'Once'), { headers: { 'idempotency-key': 'page-1' } });
    const second = await api.post('/v1/status-pages', page('once', 'Once'), { headers: { 'idempotency-key': 'page-1' } });
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(second.body).toEqual(first.body);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    const urls = (await api.get('/v1/status-pages?limit=100')).body.entries.map((each: { url: string }) => each.url);
    expect(urls.filter((url: string) => url === 'once')).toHaveLength(1);
    await api.delete(`/v1/status-pages/${first.body.id}`);
  });
});

describe('the public page after a write', () => {
  it('shows a page created, renamed and deleted through the API at once, though a rendering of it was kept', async () => {
    const created = await api.post('/v1/status-pages', page('fresh', 'Fresh status'));
    expect((await visit('fresh')).text).toContain('Fresh status');
    await api.put(`/v1/status-pages/${created.body.id}`, page('fresh', 'Renamed status'));
    const renamed = await visit('fresh');
    expect(renamed.text).toContain('Renamed status');
    expect(renamed.text).not.toContain('Fresh status');
    await api.delete(`/v1/status-pages/${created.body.id}`);
    expect((await visit('fresh')).status).toBe(404);
  });

  it('shows a page rewritten through the port of another replica on the same database', async () => {
    const created = await api.post('/v1/status-pages', page('elsewhere', 'Before'));
    expect((await visit('elsewhere')).text).toContain('Before');
    await replica.transaction(async (tx) => {
      const stored = await tx.statusPages.get('acme', created.body.id);
      await tx.statusPages.save('acme', { ...stored!, name: 'Written elsewhere' });
    });
    expect((await visit('elsewhere')).text).toContain('Written elsewhere');
    await api.delete(`/v1/status-pages/${created.body.id}`);
  });
});

describe('a deleted status page', () => {
  it("takes its subscriptions with it, and leaves another page's", async () => {
    const doomed = await api.post('/v1/status-pages', page('doomed', 'Doomed'));
    const kept = await api.post('/v1/status-pages', page('kept', 'Kept'));
    await replica.statusPages.addSubscription('acme', doomed.body.id, { id: 'sub-doomed', email: 'a@example.com', status: 'VERIFIED' });
    await replica.statusPages.addSubscription('acme', kept.body.id, { id: 'sub-kept', email: 'b@example.com', status: 'VERIFIED' });
    expect((await replica.statusPages.subscriptionsOf('acme', doomed.body.id)).map((each) => each.id)).toEqual(['sub-doomed']);
    expect((await api.delete(`/v1/status-pages/${doomed.body.id}`)).status).toBe(204);
    expect(await replica.statusPages.subscriptionsOf('acme', doomed.body.id)).toEqual([]);
    expect((await replica.statusPages.subscriptionsOf('acme', kept.body.id)).map((each) => each.id)).toEqual(['sub-kept']);
    await api.delete(`/v1/status-pages/${kept.body.id}`);
  });
});

describe('the list of status pages', () => {
  it('neither skips nor repeats a page when the page after the cursor is deleted and another created', async () => {
    const ids: string[] = [];
    for (const url of ['list-a', 'list-b', 'list-c']) ids.push((await api.post('/v1/status-pages', page(url, url))).body.id);
    const first = await api.get('/v1/status-pages?limit=1');
    expect(first.body.entries.map((each: { url: string }) => each.url)).toEqual(['list-a']);
    await api.delete(`/v1/status-pages/${ids[1]}`);
    ids.push((await api.post('/v1/status-pages', page('list-d', 'list-d'))).body.id);
    const rest = await api.get(`/v1/status-pages?limit=10&nextId=${first.body.nextId}`);
    expect(rest.body).toMatchObject({ length: 2, nextId: null });
    expect(rest.body.entries.map((each: { url: string }) => each.url)).toEqual(['list-c', 'list-d']);
    for (const id of [ids[0], ids[2], ids[3]]) await api.delete(`/v1/status-pages/${id}`);
  });
});
