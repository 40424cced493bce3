/**
 * Maintenance windows written as units of work over the storage ports: the Idempotency-Key rules of
 * the unit route, the 404s, and a refused PUT that changes nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestApi } from '../test-support.js';

let api: TestApi;
beforeAll(async () => {
  api = await startTestServer();
});
afterAll(async () => {
  await api.close();
});

const window = { name: 'Deploy', startsAt: '2030-01-01T02:00:00.000Z', endsAt: '2030-01-01T03:00:00.000Z', repeatUnit: 'DAY' };

async function windowNames(): Promise<string[]> {
  return (await api.get('/v1/maintenance-windows?limit=100')).body.map((item: { name: string }) => item.name);
}

describe('Idempotency-Key on maintenance windows', () => {
  it('replays a repeated create with the first response and creates one window', async () => {
    const first = await api.post('/v1/maintenance-windows', { ...window, name: 'Once' }, { headers: { 'idempotency-key': 'window-1' } });
    const second = await api.post('/v1/maintenance-windows', { ...window, name: 'Once' }, { headers: { 'idempotency-key': 'window-1' } });
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(second.body).toEqual(first.body);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect((await windowNames()).filter((name) => name === 'Once')).toHaveLength(1);
  });

  it('refuses the key with a different body with 422 and stores nothing for it', async () => {
    expect((await api.post('/v1/maintenance-windows', { ...window, name: 'A' }, { headers: { 'idempotency-key': 'window-2' } })).status).toBe(201);
    const reuse = await api.post('/v1/maintenance-windows', { ...window, name: 'B' }, { headers: { 'idempotency-key': 'window-2' } });
    expect(reuse.status).toBe(422);
    expect(reuse.body.message).toBe('Idempotency-Key "window-2" was already used for a different request');
    expect(await windowNames()).not.toContain('B');
  });
});

describe('maintenance window writes', () => {
  it('answers 404 naming the window for an id no window has, on get, update and delete', async () => {
    for (const reply of [
      await api.get('/v1/maintenance-windows/987654'),
      await api.put('/v1/maintenance-windows/987654', { name: 'x' }),
      await api.delete('/v1/maintenance-windows/987654'),
    ]) {
      expect(reply.status).toBe(404);
      expect(reply.body.message).toBe('Maintenance window 987654 not found');
    }
  });

  it('keeps the window as it was when a PUT is refused, and answers 404 once it is deleted', async () => {
    const created = await api.post('/v1/maintenance-windows', { ...window, name: 'Kept' });
    const refused = await api.put(`/v1/maintenance-windows/${created.body.id}`, { name: 'Moved', endsAt: '2029-01-01T00:00:00.000Z' });
    expect(refused.status).toBe(400);
    expect((await api.get(`/v1/maintenance-windows/${created.body.id}`)).body).toMatchObject({ name: 'Kept', endsAt: window.endsAt, updated_at: null });
    expect((await api.delete(`/v1/maintenance-windows/${created.body.id}`)).status).toBe(204);
    const again = await api.delete(`/v1/maintenance-windows/${created.body.id}`);
    expect(again.status).toBe(404);
    expect(again.body.message).toBe(`Maintenance window ${created.body.id} not found`);
  });
});
