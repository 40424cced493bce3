import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTempProjects } from './test-support/temp-projects.js';
import { loadProject } from './load-project.js';

const CHECKLY_CONFIG = "import { defineConfig } from 'checkly';\n\nexport default defineConfig({ projectName: 'Shop', logicalId: 'shop' });\n";

const project = useTempProjects('vigil-session-');

/** A check file that creates one API check per file of `endpoints/`, in an `fs.readdir` callback. */
const READDIR_CHECK = [
  "import fs from 'node:fs';",
  "import path from 'node:path';",
  "import { ApiCheck } from 'checkly/constructs';",
  '',
  "fs.readdir(path.join(__dirname, 'endpoints'), (error, files) => {",
  '  if (error) throw new Error(`no endpoints: ${error.code}`);',
  '  for (const file of files.sort()) {',
  "    const name = file.replace('.json', '');",
  "    new ApiCheck(`endpoint-${name}`, { name, request: { method: 'GET', url: `https://example.com/${name}` } });",
  '  }',
  '});',
  '',
].join('\n');

describe('loading work a Checkly file does asynchronously', () => {
  it('registers constructs created in an fs.readdir callback, as the Checkly CLI keeps its session open', async () => {
    const root = project({
      'checkly.config.ts': CHECKLY_CONFIG,
      '__checks__/endpoints.check.ts': READDIR_CHECK,
      '__checks__/endpoints/orders.json': '{}',
      '__checks__/endpoints/users.json': '{}',
    });
    const loaded = await loadProject({ cwd: root });
    expect(loaded.diagnostics).toEqual([]);
    expect(loaded.specs.map((spec) => spec.address)).toEqual(['api-check.endpoint-orders', 'api-check.endpoint-users']);
  });

  it('reports a throw in a callback at its line instead of ending the process', async () => {
    const root = project({
      'checkly.config.ts': CHECKLY_CONFIG,
      '__checks__/endpoints.check.ts': READDIR_CHECK,
    });
    const loaded = await loadProject({ cwd: root });
    expect(loaded.diagnostics).toEqual([{ severity: 'error', message: 'no endpoints: ENOENT', source: { file: '__checks__/endpoints.check.ts', line: 6, column: 20 } }]);
  });

  it('reports work still pending when the wait ends at the line that started it', async () => {
    const root = project({
      'checkly.config.ts': CHECKLY_CONFIG,
      '__checks__/poll.check.ts': [
        "import { ApiCheck } from 'checkly/constructs';",
        '',
        'let made = false;',
        'const timer = setInterval(() => {',
        "  if (!made) new ApiCheck('late', { name: 'Late', request: { method: 'GET', url: 'https://example.com' } });",
        '  made = true;',
        '}, 60_000);',
        "process.once('beforeExit', () => clearInterval(timer));",
        '',
      ].join('\n'),
    });
    try {
      const loaded = await loadProject({ cwd: root, pendingWorkMs: 50 });
      expect(loaded.diagnostics).toEqual([
        {
          severity: 'error',
          message: '__checks__/poll.check.ts started a timer that was still running 50ms after the file loaded, so constructs it creates later would be missing from the project',
          hint: 'Create constructs at the top level of the file, or await the work there (e.g. `await fs.promises.readdir(dir)` instead of a callback), so the load waits for it.',
          source: { file: '__checks__/poll.check.ts', line: 4, column: 15 },
        },
      ]);
    } finally {
      // The interval belongs to this test's process: stop it so vitest can end.
      for (const handle of (process as unknown as { _getActiveHandles(): Array<{ _repeat?: unknown; close?: () => void }> })._getActiveHandles()) {
        if (handle._repeat === 60_000) clearInterval(handle as unknown as NodeJS.Timeout);
      }
    }
  });
});

describe('relative paths in a Checkly project', () => {
  it('resolves code.entrypoint from the check file being loaded, not from the helper that calls new', async () => {
    const root = project({
      'checkly.config.ts': CHECKLY_CONFIG,
      'lib/factory.ts': [
        "import { MultiStepCheck } from 'checkly/constructs';",
        '',
        'export function journey(id: string, entrypoint: string) {',
        '  return new MultiStepCheck(id, { name: id, code: { entrypoint } });',
        '}',
        '',
      ].join('\n'),
      '__checks__/shop/cart.check.ts': "import { journey } from '../../lib/factory';\n\njourney('cart', './cart.spec.ts');\n",
      '__checks__/shop/cart.spec.ts': "import { test } from '@playwright/test';\n\ntest('cart', async () => {});\n",
      'lib/cart.spec.ts': "throw new Error('the helper directory must not be used');\n",
    });
    const loaded = await loadProject({ cwd: root });
    expect(loaded.diagnostics).toEqual([]);
    const check = loaded.project.constructs()[0] as unknown as { scriptEntrypoints(): Array<{ path: string }> };
    expect(check.scriptEntrypoints().map((entry) => path.relative(root, entry.path))).toEqual(['__checks__/shop/cart.spec.ts']);
  });
});
