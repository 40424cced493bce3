/**
 * A real service with one public status page, for the public pages' HTTP and browser tests: checks
 * and their results come from `--seed` (the API has no write endpoint for results), everything else
 * is made through the API as a user would.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { ServerOptions } from '../start.js';
import { startTestServer, type TestApi } from '../test-support.js';

/** Chromium as the runner finds it: VIGIL_CHROMIUM_PATH, else `chromium` on PATH. */
export function chromiumPath(): string | undefined {
  const configured = process.env['VIGIL_CHROMIUM_PATH'];
  if (configured) return configured;
  for (const dir of (process.env['PATH'] ?? '').split(path.delimiter)) {
    for (const name of ['chromium', 'chromium-browser']) if (dir && existsSync(path.join(dir, name))) return path.join(dir, name);
  }
  return undefined;
}

export const SHOP_CHECK = '0c0a0000-0000-4000-8000-000000000001';
export const SEARCH_CHECK = '0c0a0000-0000-4000-8000-000000000002';
export const HOSTILE = `<script>alert("x")</script> & 'Co'`;
const DAY_MS = 86_400_000;

/** Midnight UTC `days` ago plus `hours`, as ISO. */
export function at(days: number, hours: number, nowMs = Date.now()): string {
  return new Date(Math.floor(nowMs / DAY_MS) * DAY_MS - days * DAY_MS + hours * 3_600_000).toISOString();
}

export interface PageFixture {
  readonly api: TestApi;
  readonly services: { shop: string; search: string; docs: string };
  readonly pageId: string;
  readonly majorIncident: string;
}

function result(checkId: string, createdAt: string, hasFailures: boolean) {
  return { checkId, created_at: createdAt, hasFailures, resultType: 'FINAL', runLocation: 'eu-west-1', responseTime: 120 };
}

/**
 * Shop: 4 passing results three days ago plus one failing at 02:30 inside a maintenance window
 * (02:00–03:00, excluded), so that day is 100 %; two days ago 3 passing and 1 failing (75 %).
 * Search: passing today, and in an active maintenance window. Docs: no linked check.
 */
export async function startPageFixture(options: { logo?: (url: string) => string; server?: ServerOptions } = {}): Promise<PageFixture> {
  const seed = {
    accounts: [
      {
        accountId: 'acme',
        checks: [
          { id: SHOP_CHECK, checkType: 'API', name: 'Shop API', request: { url: 'https://shop.example.com' }, tags: ['shop'], activated: false },
          { id: SEARCH_CHECK, checkType: 'API', name: 'Search API', request: { url: 'https://search.example.com' }, tags: ['search'], activated: false },
        ],
        checkResults: [
          ...[10, 11, 12, 13].map((hour) => result(SHOP_CHECK, at(3, hour), false)),
          result(SHOP_CHECK, at(3, 2.5), true),
          ...[10, 11, 12].map((hour) => result(SHOP_CHECK, at(2, hour), false)),
          result(SHOP_CHECK, at(2, 14), true),
          result(SEARCH_CHECK, new Date(Date.now() - 60_000).toISOString(), false),
        ],
      },
    ],
  };
  const api = await startTestServer({ ...options.server, seed });
  const created = async (path: string, body: unknown): Promise<any> => {
    const reply = await api.post(path, body);
    if (reply.status >= 300) throw new Error(`POST ${path}: ${reply.status} ${JSON.stringify(reply.body)}`);
    return reply.body;
  };
  const shop = (await created('/v1/status-pages/services', { name: 'Shop' })).id as string;
  const search = (await created('/v1/status-pages/services', { name: 'Search' })).id as string;
  const docs = (await created('/v1/status-pages/services', { name: HOSTILE })).id as string;
  for (const [checkId, serviceId] of [[SHOP_CHECK, shop], [SEARCH_CHECK, search]] as const) {
    const reply = await api.put(`/v1/checks/${checkId}`, { triggerIncident: { serviceId, name: 'Down', severity: 'MAJOR' } });
    if (reply.status !== 200) throw new Error(`PUT check: ${reply.status} ${JSON.stringify(reply.body)}`);
  }
  const page = await created('/v1/status-pages', {
    name: `Acme ${HOSTILE}`,
    url: 'acme',
    customDomain: 'status.acme.test',
    ...(options.logo ? { logo: options.logo(api.server.url) } : {}),
    redirectTo: 'https://acme.test/',
    cards: [
      { name: 'Core', services: [{ id: shop }, { id: search }] },
      { name: `Extras ${HOSTILE}`, services: [{ id: docs }] },
    ],
  });
  const major = await created('/v1/status-pages/incidents', {
    name: 'Checkout is failing',
    severity: 'MAJOR',
    services: [{ id: shop }],
    incidentUpdates: [{ description: 'We are looking into it.', status: 'INVESTIGATING' }],
  });
  await created(`/v1/status-pages/incidents/${major.id}/incident-updates`, { description: `Found it: ${HOSTILE}`, status: 'IDENTIFIED' });
  const minor = await created('/v1/status-pages/incidents', {
    name: 'Slow search results',
    severity: 'MINOR',
    services: [{ id: search }],
    incidentUpdates: [{ description: 'Slow.', status: 'INVESTIGATING' }],
  });
  await created(`/v1/status-pages/incidents/${minor.id}/incident-updates`, { description: 'Fast again.', status: 'RESOLVED' });
  await created('/v1/maintenance-windows', { name: 'Shop database upgrade', tags: ['shop'], startsAt: at(3, 2), endsAt: at(3, 3), repeatUnit: 'DAY' });
  await created('/v1/maintenance-windows', { name: 'Search reindex', tags: ['search'], startsAt: new Date(Date.now() - 3_600_000).toISOString(), endsAt: new Date(Date.now() + 3_600_000).toISOString(), repeatUnit: 'DAY' });
  await created('/v1/maintenance-windows', { name: 'Shop failover test', tags: ['shop'], startsAt: at(-2, 1), endsAt: at(-2, 2), repeatUnit: 'DAY' });
  return { api, services: { shop, search, docs }, pageId: page.id, majorIncident: major.id };
}
