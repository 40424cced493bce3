import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundlePlaywrightSuite } from './playwright-suites.js';

let workdir: string;

beforeAll(async () => {
  workdir = await mkdtemp(path.join(os.tmpdir(), 'vigil-suites-'));
});
afterAll(async () => {
  await rm(workdir, { recursive: true, force: true });
});

async function project(name: string, files: Record<string, string>): Promise<string> {
  const root = path.join(workdir, name);
  for (const [file, content] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(root, file)), { recursive: true });
    await writeFile(path.join(root, file), content);
  }
  return root;
}

const CONFIG = (options: string) => `import { defineConfig, devices } from '@playwright/test';\nexport default defineConfig({ ${options}, use: { ...devices['Desktop Chrome'] } });\n`;
/** A spec using what it imports (TypeScript drops imports nothing uses). */
const SPEC = (imports = '', uses = '') => `import { test } from '@playwright/test';\n${imports}\ntest('t', async () => { ${uses} });\n`;

describe('bundling a Playwright suite', () => {
  it('takes the config, the specs its testDir and testMatch select (of every project), their local imports and the package.json files, never node_modules', async () => {
    const root = await project('selects', {
      'package.json': '{ "name": "shop" }',
      'suite/playwright.config.ts': CONFIG("testDir: './tests', projects: [{ name: 'api' }, { name: 'smoke', testDir: './smoke', testMatch: '*.check.ts' }]"),
      'suite/tests/a.spec.ts': SPEC("import { user } from '../fixtures/user';\nimport lodash from 'lodash';", 'lodash.get(user, "name");'),
      'suite/tests/notes.md': 'not a spec',
      'suite/tests/node_modules/x/x.spec.ts': SPEC(),
      'suite/smoke/home.check.ts': SPEC(),
      'suite/smoke/home.spec.ts': SPEC(),
      'suite/fixtures/user.ts': "import data from './user.json';\nexport const user = data;\n",
      'suite/fixtures/user.json': '{ "name": "jo" }',
      'other/unrelated.spec.ts': SPEC(),
    });
    const result = await bundlePlaywrightSuite(root, path.join(root, 'suite/playwright.config.ts'));
    expect(result.diagnostics).toEqual([]);
    expect(result.files?.map((file) => file.path)).toEqual([
      'package.json',
      'suite/fixtures/user.json',
      'suite/fixtures/user.ts',
      'suite/playwright.config.ts',
      'suite/smoke/home.check.ts',
      'suite/tests/a.spec.ts',
    ]);
  });

  it('refuses a spec that imports a file outside the project root, at the importing line', async () => {
    await project('outside-shared', { 'secret.ts': 'export const key = 1;\n' });
    const root = await project('outside/root', {
      'playwright.config.ts': CONFIG("testDir: '.'"),
      'leak.spec.ts': SPEC("import { key } from '../../outside-shared/secret';", 'console.log(key);'),
    });
    const result = await bundlePlaywrightSuite(root, path.join(root, 'playwright.config.ts'));
    expect(result.files).toBeUndefined();
    expect(result.diagnostics).toEqual([
      expect.objectContaining({
        severity: 'error',
        message: expect.stringMatching(/^"\.\.\/\.\.\/outside-shared\/secret" resolves to .*outside-shared\/secret\.ts, outside the project root, so a Playwright check cannot bundle it/),
        source: expect.objectContaining({ file: 'leak.spec.ts', line: 2 }),
      }),
    ]);
  });

  it('says when the config selects no test files', async () => {
    const root = await project('empty', { 'playwright.config.ts': CONFIG("testDir: './tests'") });
    const result = await bundlePlaywrightSuite(root, path.join(root, 'playwright.config.ts'));
    expect(result.diagnostics).toEqual([{ severity: 'error', message: 'the Playwright config playwright.config.ts selects no test files', hint: 'Check its testDir and testMatch.' }]);
  });

  it('refuses a suite larger than a check carries, naming its largest files', async () => {
    const root = await project('large', {
      'playwright.config.ts': CONFIG("testDir: '.'"),
      'big.spec.ts': `${SPEC()}// ${'x'.repeat(1024 * 1024)}\n`,
    });
    const result = await bundlePlaywrightSuite(root, path.join(root, 'playwright.config.ts'));
    expect(result.files).toBeUndefined();
    expect(result.diagnostics[0]?.message).toMatch(/^the Playwright suite has 2 files of \d+ characters, more than a check carries \(200 files, 1048576 characters\); largest: big\.spec\.ts \(\d+\)/);
  });
});

