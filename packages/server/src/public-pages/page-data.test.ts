/**
 * What a public page shows, read by one replica from what another wrote, on SQLite and on
 * PostgreSQL (the engines of the contract suite): the page reads nothing but the storage ports, so a
 * page served by a replica on PostgreSQL shows the same states, bars, incidents and maintenance as
 * one on SQLite. Also the links of a subscriber mail, read through the ports on either engine.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createIncident } from '../readside/incidents.js';
import { enginesUnderTest, twoReplicas } from '../store/contract/engines.js';
import type { CheckResultDocument, StoragePorts } from '../store/ports.js';
import { findPage, loadPageView, PAGE_VIEW } from './page-data.js';
import { subscriberLinks } from './subscriber-links.js';

const engines = enginesUnderTest();
const ACCOUNT = 'acme';
const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;
const TODAY = Date.UTC(2030, 0, 10);
const NOW = TODAY + 15 * HOUR_MS;

function final(checkId: string, at: number, failing: boolean, location = 'eu-west-1'): CheckResultDocument {
  return {
    id: randomUUID(), checkId, name: 'Shop API', hasFailures: failing, hasErrors: false, isDegraded: false, runLocation: location,
    created_at: new Date(at).toISOString(), startedAt: new Date(at - 40).toISOString(), resultType: 'FINAL', attempts: 1, responseTime: 40,
  };
}

/**
 * A page with one card of two services: Shop, whose check (in a group tagged `shop`) is covered by a
 * daily window 02:00–03:00, ran two days ago at two locations and has an open MAJOR incident; and
 * Search, whose check's last run was degraded.
 */
async function writePage(ports: StoragePorts): Promise<{ shop: string; search: string; shopCheck: string }> {
  const at = new Date(TODAY - 10 * DAY_MS).toISOString();
  const service = async (name: string) => String((await ports.documents.insert('services', ACCOUNT, (id) => ({ id, name, created_at: at, updated_at: null }))).id);
  const shop = await service('Shop');
  const search = await service('Search');
  const group = await ports.documents.insert('check_groups', ACCOUNT, (id) => ({ id, name: 'Storefront', tags: ['shop'] }));
  const check = async (name: string, serviceId: string, extra: Record<string, unknown>) =>
    String((await ports.documents.insert('checks', ACCOUNT, (id) => ({ id, name, checkType: 'API', activated: false, tags: [], triggerIncident: { serviceId, name: 'Down', severity: 'MAJOR' }, ...extra }))).id);
  const shopCheck = await check('Shop API', shop, { groupId: group.id });
  const searchCheck = await check('Search API', search, {});
  await ports.documents.insert('maintenance_windows', ACCOUNT, (id) => ({
    id, name: 'Nightly backup', tags: ['shop'], startsAt: new Date(TODAY - 30 * DAY_MS + 2 * HOUR_MS).toISOString(), endsAt: new Date(TODAY - 30 * DAY_MS + 3 * HOUR_MS).toISOString(),
    repeatUnit: 'DAY', repeatInterval: 1, created_at: at, updated_at: null,
  }));
  const twoDaysAgo = TODAY - 2 * DAY_MS;
  // 02:30 falls in the window (left out); the others count: 3 of 4 passed.
  for (const result of [
    final(shopCheck, twoDaysAgo + 2.5 * HOUR_MS, true),
    final(shopCheck, twoDaysAgo + 1 * HOUR_MS, false),
    final(shopCheck, twoDaysAgo + 10 * HOUR_MS, false, 'us-east-1'),
    final(shopCheck, twoDaysAgo + 11 * HOUR_MS, false),
    final(shopCheck, twoDaysAgo + 12 * HOUR_MS, true, 'us-east-1'),
  ]) {
    await ports.checkResults.appendRun(ACCOUNT, [result]);
  }
  await ports.checkStatuses.record(ACCOUNT, { name: 'Search API', checkId: searchCheck, hasFailures: false, hasErrors: false, isDegraded: true, responseTime: 900, runLocation: 'eu-west-1', checkRunId: null, stoppedAt: new Date(NOW - HOUR_MS).toISOString() });
  const incident = createIncident(
    { name: 'Checkout is failing', severity: 'MAJOR', serviceIds: [shop], initialUpdates: [{ description: 'Looking into it.', status: 'INVESTIGATING' }] },
    { newId: () => 'incident-1', now: new Date(NOW - HOUR_MS) },
  );
  await ports.incidents.insert(ACCOUNT, incident);
  await ports.statusPages.save(ACCOUNT, { id: 'page-1', name: 'Acme status', url: 'acme', customDomain: 'status.acme.test', cards: [{ id: 'card-1', name: 'Core', services: [{ id: shop }, { id: search }] }] });
  return { shop, search, shopCheck };
}

describe.each(engines)('a public page on $name', (engine) => {
  it("shows another replica's services, states, bars, incidents and maintenance", async () => {
    const [writer, reader] = await twoReplicas(engine);
    const { shop, search } = await writePage(writer);
    const found = await findPage(reader, { host: 'status.acme.test:443' });
    expect(found?.page.id).toBe('page-1');
    const view = await loadPageView({ ports: reader }, found!, { ...PAGE_VIEW, nowMs: NOW });
    expect(view.cards.map((card) => card.services.map((service) => [service.name, service.state]))).toEqual([[['Shop', 'outage'], ['Search', 'degraded']]]);
    const shopView = view.services.get(shop)!;
    const twoDaysAgo = shopView.days.find((day) => day.startMs === TODAY - 2 * DAY_MS)!;
    expect(twoDaysAgo).toMatchObject({ results: 4, passed: 3, maintenance: true });
    expect(shopView.days.filter((day) => day.results > 0)).toHaveLength(1);
    expect(view.services.get(search)!.days.every((day) => day.results === 0 && !day.maintenance)).toBe(true);
    expect(view.activeIncidents.map((incident) => incident.name)).toEqual(['Checkout is failing']);
    expect(view.maintenances.map((window) => [window.name, window.serviceIds])).toEqual([['Nightly backup', [shop]]]);
  });

  it("links a subscriber mail to the page's url, and to nothing for a page without one", async () => {
    const [writer, reader] = await twoReplicas(engine);
    await writer.statusPages.save(ACCOUNT, { id: 'page-1', name: 'Acme status', url: 'acme', cards: [] });
    await writer.statusPages.save(ACCOUNT, { id: 'page-2', name: 'Unlisted', cards: [] });
    const links = subscriberLinks(reader, () => 'https://status.example');
    const mail = await links(ACCOUNT, { kind: 'verification', statusPageId: 'page-1', subscriptionId: 's-1', verifyExpiresAtMs: NOW + HOUR_MS });
    expect(mail?.verifyUrl).toMatch(/^https:\/\/status\.example\/status\/acme\/verify\?token=/);
    expect(await links(ACCOUNT, { statusPageId: 'page-2', subscriptionId: 's-1' })).toBeUndefined();
  });
});
