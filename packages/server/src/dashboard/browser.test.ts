/**
 * The dashboard in Chromium, used as a person uses it, against a real service whose scheduler runs
 * a check every 10 s against a loopback target that answers 503: sign in, find the failing check
 * with the search and the state filter, open its failed result, open the incident its
 * `triggerIncident` opened, resolve it, and see it resolved — in the dashboard and on the public
 * status page showing its service, which a visitor had open before. Then axe-core (injected from
 * node_modules) scans the sign-in, checks, check and incidents pages for serious or critical
 * accessibility violations, and the list is checked at 360 px and in dark mode. Chromium as the
 * public pages' browser tests find it; without one these tests fail, naming what to install.
 */
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumPath } from '../public-pages/test-fixture.js';
import { startTestServer, TEST_API_KEY, type TestApi } from '../test-support.js';

const executablePath = chromiumPath();
const NAME = `Checkout <img src=x onerror="window.hacked=1">`;

let target: Server;
let api: TestApi;
let browser: Browser;
let checkId: string;

/** Evaluates an expression in the page; text, because this package compiles without the DOM's types. */
function inPage<T>(page: Page, expression: string): Promise<T> {
  return page.evaluate(expression) as Promise<T>;
}

async function until<T>(what: string, probe: () => Promise<T | undefined>): Promise<T> {
  for (let tries = 0; tries < 600; tries++) {
    const value = await probe();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`gave up waiting for ${what}`);
}

beforeAll(async () => {
  if (!executablePath) throw new Error('no Chromium to test the dashboard in: set VIGIL_CHROMIUM_PATH or install chromium (apt-get install -y chromium)');
  target = createServer((_request, response) => response.writeHead(503, { 'content-type': 'text/plain' }).end('down for maintenance'));
  await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
  const targetUrl = `http://127.0.0.1:${(target.address() as AddressInfo).port}/health`;
  api = await startTestServer({ scheduler: true });
  const service = await api.post('/v1/status-pages/services', { name: 'Shop' });
  const created = await api.post('/v1/checks/api', {
    name: NAME,
    request: { url: targetUrl, method: 'GET', assertions: [{ source: 'STATUS_CODE', comparison: 'EQUALS', target: '200' }] },
    frequency: 0,
    frequencyOffset: 10,
    locations: ['eu-west-1'],
    tags: ['shop'],
    triggerIncident: { serviceId: service.body.id, name: 'Checkout is down', severity: 'MAJOR' },
  });
  expect(created.status).toBe(201);
  checkId = created.body.id;
  const statusPage = await api.post('/v1/status-pages', { name: 'Acme status', url: 'acme', cards: [{ name: 'Store', services: [{ id: service.body.id }] }] });
  expect(statusPage.status).toBe(201);
  await api.post('/v1/checks/api', { name: 'Search', request: { url: 'https://search.example.com', method: 'GET' }, activated: false });
  await until('the check to fail and open its incident', async () => {
    const incidents = await api.get('/v1/status-pages/incidents');
    return incidents.body.entries?.some((incident: { lastUpdateStatus: string }) => incident.lastUpdateStatus === 'INVESTIGATING') ? true : undefined;
  });
  browser = await chromium.launch({ executablePath: executablePath!, args: ['--no-sandbox'] });
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await api?.close();
  await new Promise((resolve) => target?.close(resolve));
});

async function signIn(page: Page): Promise<void> {
  await page.goto(`${api.server.url}/`);
  await page.getByLabel('API key').fill(TEST_API_KEY);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL('**/dashboard/checks');
}

