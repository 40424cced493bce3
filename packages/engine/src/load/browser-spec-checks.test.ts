import { describe, expect, it } from 'vitest';
import { useTempProjects } from './test-support/temp-projects.js';
import { loadProject } from './load-project.js';

const project = useTempProjects('vigil-browser-specs-');

const SPEC = "import { test } from '@playwright/test';\n\ntest('home', async ({ page }) => {});\n";

function config(checks: string): string {
  return `import { defineConfig } from 'vigil';\n\nexport default defineConfig({ projectName: 'Shop', logicalId: 'shop', checks: { ${checks} } });\n`;
}

function payloadOf(loaded: Awaited<ReturnType<typeof loadProject>>, address: string): Record<string, unknown> {
  const spec = loaded.specs.find((candidate) => candidate.address === address);
  if (spec === undefined) throw new Error(`no ${address} in ${loaded.specs.map((candidate) => candidate.address).join(', ')}`);
  return spec.payload as Record<string, unknown>;
}

describe('browserChecks.testMatch', () => {
  it('makes one BrowserCheck per spec file of the config\'s glob, named after the file, its logical id the path from the root, skipping a spec a check already runs', async () => {
    const root = project({
      'vigil.config.ts': config("browserChecks: { testMatch: '**/__checks__/*.spec.ts', frequency: 30 }"),
      'src/__checks__/home.spec.ts': SPEC,
      'src/__checks__/login.spec.ts': SPEC,
      'src/other/ignored.spec.ts': SPEC,
      'src/login.monitor.ts': "import { BrowserCheck } from 'vigil';\n\nnew BrowserCheck('login', { name: 'Login', code: { entrypoint: './__checks__/login.spec.ts' } });\n",
    });
    const loaded = await loadProject({ cwd: root });
    expect(loaded.diagnostics).toEqual([]);
    expect(loaded.specs.map((spec) => spec.address).sort()).toEqual(['browser-check.login', 'browser-check.src/__checks__/home.spec.ts']);
    expect(payloadOf(loaded, 'browser-check.src/__checks__/home.spec.ts')).toMatchObject({
      name: 'home.spec.ts',
      checkType: 'BROWSER',
      frequency: 30,
      scriptPath: 'src/__checks__/home.spec.ts',
    });
    expect(payloadOf(loaded, 'browser-check.login')).toMatchObject({ frequency: 30 });
    expect(loaded.specs.find((spec) => spec.address === 'browser-check.src/__checks__/home.spec.ts')?.source).toEqual({ file: 'src/__checks__/home.spec.ts', line: 1, column: 1 });
  });

  it("makes a group's browser checks from globs relative to the group's file, named by the match, in the group with its browserChecks defaults", async () => {
    const root = project({
      'vigil.config.ts': config("browserChecks: { frequency: 30 }"),
      'src/web/group.monitor.ts':
        "import { CheckGroupV2 } from 'vigil';\n\nexport const web = new CheckGroupV2('web', { name: 'Web', browserChecks: { testMatch: 'specs/**/*.spec.ts', frequency: 5 } });\n",
      'src/web/specs/cart.spec.ts': SPEC,
      'src/web/specs/nested/pay.spec.ts': SPEC,
    });
    const loaded = await loadProject({ cwd: root });
    expect(loaded.diagnostics).toEqual([]);
    expect(loaded.specs.map((spec) => spec.address).sort()).toEqual([
      'browser-check.src/web/specs/cart.spec.ts',
      'browser-check.src/web/specs/nested/pay.spec.ts',
      'check-group.web',
    ]);
    expect(payloadOf(loaded, 'browser-check.src/web/specs/nested/pay.spec.ts')).toMatchObject({ name: 'specs/nested/pay.spec.ts', frequency: 5 });
    const cart = loaded.specs.find((spec) => spec.address === 'browser-check.src/web/specs/cart.spec.ts');
    expect(JSON.stringify(cart?.refs)).toContain('check-group.web');
  });

  it("reports a group's pattern that reaches outside the project root at the group", async () => {
    const root = project({
      'vigil.config.ts': config(''),
      'group.monitor.ts': "import { CheckGroupV2 } from 'vigil';\n\nnew CheckGroupV2('web', { name: 'Web', browserChecks: { testMatch: '../*.spec.ts' } });\n",
    });
    const loaded = await loadProject({ cwd: root });
    expect(loaded.diagnostics).toEqual([
      expect.objectContaining({
        severity: 'error',
        message: `browserChecks.testMatch pattern "../*.spec.ts" reaches outside the project root ${root}`,
        address: 'check-group.web',
        source: { file: 'group.monitor.ts', line: 3, column: 1 },
      }),
    ]);
  });
});