describe('evaluating a Playwright config as Node would', () => {
  /** Enough of dotenv to show the difference: it requires Node built-ins at run time. */
  const DOTENV = {
    'node_modules/dotenv/package.json': '{ "name": "dotenv", "main": "main.js" }',
    'node_modules/dotenv/main.js': "const fs = require('fs');\nconst path = require('path');\nexports.config = () => { fs.existsSync(path.resolve('.env')); return { parsed: {} }; };\n",
  };

  it('runs a TypeScript config that loads dotenv and builds testDir from __dirname', async () => {
    const root = await project('dotenv', {
      ...DOTENV,
      'playwright.config.ts': [
        "import { defineConfig } from '@playwright/test';",
        "import dotenv from 'dotenv';",
        "import path from 'path';",
        'dotenv.config();',
        "export default defineConfig({ testDir: path.join(__dirname, 'e2e') });",
        '',
      ].join('\n'),
      'e2e/home.spec.ts': SPEC(),
    });
    const result = await bundlePlaywrightSuite(root, path.join(root, 'playwright.config.ts'));
    expect(result.diagnostics).toEqual([]);
    expect(result.files?.map((file) => file.path)).toEqual(['e2e/home.spec.ts', 'playwright.config.ts']);
  });

  it('runs a CommonJS config that requires Node built-ins, with each imported file seeing its own __dirname', async () => {
    const root = await project('commonjs', {
      'playwright.config.js': [
        "const path = require('path');",
        "const { defineConfig } = require('@playwright/test');",
        "const { testDir } = require('./settings/dirs');",
        'module.exports = defineConfig({ testDir });',
        '',
      ].join('\n'),
      'settings/dirs.js': "const path = require('path');\nexports.testDir = path.join(__dirname, '..', 'tests');\n",
      'tests/cart.spec.js': "const { test } = require('@playwright/test');\ntest('cart', async () => {});\n",
    });
    const result = await bundlePlaywrightSuite(root, path.join(root, 'playwright.config.js'));
    expect(result.diagnostics).toEqual([]);
    expect(result.files?.map((file) => file.path)).toEqual(['playwright.config.js', 'settings/dirs.js', 'tests/cart.spec.js']);
  });

  it('says which package a config imports that is not installed', async () => {
    const root = await project('uninstalled', {
      'playwright.config.ts': "import { defineConfig } from '@playwright/test';\nimport 'dotenv/config';\nexport default defineConfig({ testDir: '.' });\n",
      'a.spec.ts': SPEC(),
    });
    const result = await bundlePlaywrightSuite(root, path.join(root, 'playwright.config.ts'));
    expect(result.diagnostics).toEqual([
      {
        severity: 'error',
        message: "could not read the Playwright config playwright.config.ts: Cannot find module 'dotenv/config'",
        hint: 'Install the packages the Playwright config imports (npm install) in the project.',
      },
    ]);
  });

  it('bundles the files include names, relative to the config, which the specs read at run time', async () => {
    const root = await project('include', {
      'suite/playwright.config.ts': CONFIG("testDir: './tests'"),
      'suite/tests/a.spec.ts': SPEC(),
      'suite/fixtures/users.json': '[]',
      'suite/fixtures/notes.md': '# notes',
      'suite/fixtures/node_modules/x.json': '{}',
    });
    const result = await bundlePlaywrightSuite(root, path.join(root, 'suite/playwright.config.ts'), ['fixtures/**/*.json']);
    expect(result.diagnostics).toEqual([]);
    expect(result.files?.map((file) => file.path)).toEqual(['suite/fixtures/users.json', 'suite/playwright.config.ts', 'suite/tests/a.spec.ts']);
  });
});