describe('the dashboard in Chromium', () => {
  it('signs in, finds the failing check, opens its result and resolves its incident', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const requested: string[] = [];
    page.on('request', (request) => requested.push(request.url()));
    // A visitor has the public status page open, during the outage.
    const visitor = await context.newPage();
    await visitor.goto(`${api.server.url}/status/acme`);
    expect(await visitor.getByRole('region', { name: 'Active incidents' }).innerText()).toContain('Checkout is down');

    await signIn(page);

    await page.getByLabel('Name contains').fill('checkout');
    await page.getByLabel('State').selectOption('failing');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForURL(/state=failing/);
    const rows = page.locator('tbody tr');
    expect(await rows.count()).toBe(1);
    expect(await rows.first().innerText()).toContain('Failing');
    await page.getByRole('link', { name: NAME }).click();
    await page.waitForURL(`**/dashboard/checks/${checkId}`);
    expect(await page.getByRole('heading', { level: 1 }).innerText()).toBe(NAME);
    // uPlot drew the charts from analytics.json, under the page's 'self'-only policy.
    await page.locator('.chart canvas').first().waitFor();
    expect(await inPage<unknown>(page, 'window.hacked')).toBeUndefined();

    await page.locator('#results tbody tr').filter({ hasText: 'Failed' }).first().getByRole('link').click();
    await page.waitForURL(/\/results\//);
    const assertions = page.getByRole('region', { name: 'Assertions' });
    expect(await assertions.locator('tbody tr').first().innerText()).toMatch(/STATUS_CODE\s+EQUALS\s+200\s+503\s+Failed/);
    expect(await page.getByRole('region', { name: 'Response' }).innerText()).toContain('down for maintenance');

    await page.goBack();
    await page.getByRole('region', { name: 'Incidents' }).getByRole('link', { name: 'Checkout is down' }).click();
    await page.waitForURL(/\/dashboard\/incidents\//);
    expect(await page.locator('main .state').first().innerText()).toBe('Investigating');
    await page.getByLabel('Resolution note').fill('Fixed the database.');
    await page.getByRole('button', { name: 'Resolve incident' }).click();
    await page.waitForLoadState('load');
    expect(await page.locator('main .state').first().innerText()).toBe('Resolved');
    expect(await page.getByRole('region', { name: 'Updates' }).innerText()).toContain('Fixed the database.');
    expect(await page.getByRole('button', { name: 'Resolve incident' }).count()).toBe(0);

    // The visitor reloads: the incident is no longer active, and is listed as past with its resolution.
    await visitor.reload();
    expect(await visitor.getByRole('region', { name: 'Active incidents' }).count()).toBe(0);
    expect(await visitor.getByRole('region', { name: 'Past incidents' }).innerText()).toContain('Fixed the database.');

    expect(requested.filter((url) => !url.startsWith(`${api.server.url}/`))).toEqual([]);
    await context.close();
  });

  it('fits a 360 px screen and follows a dark colour scheme', async () => {
    const context = await browser.newContext({ viewport: { width: 360, height: 800 }, colorScheme: 'dark' });
    const page = await context.newPage();
    await signIn(page);
    const widths = await inPage<{ scroll: number; client: number }>(page, '({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth })');
    expect(widths.scroll).toBeLessThanOrEqual(widths.client);
    expect(await inPage<string>(page, 'getComputedStyle(document.body).backgroundColor')).toBe('rgb(13, 17, 23)');
    await context.close();
  });

  it('has no serious or critical axe-core violations on the sign-in, checks, check and incidents pages', async () => {
    // axe is injected as an inline script, which the pages' CSP would block: this context bypasses it.
    const context = await browser.newContext({ bypassCSP: true, viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const axePath = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
    const scan = async (url: string) => {
      await page.goto(`${api.server.url}${url}`);
      await page.addScriptTag({ path: axePath });
      const violations = await inPage<Array<{ id: string; impact: string; nodes: unknown[] }>>(
        page,
        "axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.map((n) => n.target) })))",
      );
      return { url, serious: violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical') };
    };
    expect(await scan('/')).toEqual({ url: '/', serious: [] });
    await signIn(page);
    const incidents = await api.get('/v1/status-pages/incidents');
    const incidentId = incidents.body.entries[0].id as string;
    for (const url of ['/dashboard/checks', `/dashboard/checks/${checkId}`, '/dashboard/incidents', `/dashboard/incidents/${incidentId}`]) {
      expect(await scan(url)).toEqual({ url, serious: [] });
    }
    await context.close();
  });
});
