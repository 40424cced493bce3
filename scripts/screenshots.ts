/**
 * `pnpm screenshots`: the dashboard's and a status page's screenshots in docs/screenshots/, taken
 * from a real `vigil server` (port 0, a temporary data directory) with a small shop's account:
 * - a day of history for five API checks comes from `--seed` (the API has no write endpoint for
 *   results), everything else through the API as a user makes it: status-page services, each check
 *   linked to one, a status page;
 * - the scheduler runs the checks against a loopback server standing in for the shop, whose checkout
 *   answers 503: that check fails and its `triggerIncident` opens an incident, which gets an update.
 * Then Chromium (Debian's, through playwright-core) signs in and saves the sign-in page, the checks
 * list, the failing check's page, its incident and the public status page at 1280×800, and the status
 * page at 360 px wide. Everything started here is stopped at the end, and the data directory removed.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Page } from 'playwright-core';

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const OUT_DIR = path.join(REPO_ROOT, 'docs', 'screenshots');
const VIGIL_BIN = path.join(REPO_ROOT, 'packages', 'cli', 'bin', 'vigil.mjs');
const CHROMIUM = process.env['VIGIL_CHROMIUM_PATH'] ?? '/usr/bin/chromium';
const API_KEY = 'screenshots-key';
const ACCOUNT = 'acme-shop';

const log = (line: string) => process.stdout.write(`${line}\n`);

interface ShopCheck {
  readonly id: string;
  readonly name: string;
  readonly path: string;
  readonly method: 'GET' | 'POST';
  readonly tags: readonly string[];
  /** Typical response time in ms, around which the seeded history varies. */
  readonly typicalMs: number;
  readonly service: string;
}

const CHECKS: readonly ShopCheck[] = [
  { id: '5c7e0000-0000-4000-8000-000000000001', name: 'Storefront home page', path: '/', method: 'GET', tags: ['storefront', 'critical'], typicalMs: 180, service: 'Storefront' },
  { id: '5c7e0000-0000-4000-8000-000000000002', name: 'Checkout API', path: '/api/checkout', method: 'POST', tags: ['payments', 'critical'], typicalMs: 320, service: 'Checkout' },
  { id: '5c7e0000-0000-4000-8000-000000000003', name: 'Product search', path: '/api/search?q=boots', method: 'GET', tags: ['search'], typicalMs: 95, service: 'Search' },
  { id: '5c7e0000-0000-4000-8000-000000000004', name: 'Sign-in API', path: '/api/session', method: 'POST', tags: ['accounts'], typicalMs: 140, service: 'Accounts' },
  { id: '5c7e0000-0000-4000-8000-000000000005', name: 'Order status API', path: '/api/orders/1042', method: 'GET', tags: ['orders'], typicalMs: 110, service: 'Orders' },
];
const CHECKOUT = CHECKS[1]!;

/** The shop's stand-in on loopback: every path answers 200 except the checkout, which is down. */
async function startShop(): Promise<Server> {
  const shop = createServer((request, response) => {
    if (request.url?.startsWith('/api/checkout')) {
      response.writeHead(503, { 'content-type': 'application/json' }).end('{"error":"payment provider timed out"}');
      return;
    }
    response.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
  });
  await new Promise<void>((resolve) => shop.listen(0, '127.0.0.1', resolve));
  return shop;
}

/** A deterministic wobble in [0, 1), so the history looks measured yet the pictures repeat. */
function wobble(seed: number): number {
  const x = Math.sin(seed * 12.9898) * 43758.5453;
  return x - Math.floor(x);
}

/** The seed: the five checks and a day of results each, every 10 minutes from two locations. */
function seedFile(shopUrl: string): unknown {
  const results = CHECKS.flatMap((check, index) =>
    Array.from({ length: 144 }, (_, step) => {
      const minutesAgo = (144 - step) * 10;
      const daily = 1 + 0.35 * Math.sin(((step - 40) / 144) * 2 * Math.PI);
      const responseTime = Math.round(check.typicalMs * daily * (0.85 + 0.3 * wobble(step * 7 + index)));
      // The checkout had a bad quarter of an hour in the night, besides the outage the scheduler finds now.
      const failed = check === CHECKOUT && step >= 52 && step <= 53;
      return {
        checkId: check.id,
        created_at: `now-${minutesAgo}m`,
        runLocation: step % 2 === 0 ? 'eu-west-1' : 'us-east-1',
        hasFailures: failed,
        responseTime,
        apiCheckResult: {
          response: {
            status: failed ? 503 : 200,
            timingPhases: { wait: 1, dns: 2, tcp: Math.round(responseTime * 0.15), firstByte: Math.round(responseTime * 0.7), download: Math.round(responseTime * 0.1), total: responseTime },
          },
        },
      };
    }),
  );
  return {
    accounts: [
      {
        accountId: ACCOUNT,
        checks: CHECKS.map((check) => ({
          id: check.id,
          checkType: 'API',
          name: check.name,
          frequency: 1,
          locations: ['eu-west-1', 'us-east-1'],
          tags: check.tags,
          request: {
            method: check.method,
            url: `${shopUrl}${check.path}`,
            assertions: [
              { source: 'STATUS_CODE', comparison: 'EQUALS', target: '200' },
              { source: 'RESPONSE_TIME', comparison: 'LESS_THAN', target: '2000' },
            ],
          },
        })),
        checkResults: results,
      },
    ],
  };
}

