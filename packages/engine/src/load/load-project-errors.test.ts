import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTempProjects } from './test-support/temp-projects.js';
import { loadProject, MODULE_SOURCE_BUDGET } from './load-project.js';

const CONFIG = "import { defineConfig } from 'vigil';\n\nexport default defineConfig({ projectName: 'Temp', logicalId: 'temp' });\n";

const project = useTempProjects('vigil-load-');

describe('loadProject with problems in user code', () => {
  it('reports an exception thrown by the config at its line', async () => {
    const root = project({
      'vigil.config.ts': "import { defineConfig } from 'vigil';\n\nconst region: string = 'mars';\nthrow new Error(`unknown region ${region}`);\n",
    });
    const loaded = await loadProject({ cwd: root });
    expect(loaded.diagnostics).toEqual([
      { severity: 'error', message: 'unknown region mars', source: { file: 'vigil.config.ts', line: 4, column: 7 } },
    ]);
  });

  it('reports a config without a default export', async () => {
    const root = project({ 'vigil.config.ts': "export const config = { projectName: 'x' };\n" });
    const loaded = await loadProject({ cwd: root });
    expect(loaded.diagnostics).toEqual([
      {
        severity: 'error',
        message: 'vigil.config.ts must export its config as the default export',
        hint: "Write `export default defineConfig({ projectName: '...', logicalId: '...' })`, importing defineConfig from '@vigil-mon/cli'.",
        source: { file: 'vigil.config.ts', line: 1, column: 1 },
      },
    ]);
  });

  it('reports an import of a missing local file at the import', async () => {
    const root = project({
      'vigil.config.ts': CONFIG,
      'checks/a.monitor.ts': "import { group } from './nowhere';\n\nconsole.log(group);\n",
    });
    const loaded = await loadProject({ cwd: root });
    expect(loaded.diagnostics).toEqual([
      { severity: 'error', message: 'Could not resolve "./nowhere"', source: { file: 'checks/a.monitor.ts', line: 1, column: 23 } },
    ]);
  });

  it('reports every module that throws, not only the first', async () => {
    // Files big enough that each is bundled into a module of its own.
    const padding = `// ${'x'.repeat(MODULE_SOURCE_BUDGET)}\n`;
    const files: Record<string, string> = {
      'vigil.config.ts': CONFIG,
      'checks/f00.monitor.ts': `${padding}throw new Error('file 0 is broken');\n`,
      'checks/f01.monitor.ts': `${padding}export {};\n`,
      'checks/f11.monitor.ts': `${padding}throw new Error('file 11 is broken');\n`,
    };
    const loaded = await loadProject({ cwd: project(files) });
    expect(loaded.diagnostics).toEqual([
      { severity: 'error', message: 'file 0 is broken', source: { file: 'checks/f00.monitor.ts', line: 2, column: 7 } },
      { severity: 'error', message: 'file 11 is broken', source: { file: 'checks/f11.monitor.ts', line: 2, column: 7 } },
    ]);
  });
});

describe('loadProject file locations', () => {
  it('gives each file its own __filename, __dirname and import.meta, with a .mjs config', async () => {
    const monitor = [
      "import path from 'node:path';",
      "import { fileURLToPath } from 'node:url';",
      "import { ApiCheck } from 'vigil/constructs';",
      '',
      'const fromUrl = path.relative(path.dirname(fileURLToPath(import.meta.url)), __filename);',
      "new ApiCheck(path.basename(__dirname), { name: `${fromUrl} in ${path.basename(import.meta.dirname)}`, request: { url: 'https://example.com' } });",
      '',
    ].join('\n');
    const root = project({
      'vigil.config.mjs': "import { defineConfig } from 'vigil';\nexport default defineConfig({ projectName: 'Temp', logicalId: 'temp' });\n",
      'alpha/one.monitor.ts': monitor,
      'beta/two.monitor.ts': monitor,
    });
    const loaded = await loadProject({ cwd: root, configPath: 'vigil.config.mjs' });
    expect(loaded.diagnostics).toEqual([]);
    expect(loaded.specs.map((spec) => [spec.address, spec.payload['name'], spec.source])).toEqual([
      ['api-check.alpha', 'one.monitor.ts in alpha', { file: 'alpha/one.monitor.ts', line: 6, column: 1 }],
      ['api-check.beta', 'two.monitor.ts in beta', { file: 'beta/two.monitor.ts', line: 6, column: 1 }],
    ]);
  });
});

