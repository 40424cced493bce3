/**
 * Subscribing from the public page in Chromium, with the keyboard only: the form is reached with Tab,
 * filled, sent with Enter (a plain form POST, the page runs no script, and Chromium's own `Origin`
 * passes the same-origin rule), and the answer read. The outbox's sender is replaced by one that
 * records, so the test sees the verification mail queued without an SMTP server. Chromium is found
 * as in browser.test.ts; without one this fails, naming what to install.
 */
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumPath, startPageFixture, type PageFixture } from './test-fixture.js';

const executablePath = chromiumPath();

describe('subscribing in Chromium', () => {
  let fixture: PageFixture;
  let browser: Browser;
  const sent: Array<Record<string, unknown>> = [];
  beforeAll(async () => {
    if (!executablePath) throw new Error('no Chromium to test the page in: set VIGIL_CHROMIUM_PATH or install chromium (apt-get install -y chromium)');
    fixture = await startPageFixture({
      server: {
        scheduler: {
          alerting: {
            smtpUrl: 'smtp://127.0.0.1:25',
            pollMs: 50,
            send: async (_type, config) => {
              sent.push(config);
              return { kind: 'sent', result: 'recorded by the test' };
            },
          },
        },
      },
    });
    browser = await chromium.launch({ executablePath: executablePath!, args: ['--no-sandbox'] });
  });
  afterAll(async () => {
    await browser?.close();
    await fixture?.api.close();
  });

  it('fills and sends the form with the keyboard and reads the confirmation', async () => {
    const context = await browser.newContext({ viewport: { width: 360, height: 800 } });
    const page = await context.newPage();
    await page.goto(`${fixture.api.server.url}/status/acme`, { waitUntil: 'load' });
    let focused = '';
    for (let presses = 0; presses < 40 && focused !== 'subscribe-address'; presses++) {
      await page.keyboard.press('Tab');
      focused = (await page.evaluate('document.activeElement?.id ?? ""')) as string;
    }
    expect(focused).toBe('subscribe-address');
    expect(await page.getByLabel('E-mail address').count()).toBe(1);
    await page.keyboard.type('reader@example.com');
    await Promise.all([page.waitForURL(`${fixture.api.server.url}/status/acme/subscribe`), page.keyboard.press('Enter')]);
    expect(await page.getByRole('heading', { level: 1 }).innerText()).toBe('Check your inbox');
    expect(await page.locator('main').innerText()).toContain('If reader@example.com can receive e-mail, a message to confirm the subscription');
    await expect.poll(() => sent.map((config) => [config['kind'], config['address']]), { message: 'the verification mail to reader@example.com handed to the sender' }).toEqual([['verification', 'reader@example.com']]);
    await page.getByRole('link', { name: /^Back to / }).focus();
    await Promise.all([page.waitForURL(`${fixture.api.server.url}/status/acme`), page.keyboard.press('Enter')]);
    await context.close();
  });
});
