/** The dashboards port, the same assertions on every engine (see engines.ts). */
import { describe, expect, it } from 'vitest';
import { DashboardNameTaken, type DashboardDocument } from '../dashboard-ports.js';
import { StoreInputError } from '../port-rules.js';
import { enginesUnderTest, twoReplicas } from './engines.js';

const engines = enginesUnderTest();

const dashboard = (id: number, dashboardId: string, fields: Record<string, unknown> = {}): DashboardDocument => ({ header: `dashboard ${dashboardId}`, ...fields, id, dashboardId });

describe.each(engines)('dashboards on $name', (engine) => {
  it('counts ids per account, gives a dashboard back from another replica by its dashboardId and its names, and replaces and removes it', async () => {
    const [a, b] = await twoReplicas(engine);
    const first = await a.dashboards.insert('acc', (id) => dashboard(id, 'd1', { customUrl: 'Acme', customDomain: 'status.example.com' }));
    expect(first.id).toBe(1);
    expect((await b.dashboards.insert('acc', (id) => dashboard(id, 'd2'))).id).toBe(2);
    expect((await b.dashboards.insert('other', (id) => dashboard(id, 'o1'))).id).toBe(1);
    expect(await b.dashboards.get('acc', 'd1')).toEqual(first);
    expect(await b.dashboards.get('other', 'd1')).toBeUndefined();
    expect(await b.dashboards.named('acc', 'customUrl', 'ACME')).toEqual(first);
    expect(await b.dashboards.named('acc', 'customDomain', 'Status.Example.com')).toEqual(first);
    expect(await b.dashboards.named('acc', 'customDomain', 'acme')).toBeUndefined();
    expect(await b.dashboards.named('other', 'customUrl', 'acme')).toBeUndefined();
    expect(await b.dashboards.holder('customUrl', 'acme')).toBe('d1');
    expect(await b.dashboards.holder('customDomain', 'nowhere.example.com')).toBeUndefined();

    const renamed = dashboard(1, 'd1', { customUrl: 'acme-2', customDomain: null, header: 'renamed' });
    expect(await b.dashboards.replace('acc', renamed)).toBe(true);
    expect(await a.dashboards.get('acc', 'd1')).toEqual(renamed);
    expect(await a.dashboards.holder('customUrl', 'acme')).toBeUndefined();
    expect(await a.dashboards.holder('customDomain', 'status.example.com')).toBeUndefined();
    expect(await a.dashboards.replace('other', dashboard(7, 'd1'))).toBe(false);

    expect(await a.dashboards.remove('other', 'd1')).toBe(false);
    expect(await a.dashboards.remove('acc', 'd1')).toBe(true);
    expect(await a.dashboards.remove('acc', 'd1')).toBe(false);
    expect(await b.dashboards.get('acc', 'd1')).toBeUndefined();
    // A counter never steps back: a removed dashboard's id is not handed out again.
    expect((await a.dashboards.insert('acc', (id) => dashboard(id, 'd3'))).id).toBe(3);
  });

  it('pages oldest first, with the total, a replaced dashboard keeping its place', async () => {
    const [a, b] = await twoReplicas(engine);
    for (const name of ['d1', 'd2', 'd3']) await a.dashboards.insert('acc', (id) => dashboard(id, name));
    await a.dashboards.insert('other', (id) => dashboard(id, 'o1'));
    await b.dashboards.replace('acc', dashboard(1, 'd1', { header: 'changed' }));
    const pageOf = async (limit: number, page: number) => {
      const { items, total } = await b.dashboards.page('acc', { limit, page });
      return { ids: items.map((item) => item.dashboardId), total };
    };
    expect(await pageOf(2, 1)).toEqual({ ids: ['d1', 'd2'], total: 3 });
    expect(await pageOf(2, 2)).toEqual({ ids: ['d3'], total: 3 });
    expect(await pageOf(2, 3)).toEqual({ ids: [], total: 3 });
    expect((await b.dashboards.page('acc', { limit: 1, page: 1 })).items[0]!['header']).toBe('changed');
    expect(await b.dashboards.page('nobody', { limit: 10, page: 1 })).toEqual({ items: [], total: 0 });
  });

  it("refuses a name another account's dashboard holds, in any case, and gives the refused create's id back", async () => {
    const [a, b] = await twoReplicas(engine);
    await a.dashboards.insert('acc', (id) => dashboard(id, 'd1', { customUrl: 'shop', customDomain: 'shop.example.com' }));
    const refused = b.dashboards.insert('other', (id) => dashboard(id, 'o1', { customUrl: 'SHOP' }));
    await expect(refused).rejects.toBeInstanceOf(DashboardNameTaken);
    await expect(refused).rejects.toMatchObject({ field: 'customUrl', value: 'shop' });
    await b.dashboards.insert('other', (id) => dashboard(id, 'o2'));
    await expect(b.dashboards.replace('other', dashboard(1, 'o2', { customDomain: 'Shop.example.com' }))).rejects.toMatchObject({ field: 'customDomain', value: 'shop.example.com' });
    expect((await b.dashboards.get('other', 'o2'))!['customDomain']).toBeUndefined();
    expect((await b.dashboards.insert('other', (id) => dashboard(id, 'o3'))).id).toBe(2);
  });

  it('of two replicas creating one name at once, one stores it and the other is refused', async () => {
    const [a, b] = await twoReplicas(engine);
    const creates = [a, b].map((ports, index) => ports.transaction((tx) => tx.dashboards.insert(`acc-${index}`, (id) => dashboard(id, `d${index}`, { customUrl: 'race' }))));
    const outcomes = await Promise.allSettled(creates);
    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1);
    const refusal = outcomes.find((outcome) => outcome.status === 'rejected') as PromiseRejectedResult;
    expect(refusal.reason).toBeInstanceOf(DashboardNameTaken);
    expect(await a.dashboards.holder('customUrl', 'race')).toMatch(/^d[01]$/);
  });

  it('refuses input it could not key', async () => {
    const [a] = await twoReplicas(engine);
    await expect(a.dashboards.get('acc', '')).rejects.toThrow(new StoreInputError('dashboardId must be a string of 1 to 255 characters, got ""'));
    await expect(a.dashboards.insert('acc', () => dashboard(0, 'd1'))).rejects.toThrow(new StoreInputError('dashboard id must be a whole number of at least 1, got 0'));
    await expect(a.dashboards.holder('name' as 'customUrl', 'x')).rejects.toThrow(new StoreInputError('a dashboard is named by its customUrl or customDomain, got "name"'));
    await expect(a.dashboards.page('acc', { limit: 0, page: 1 })).rejects.toThrow(new StoreInputError('limit must be a whole number of at least 1, got 0'));
  });
});
