import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserExecutor } from '../executors/browser.js';
import { multiStepExecutor } from '../executors/multi-step.js';
import { createRunner } from '../runner.js';
import type { Runner } from '../types.js';
import { FILE_REFUSED_REASON } from './file-guard.js';

/** What a page that read the file would show; it must appear nowhere in a result. */
const CONTENT = 'vigil-local-file-content-3f9a';
let dir: string;
let fileUrl: string;
let runner: Runner;

beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'vigil-file-guard-'));
  const file = path.join(dir, 'private.txt');
  writeFileSync(file, `${CONTENT}\n`);
  fileUrl = pathToFileURL(file).href;
  runner = createRunner({ executors: [browserExecutor, multiStepExecutor], multiStepTimeoutMs: 60_000 });
});

afterAll(async () => {
  await runner.close();
  rmSync(dir, { recursive: true, force: true });
});

const check = (checkType: 'BROWSER' | 'MULTI_STEP', script: string) => ({ checkType, name: 'reader', script, retryStrategy: null, doubleCheck: false });

describe.concurrent('pages may not load file: URLs', { timeout: 120_000 }, () => {
  it('a browser check\'s page.goto fails saying why, and the file\'s content is nowhere in the result', async () => {
    const script = `const { test } = require('@playwright/test');
test('read', async ({ page }) => {
  await page.goto(process.env.FILE_URL);
  console.log(await page.content());
});
`;
    const { final } = await runner.run(check('BROWSER', script), { location: 'eu-west-1', variables: [{ key: 'FILE_URL', value: fileUrl }] });
    expect(final.hasFailures).toBe(true);
    expect(final.error).toMatch(new RegExp(`^${escape(`${fileUrl} refused: ${FILE_REFUSED_REASON} — `)}.*net::ERR_ACCESS_DENIED`));
    expect(JSON.stringify(final)).not.toContain(CONTENT);
  });

  it('so does a page the spec opens itself with browser.newPage(), an upper-case scheme and an ES module import', async () => {
    const script = `import { test } from '@playwright/test';
test('read', async ({ browser }) => {
  const page = await browser.newPage();
  await page.goto(process.env.FILE_URL);
  console.log(await page.content());
});
`;
    const { final } = await runner.run(check('BROWSER', script), { location: 'eu-west-1', variables: [{ key: 'FILE_URL', value: fileUrl.replace(/^file:/, 'FILE:') }] });
    expect(final.hasFailures).toBe(true);
    expect(final.error).toMatch(new RegExp(`^${escape(`${fileUrl} refused: ${FILE_REFUSED_REASON} — `)}.*net::ERR_ACCESS_DENIED`));
    expect(JSON.stringify(final)).not.toContain(CONTENT);
  });

  it('a multi-step check\'s page is refused the same way', async () => {
    const script = `const { test } = require('@playwright/test');
test('read', async ({ page }) => {
  await page.goto(process.env.FILE_URL);
  console.log(await page.content());
});
`;
    const { final } = await runner.run(check('MULTI_STEP', script), { location: 'eu-west-1', variables: [{ key: 'FILE_URL', value: fileUrl }] });
    expect(final.hasFailures).toBe(true);
    expect(final.error).toContain(`${fileUrl} refused: ${FILE_REFUSED_REASON} — `);
    expect(JSON.stringify(final)).not.toContain(CONTENT);
  });

  it('leaves the rest of @playwright/test as it was: test.describe, test.step, expect and a page of its own', async () => {
    const script = `const { test, expect, defineConfig } = require('@playwright/test');
test.describe('suite', () => {
  test('works', async ({ page }) => {
    await test.step('set content', async () => page.setContent('<h1>Hi</h1>'));
    await expect(page.locator('h1')).toHaveText('Hi');
    expect(typeof defineConfig).toBe('function');
  });
});
`;
    const { final } = await runner.run(check('BROWSER', script), { location: 'eu-west-1', variables: [] });
    expect(final.error).toBeNull();
    expect(final.hasFailures).toBe(false);
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
