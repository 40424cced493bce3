/** The client's dashboard calls against the real server: every call typed, errors as ApiErrors. */
import { ConflictError, NotFoundError, ValidationError } from '@vigil/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collect, rejection, startService, type Service } from './service.js';

let service: Service;
beforeAll(async () => {
  service = await startService();
});
afterAll(() => service.close());

describe('dashboards', () => {
  it('creates, reads (by dashboardId and by customUrl), lists, updates and deletes a dashboard', async () => {
    const client = service.client();
    const created = await client.dashboards.create({ header: 'Acme status', customUrl: 'acme-status', tags: ['prod'] });
    expect(created).toMatchObject({ header: 'Acme status', customUrl: 'acme-status', tags: ['prod'], refreshRate: 60, checksPerPage: 15 });
    expect(typeof created.id).toBe('number');
    expect(await client.dashboards.get(created.dashboardId)).toEqual(created);
    expect(await client.dashboards.get('acme-status', { type: 'customUrl' })).toEqual(created);
    expect((await collect(client.dashboards.listAll())).map((each) => each.dashboardId)).toEqual([created.dashboardId]);
    expect(await client.dashboards.list({ limit: 5 })).toEqual([created]);
    expect(await client.dashboards.update(created.dashboardId, { refreshRate: 300 })).toEqual({ ...created, refreshRate: 300 });
    expect(await client.dashboards.delete(created.dashboardId)).toBeUndefined();
    expect(await rejection(client.dashboards.get(created.dashboardId))).toBeInstanceOf(NotFoundError);
  });

  it('raises a ConflictError for a taken customUrl and a ValidationError naming a bad field', async () => {
    const client = service.client();
    const held = await client.dashboards.create({ header: 'Held', customUrl: 'held' });
    const conflict = await rejection(client.dashboards.create({ header: 'Again', customUrl: 'held' }));
    expect(conflict).toBeInstanceOf(ConflictError);
    expect((conflict as ConflictError).message).toBe('[POST] "/v1/dashboards": 409 Conflict — customUrl "held" is already taken by another dashboard');
    const invalid = await rejection(client.dashboards.update(held.dashboardId, { checksPerPage: 0 }));
    expect(invalid).toBeInstanceOf(ValidationError);
    expect((invalid as ValidationError).message).toBe(`[PUT] "/v1/dashboards/${held.dashboardId}": 400 Bad Request — "checksPerPage" must be greater than or equal to 1`);
    await client.dashboards.delete(held.dashboardId);
  });
});