describe('loadProject and the config module', () => {
  it('evaluates the config once, also when monitors import it', async () => {
    const root = project({
      'vigil.config.ts': [
        "import { defineConfig } from 'vigil';",
        'const counter = globalThis as { vigilConfigRuns?: number };',
        'counter.vigilConfigRuns = (counter.vigilConfigRuns ?? 0) + 1;',
        'export const runs = counter.vigilConfigRuns;',
        "export default defineConfig({ projectName: 'Shared config', logicalId: 'shared' });",
        '',
      ].join('\n'),
      'checks/a.monitor.ts': [
        "import { ApiCheck } from 'vigil/constructs';",
        "import config, { runs } from '../vigil.config';",
        "new ApiCheck('a', { name: `${config.projectName} ${runs}`, request: { url: 'https://example.com' } });",
        '',
      ].join('\n'),
    });
    const before = (globalThis as { vigilConfigRuns?: number }).vigilConfigRuns ?? 0;
    const loaded = await loadProject({ cwd: root });
    expect(loaded.diagnostics).toEqual([]);
    expect(loaded.specs[0]?.payload['name']).toBe(`Shared config ${before + 1}`);
    expect((globalThis as { vigilConfigRuns?: number }).vigilConfigRuns).toBe(before + 1);
  });
});

describe('loadProject and the vigil packages', () => {
  it('gives user code the very constructs module the loader runs, whichever name it imports', async () => {
    const constructs = await import('@vigil/constructs');
    const root = project({
      'vigil.config.ts': CONFIG,
      'checks/a.monitor.ts': [
        "import * as fromVigil from 'vigil/constructs';",
        "import * as fromPackage from '@vigil/constructs';",
        "import { defineConfig } from 'vigil';",
        'Object.assign(globalThis, { vigilSeen: [fromVigil.Project, fromPackage.Project, defineConfig] });',
        '',
      ].join('\n'),
    });
    const loaded = await loadProject({ cwd: root });
    expect(loaded.diagnostics).toEqual([]);
    const seen = (globalThis as { vigilSeen?: unknown[] }).vigilSeen;
    expect(seen).toEqual([constructs.Project, constructs.Project, constructs.defineConfig]);
    expect(seen?.[0]).toBe(constructs.Project);
  });
});

describe('loadProject and user code that does not finish', () => {
  it('stops waiting for a top-level await after timeoutMs and names the file it waits in, not the files after it', async () => {
    const padding = `// ${'x'.repeat(MODULE_SOURCE_BUDGET)}\n`;
    const root = project({
      'vigil.config.ts': CONFIG,
      'checks/a.monitor.ts': "import { ApiCheck } from 'vigil/constructs';\nnew ApiCheck('a', { name: 'A', request: { url: 'https://example.com' } });\n",
      'checks/b.monitor.ts': 'await new Promise((resolve) => setTimeout(resolve, 60_000).unref());\n',
      'checks/c.monitor.ts': 'export {};\n',
      // In a module of its own, so the count covers files of later modules too.
      'checks/d.monitor.ts': `${padding}export {};\n`,
    });
    // Long enough for a loaded machine to evaluate a.monitor.ts first.
    const loaded = await loadProject({ cwd: root, timeoutMs: 2_000 });
    expect(loaded.stalled).toBe('timeout');
    expect(loaded.specs).toEqual([]);
    expect(loaded.diagnostics).toEqual([
      {
        severity: 'error',
        message: 'checks/b.monitor.ts did not finish loading within 2s: a top-level await in it (or in a file it imports) is still waiting; 2 more files were not loaded',
        hint: 'Make the awaited work finish sooner, or allow more time with --load-timeout (e.g. --load-timeout 2m).',
      },
    ]);
    expect(existsSync(path.join(root, '.vigil', 'tmp'))).toBe(false);
  });

  it('counts the config against the same time', async () => {
    const root = project({ 'vigil.config.ts': `await new Promise((resolve) => setTimeout(resolve, 60_000).unref());\n${CONFIG}` });
    const loaded = await loadProject({ cwd: root, timeoutMs: 200 });
    expect(loaded.diagnostics.map((diagnostic) => diagnostic.message)).toEqual([
      'vigil.config.ts did not finish loading within 200ms: a top-level await in it (or in a file it imports) is still waiting',
    ]);
  });
});

describe('loadProject and process.exit', () => {
  it('reports a file that calls process.exit at that line instead of letting it end the process', async () => {
    const root = project({
      'vigil.config.ts': CONFIG,
      'checks/a.monitor.ts': "if (!process.env['SHOP_URL']) {\n  process.exit(0);\n}\n",
    });
    const loaded = await loadProject({ cwd: root });
    expect(loaded.diagnostics).toEqual([
      {
        severity: 'error',
        message: 'process.exit(0) was called while vigil loaded the project; monitor and config files must not end the process',
        source: { file: 'checks/a.monitor.ts', line: 2, column: 11 },
      },
    ]);
    expect(typeof process.exit).toBe('function');
  });
});