async function startVigil(dataDir: string, seedPath: string, accountsPath: string): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [VIGIL_BIN, 'server', '--port', '0', '--data', dataDir, '--accounts', accountsPath, '--seed', seedPath], { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      const match = /listening on (\S+)/.exec(out);
      if (match) resolve(match[1]!);
    });
    child.once('exit', (code) => reject(new Error(`vigil server exited with ${code}: ${out}`)));
  });
  return { url, child };
}

async function api(baseUrl: string, method: string, pathName: string, body?: unknown): Promise<any> {
  const response = await fetch(`${baseUrl}${pathName}`, {
    method,
    headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  if (response.status >= 300) throw new Error(`${method} ${pathName} answered ${response.status}: ${text.slice(0, 300)}`);
  return text ? JSON.parse(text) : undefined;
}

async function until<T>(what: string, seconds: number, probe: () => Promise<T | undefined>): Promise<T> {
  for (let waited = 0; waited < seconds * 2; waited++) {
    const value = await probe();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  throw new Error(`gave up after ${seconds} s waiting for ${what}`);
}

async function save(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: path.join(OUT_DIR, `${name}.png`) });
  log(`saved docs/screenshots/${name}.png`);
}

async function main(): Promise<void> {
  const work = await mkdtemp(path.join(tmpdir(), 'vigil-screenshots-'));
  const shop = await startShop();
  let vigil: { url: string; child: ChildProcess } | undefined;
  try {
    const shopUrl = `http://127.0.0.1:${(shop.address() as AddressInfo).port}`;
    await writeFile(path.join(work, 'seed.json'), JSON.stringify(seedFile(shopUrl)));
    await writeFile(path.join(work, 'accounts.json'), JSON.stringify([{ apiKey: API_KEY, accountId: ACCOUNT, name: 'Acme Shop' }]));
    vigil = await startVigil(path.join(work, 'data'), path.join(work, 'seed.json'), path.join(work, 'accounts.json'));
    const base = vigil.url;
    log(`vigil server on ${base}`);

    const serviceIds = new Map<string, string>();
    for (const check of CHECKS) {
      const service = await api(base, 'POST', '/v1/status-pages/services', { name: check.service });
      serviceIds.set(check.service, service.id);
      await api(base, 'PUT', `/v1/checks/${check.id}`, { triggerIncident: { serviceId: service.id, name: `${check.service} is failing`, severity: 'MAJOR' } });
    }
    await api(base, 'POST', '/v1/status-pages', {
      name: 'Acme Shop status',
      url: 'acme-shop',
      cards: [
        { name: 'Shopping', services: ['Storefront', 'Search', 'Checkout'].map((name) => ({ id: serviceIds.get(name)! })) },
        { name: 'Your account', services: ['Accounts', 'Orders'].map((name) => ({ id: serviceIds.get(name)! })) },
      ],
    });

    log('waiting for the scheduler to run every check and open the checkout incident…');
    await until('a status for every check', 150, async () => {
      const statuses = (await api(base, 'GET', '/v1/check-statuses')) as Array<{ checkId: string }>;
      return CHECKS.every((check) => statuses.some((status) => status.checkId === check.id)) ? true : undefined;
    });
    const incidentId = await until('the checkout incident', 150, async () => {
      const incidents = (await api(base, 'GET', '/v1/status-pages/incidents')) as { entries?: Array<{ id: string; lastUpdateStatus: string }> };
      return incidents.entries?.find((incident) => incident.lastUpdateStatus === 'INVESTIGATING')?.id;
    });
    await api(base, 'POST', `/v1/status-pages/incidents/${incidentId}/incident-updates`, {
      description: 'Our payment provider is timing out. Orders already placed are safe; we are switching checkout to the backup provider.',
      status: 'IDENTIFIED',
    });

    await mkdir(OUT_DIR, { recursive: true });
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
    try {
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, colorScheme: 'light' });
      const page = await context.newPage();
      await page.goto(`${base}/`);
      await save(page, 'sign-in');
      await page.getByLabel('API key').fill(API_KEY);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL('**/dashboard/checks');
      await save(page, 'checks');

      await page.goto(`${base}/dashboard/checks/${CHECKOUT.id}`);
      // The charts are drawn by script after the page loads: wait for uPlot's canvases.
      await page.waitForSelector('[data-chart] canvas');
      await save(page, 'check');

      await page.goto(`${base}/dashboard/incidents/${incidentId}`);
      await save(page, 'incident');

      await page.goto(`${base}/status/acme-shop`);
      await save(page, 'status-page');
      await context.close();

      const narrow = await browser.newContext({ viewport: { width: 360, height: 780 }, deviceScaleFactor: 2, isMobile: true, colorScheme: 'light' });
      const phone = await narrow.newPage();
      await phone.goto(`${base}/status/acme-shop`);
      await save(phone, 'status-page-360');
      await narrow.close();
    } finally {
      await browser.close();
    }
  } finally {
    if (vigil) {
      const exited = new Promise((resolve) => vigil!.child.once('exit', resolve));
      vigil.child.kill('SIGTERM');
      await exited;
    }
    await new Promise((resolve) => shop.close(resolve));
    await rm(work, { recursive: true, force: true });
  }
}

await main();
