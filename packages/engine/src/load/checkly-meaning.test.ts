import { describe, expect, it } from 'vitest';
import { useTempProjects } from './test-support/temp-projects.js';
import { loadProject } from './load-project.js';

const CHECKLY_CONFIG = "import { defineConfig } from 'checkly';\n\nexport default defineConfig({ projectName: 'Shop', logicalId: 'shop' });\n";
const REQUEST = "request: { method: 'GET', url: 'https://example.com' }";

const project = useTempProjects('vigil-meaning-');

const payloadOf = (loaded: Awaited<ReturnType<typeof loadProject>>, address: string) => loaded.specs.find((spec) => spec.address === address)?.payload;

describe('Checkly imports mean what they mean in Checkly', () => {
  it('serves CheckGroup from checkly/constructs as CheckGroupV1, and from vigil/constructs as the CheckGroupV2 alias', async () => {
    const root = project({
      'checkly.config.ts': CHECKLY_CONFIG,
      '__checks__/a.check.ts': "import { CheckGroup } from 'checkly/constructs';\n\nnew CheckGroup('checkly-group', { name: 'Checkly' });\n",
      '__checks__/b.check.ts': "import { CheckGroup } from 'vigil/constructs';\n\nnew CheckGroup('vigil-group', { name: 'Vigil' });\n",
      '__checks__/c.check.js': "const { CheckGroup } = require('checkly/constructs');\n\nnew CheckGroup('required-group', { name: 'Required' });\n",
    });
    const loaded = await loadProject({ cwd: root });
    expect(loaded.diagnostics).toEqual([]);
    expect(payloadOf(loaded, 'check-group.checkly-group')).toMatchObject({ useGlobalAlertSettings: true, runParallel: false });
    expect(payloadOf(loaded, 'check-group.required-group')).toMatchObject({ useGlobalAlertSettings: true, runParallel: false });
    expect(payloadOf(loaded, 'check-group.vigil-group')).toMatchObject({ useGlobalAlertSettings: null, runParallel: null });
  });

  it('loads import * as Checkly from \'checkly\' (Checkly.constructs.X) and the @checkly/cli/constructs path', async () => {
    const root = project({
      'checkly.config.ts': CHECKLY_CONFIG,
      '__checks__/a.check.ts': `import * as Checkly from 'checkly';\n\nnew Checkly.constructs.ApiCheck('namespaced', { name: 'Namespaced', ${REQUEST} });\n`,
      '__checks__/b.check.ts': `import { ApiCheck } from '@checkly/cli/constructs';\n\nnew ApiCheck('old-path', { name: 'Old path', ${REQUEST} });\n`,
    });
    const loaded = await loadProject({ cwd: root });
    expect(loaded.diagnostics).toEqual([]);
    expect(loaded.specs.map((spec) => spec.address)).toEqual(['api-check.namespaced', 'api-check.old-path']);
  });

  it('accepts description and environmentVariables on a check, and only warns about a prop Checkly would ignore', async () => {
    const root = project({
      'checkly.config.ts': CHECKLY_CONFIG,
      '__checks__/a.check.ts': [
        "import { ApiCheck } from 'checkly/constructs';",
        '',
        "new ApiCheck('home', {",
        "  name: 'Home',",
        "  description: 'The **home** page',",
        "  environmentVariables: [{ key: 'TOKEN', value: 'x' }],",
        "  testOnly: false,",
        '  frequncy: 5,',
        `  ${REQUEST},`,
        '});',
        '',
      ].join('\n'),
    });
    const loaded = await loadProject({ cwd: root });
    expect(loaded.diagnostics).toEqual([
      {
        severity: 'warning',
        message: '"frequncy" is not a prop of ApiCheck',
        hint: 'Did you mean "frequency"?',
        address: 'api-check.home',
        path: 'frequncy',
        source: { file: '__checks__/a.check.ts', line: 3, column: 1 },
      },
    ]);
    expect(payloadOf(loaded, 'api-check.home')).toMatchObject({ description: 'The **home** page', environmentVariables: [{ key: 'TOKEN', value: 'x' }] });
  });

  it('says at the check what it cannot carry over instead of dropping it: snapshot baselines, a multi-step check\'s playwrightConfig', async () => {
    const root = project({
      'checkly.config.ts': CHECKLY_CONFIG,
      '__checks__/home.check.ts': [
        "import { BrowserCheck, MultiStepCheck } from 'checkly/constructs';",
        '',
        "new BrowserCheck('home', { name: 'Home', code: { entrypoint: './home.spec.ts' } });",
        "new MultiStepCheck('flow', { name: 'Flow', code: { content: 'run()' }, playwrightConfig: { timeout: 5000 } });",
        '',
      ].join('\n'),
      '__checks__/home.spec.ts': "import { test, expect } from '@playwright/test';\n\ntest('home', async ({ page }) => { await expect(page).toHaveScreenshot(); });\n",
      '__checks__/home.spec.ts-snapshots/home-1-chromium-linux.png': 'png',
    });
    const loaded = await loadProject({ cwd: root });
    expect(loaded.diagnostics.map((d) => [d.severity, d.address, d.path, d.message, d.hint, d.source?.line])).toEqual([
      [
        'warning',
        'browser-check.home',
        'code.entrypoint',
        "the visual snapshot baselines in home.spec.ts-snapshots/ are not carried over: vigil's browser checks have no snapshot storage yet, so toHaveScreenshot() has no baseline to compare against once deployed",
        'Keep checks that compare screenshots in Checkly for now, or compare something other than pixels.',
        3,
      ],
      [
        'warning',
        'multistep-check.flow',
        'playwrightConfig',
        '"playwrightConfig" is not applied to multi-step checks by vigil yet: the script runs with Playwright\'s defaults (its use, expect and timeout options are dropped)',
        'Set what the script needs in the script itself (e.g. test.use({ ... }) or request options), or keep the check in Checkly for now.',
        4,
      ],
    ]);
  });
});
