import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadProject } from './load-project.js';

const FIXTURES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../../test/fixtures');

describe('loadProject', () => {
  it('loads nested files, a shared group, tsconfig paths and scripts into one graph', async () => {
    const loaded = await loadProject({ cwd: FIXTURES, configPath: 'project/vigil.config.ts' });
    expect(loaded.diagnostics).toEqual([]);
    expect(loaded.root).toBe(path.join(FIXTURES, 'project'));
    expect(loaded.files.map((file) => path.relative(loaded.root, file))).toEqual([
      'checks/deep/nested/login.monitor.ts',
      'checks/flows/checkout.monitor.ts',
      'checks/home.monitor.ts',
    ]);
    expect(loaded.graph.topologicalOrder()).toEqual([
      'alert-channel.oncall',
      'check-group.web',
      'api-check.home',
      'api-check.login',
      'multistep-check.checkout',
    ]);
    expect(loaded.specs.find((spec) => spec.address === 'api-check.home')?.source).toEqual({
      file: 'checks/home.monitor.ts',
      line: 4,
      column: 1,
    });
  });

  it('gives each file its own __dirname, so entrypoints built from it resolve next to the file', async () => {
    const loaded = await loadProject({ cwd: path.join(FIXTURES, 'project') });
    const checkout = loaded.specs.find((spec) => spec.address === 'multistep-check.checkout');
    expect(checkout?.payload['scriptPath']).toBe('checks/flows/checkout.spec.ts');
    // The local helper is inlined; the runtime's @playwright/test stays a require.
    expect(checkout?.payload['script']).toContain('https://example.com/checkout/${basket}');
    expect(checkout?.payload['script']).toContain('require("@playwright/test")');
  });

  it('gives bundled user code a working require (the bundle banner takes it from a global)', async () => {
    const root = mkdtempSync(path.join(os.tmpdir(), 'vigil-require-'));
    try {
      mkdirSync(path.join(root, 'checks'));
      writeFileSync(path.join(root, 'vigil.config.ts'), "import { defineConfig } from 'vigil';\nexport default defineConfig({ projectName: 'R', logicalId: 'r' });\n");
      writeFileSync(path.join(root, 'checks/name.cjs'), "module.exports = require('node:path').basename('/x/required');\n");
      writeFileSync(
        path.join(root, 'checks/req.monitor.ts'),
        "import { ApiCheck } from 'vigil/constructs';\nconst name: string = require('./name.cjs');\nnew ApiCheck(name, { name, request: { url: 'https://example.com/' } });\n",
      );
      const loaded = await loadProject({ cwd: root });
      expect(loaded.diagnostics).toEqual([]);
      expect(loaded.specs.map((spec) => spec.address)).toEqual(['api-check.required']);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('evaluates every load in a fresh project', async () => {
    const first = await loadProject({ cwd: FIXTURES, configPath: 'ignored/vigil.config.ts' });
    const second = await loadProject({ cwd: FIXTURES, configPath: 'ignored/vigil.config.ts' });
    expect(second.project).not.toBe(first.project);
    expect(second.specs.map((spec) => spec.address)).toEqual(['api-check.live']);
    expect(second.diagnostics).toEqual([]);
  });

  it('reports an exception thrown by a monitor at the throwing line, without loading further', async () => {
    const loaded = await loadProject({ cwd: FIXTURES, configPath: 'thrown-error/vigil.config.ts' });
    expect(loaded.diagnostics).toEqual([
      {
        severity: 'error',
        message: 'no endpoint configured for payments',
        source: { file: 'checks/throws.monitor.ts', line: 4, column: 9 },
      },
    ]);
    expect(loaded.specs).toEqual([]);
  });

  it('throws a ProjectNotFoundError when there is no config', async () => {
    await expect(loadProject({ cwd: FIXTURES, configPath: 'vigil.config.ts' })).rejects.toThrow(
      `config file not found: ${path.join(FIXTURES, 'vigil.config.ts')}`,
    );
  });
});
