/**
 * The public status page in Chromium, used as a person uses it: read the cards and states, hear the
 * bars' labels, on a 360 px phone, with the keyboard, in dark mode, and never calling anyone but
 * the service. Chromium is found as the runner finds it (VIGIL_CHROMIUM_PATH, else `chromium` on
 * PATH); a machine without one fails these tests, naming what to install (`.ci/run` installs
 * Debian's chromium), rather than passing without having looked at the page.
 */
import { createRequire } from 'node:module';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { at, chromiumPath, HOSTILE, startPageFixture, type PageFixture } from './test-fixture.js';

const executablePath = chromiumPath();

/** Evaluates an expression in the page; written as text because this package compiles without the DOM's types. */
function inPage<T>(page: Page, expression: string): Promise<T> {
  return page.evaluate(expression) as Promise<T>;
}

describe('the public status page in Chromium', () => {
  let fixture: PageFixture;
  let browser: Browser;
  beforeAll(async () => {
    if (!executablePath) throw new Error('no Chromium to test the page in: set VIGIL_CHROMIUM_PATH or install chromium (apt-get install -y chromium)');
    // The logo is served by the service itself, so the page still calls no one else.
    fixture = await startPageFixture({ logo: (url) => `${url}/status-assets/favicon.svg` });
    browser = await chromium.launch({ executablePath: executablePath!, args: ['--no-sandbox'] });
  });
  afterAll(async () => {
    await browser?.close();
    await fixture?.api.close();
  });

  /** Opens the page in a fresh context, recording every URL the page requests. */
  async function open(options: { width?: number; colorScheme?: 'light' | 'dark' } = {}): Promise<{ page: Page; requested: string[] }> {
    const context = await browser.newContext({ viewport: { width: options.width ?? 1280, height: 800 }, colorScheme: options.colorScheme ?? 'light' });
    const page = await context.newPage();
    const requested: string[] = [];
    page.on('request', (request) => requested.push(request.url()));
    await page.goto(`${fixture.api.server.url}/status/acme`, { waitUntil: 'load' });
    return { page, requested };
  }

  it('shows the cards with their services and states', async () => {
    const { page } = await open();
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe(`Acme ${HOSTILE}`);
    const core = page.getByRole('region', { name: 'Core' });
    expect(await core.locator('.service').allInnerTexts()).toEqual([
      expect.stringMatching(/^Shop\s*Outage/),
      expect.stringMatching(/^Search\s*Under maintenance/),
    ]);
    const extras = page.getByRole('region', { name: `Extras ${HOSTILE}` });
    expect(await extras.locator('.service-name').innerText()).toBe(HOSTILE);
    expect(await extras.locator('.state').innerText()).toBe('Operational');
    expect(await page.getByRole('heading', { name: 'Partial System Outage' }).count()).toBe(1);
    expect(await page.getByRole('region', { name: 'Active incidents' }).innerText()).toContain(`Found it: ${HOSTILE}`);
    await page.context().close();
  });

  it('gives every uptime bar an accessible label naming its day and share', async () => {
    const { page } = await open();
    const shopBars = page.getByRole('list', { name: 'Uptime of Shop per day, last 90 days' }).getByRole('img');
    expect(await shopBars.count()).toBe(90);
    expect(await shopBars.nth(86).getAttribute('title')).toBe(`${at(3, 0).slice(0, 10)}: 100.00 % of 4 runs passed; maintenance excluded`);
    // The title is the bar's only label: it must be its accessible name too.
    expect(await page.getByRole('img', { name: `${at(3, 0).slice(0, 10)}: 100.00 % of 4 runs passed; maintenance excluded`, exact: true }).count()).toBe(1);
    expect(await page.getByRole('img', { name: `${at(2, 0).slice(0, 10)}: 75.00 % of 4 runs passed` }).count()).toBe(1);
    expect(await page.getByRole('img', { name: `${at(40, 0).slice(0, 10)}: no data` }).count()).toBe(3);
    await page.context().close();
  });

  it('has no serious or critical axe-core violations, the bars named by their titles alone', async () => {
    // axe is injected as an inline script, which the page's CSP would block: this context bypasses it.
    const context = await browser.newContext({ bypassCSP: true, viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await page.goto(`${fixture.api.server.url}/status/acme`);
    await page.addScriptTag({ path: createRequire(import.meta.url).resolve('axe-core/axe.min.js') });
    const violations = await inPage<Array<{ id: string; impact: string }>>(
      page,
      "axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations.map((v) => ({ id: v.id, impact: v.impact })))",
    );
    expect(violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')).toEqual([]);
    await context.close();
  });

  it('fits a 360 px wide screen without horizontal scrolling', async () => {
    const { page } = await open({ width: 360 });
    const widths = await inPage<{ scroll: number; client: number }>(page, '({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth })');
    expect(widths.scroll).toBeLessThanOrEqual(widths.client);
    await page.context().close();
  });

  it('reaches every link with the Tab key, in order, each showing where focus is', async () => {
    const { page } = await open();
    const links = await inPage<string[]>(page, "[...document.querySelectorAll('a[href]')].map((a) => a.href)");
    expect(links.length).toBeGreaterThanOrEqual(4);
    const reached: string[] = [];
    for (let i = 0; i < links.length; i++) {
      await page.keyboard.press('Tab');
      reached.push(await inPage<string>(page, "document.activeElement?.href ?? ''"));
      const outline = await inPage<string>(page, 'getComputedStyle(document.activeElement).outlineStyle');
      expect(outline).not.toBe('none');
    }
    expect(reached).toEqual(links);
    await page.context().close();
  });

  it('follows a dark colour scheme when the page theme is AUTO', async () => {
    const light = await open({ colorScheme: 'light' });
    const dark = await open({ colorScheme: 'dark' });
    const background = (page: Page) => inPage<string>(page, 'getComputedStyle(document.body).backgroundColor');
    expect(await background(light.page)).toBe('rgb(255, 255, 255)');
    expect(await background(dark.page)).toBe('rgb(13, 17, 23)');
    await light.page.context().close();
    await dark.page.context().close();
  });

  it('requests nothing outside the service on loopback', async () => {
    const { page, requested } = await open();
    expect(requested.length).toBeGreaterThanOrEqual(3);
    expect(requested.filter((url) => !url.startsWith(`${fixture.api.server.url}/`))).toEqual([]);
    expect(await page.getByRole('img', { name: `Acme ${HOSTILE} logo` }).count()).toBe(1);
    expect(await inPage<number>(page, "document.querySelector('header img').naturalWidth")).toBeGreaterThan(0);
    await page.context().close();
  });
});
