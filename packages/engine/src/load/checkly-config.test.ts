import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTempProjects } from './test-support/temp-projects.js';
import { loadProject } from './load-project.js';

const project = useTempProjects('vigil-checkly-config-');

function config(body: string): string {
  return `import { defineConfig } from 'checkly';\n\nexport default defineConfig({ projectName: 'Shop', logicalId: 'shop', ${body} });\n`;
}

const SPEC = "import { test } from '@playwright/test';\n\ntest('home', async () => {});\n";

const API_CHECK = "import { ApiCheck } from 'checkly/constructs';\n\nnew ApiCheck('home', { name: 'Home', request: { method: 'GET', url: 'https://example.com' } });\n";

/** Errors only: a project of spec files alone also warns that Checkly's default checkMatch matches nothing. */
function errorsOf(loaded: Awaited<ReturnType<typeof loadProject>>) {
  return loaded.diagnostics.filter((diagnostic) => diagnostic.severity === 'error');
}

function payloadOf(loaded: Awaited<ReturnType<typeof loadProject>>, address: string): Record<string, unknown> {
  const spec = loaded.specs.find((candidate) => candidate.address === address);
  if (spec === undefined) throw new Error(`no ${address} in ${loaded.specs.map((candidate) => candidate.address).join(', ')}`);
  return spec.payload as Record<string, unknown>;
}

describe('a Checkly config loads unchanged', () => {
  it('accepts repoUrl, cli and the check defaults Checkly has', async () => {
    const root = project({
      'checkly.config.ts': config(
        "repoUrl: 'https://github.com/acme/shop', " +
          "checks: { checkMatch: '**/*.check.ts', shouldFail: true, doubleCheck: false, environmentVariables: [{ key: 'A', value: '1' }] }, " +
          "cli: { runLocation: 'eu-central-1', privateRunLocation: 'dc-1', reporters: ['list'], retries: 0, verbose: true, loader: {} }",
      ),
      '__checks__/home.check.ts': API_CHECK,
    });
    const loaded = await loadProject({ cwd: root });
    expect(loaded.diagnostics).toEqual([]);
    expect(payloadOf(loaded, 'api-check.home')).toMatchObject({ shouldFail: true, doubleCheck: false });
  });

  it('gives checks.playwrightConfig to browser checks that set none, and accepts it for multi-step checks', async () => {
    const root = project({
      'checkly.config.ts': config(
        "checks: { checkMatch: '**/*.check.ts', playwrightConfig: { timeout: 30000, use: { baseURL: 'https://example.com' } }, " +
          "multiStepChecks: { playwrightConfig: { timeout: 1000 } } }",
      ),
      'home.spec.ts': SPEC,
      'home.check.ts':
        "import { BrowserCheck } from 'checkly/constructs';\n\nnew BrowserCheck('home', { name: 'Home', code: { entrypoint: './home.spec.ts' } });\n",
    });
    const loaded = await loadProject({ cwd: root });
    expect(loaded.diagnostics).toEqual([]);
    expect(payloadOf(loaded, 'browser-check.home').playwrightConfig).toEqual({ timeout: 30000, use: { baseURL: 'https://example.com' } });
  });

  it('makes one MultiStepCheck per spec file multiStepChecks.testMatch selects, its logical id the path from the root', async () => {
    const root = project({
      'checkly.config.ts': config("checks: { multiStepChecks: { testMatch: '**/__checks__/**/*.spec.ts', frequency: 30 } }"),
      'src/__checks__/login.spec.ts': SPEC,
      'src/__checks__/nested/cart.spec.ts': SPEC,
      'src/other/ignored.spec.ts': SPEC,
    });
    const loaded = await loadProject({ cwd: root });
    expect(errorsOf(loaded)).toEqual([]);
    expect(loaded.specs.map((spec) => spec.address)).toEqual([
      'multistep-check.src/__checks__/login.spec.ts',
      'multistep-check.src/__checks__/nested/cart.spec.ts',
    ]);
    expect(payloadOf(loaded, 'multistep-check.src/__checks__/login.spec.ts')).toMatchObject({
      name: 'login.spec.ts',
      frequency: 30,
      scriptPath: 'src/__checks__/login.spec.ts',
    });
    expect(loaded.specs[0]?.source).toEqual({ file: 'src/__checks__/login.spec.ts', line: 1, column: 1 });
  });

  it('does not make a second check for a spec file a MultiStepCheck already runs', async () => {
    const root = project({
      'checkly.config.ts': config("checks: { checkMatch: '**/*.check.ts', multiStepChecks: { testMatch: '**/*.spec.ts' } }"),
      '__checks__/login.spec.ts': SPEC,
      '__checks__/login.check.ts':
        "import { MultiStepCheck } from 'checkly/constructs';\n\nnew MultiStepCheck('login', { name: 'Login', code: { entrypoint: './login.spec.ts' } });\n",
    });
    const loaded = await loadProject({ cwd: root });
    expect(loaded.diagnostics).toEqual([]);
    expect(loaded.specs.map((spec) => spec.address)).toEqual(['multistep-check.login']);
  });

  it('does not make a MultiStepCheck of a spec file a BrowserCheck already runs, as the Checkly CLI', async () => {
    const root = project({
      'checkly.config.ts': config("checks: { checkMatch: '**/*.check.ts', multiStepChecks: { testMatch: '**/*.spec.ts' } }"),
      '__checks__/home.spec.ts': SPEC,
      '__checks__/home.check.ts':
        "import { BrowserCheck } from 'checkly/constructs';\n\nnew BrowserCheck('home', { name: 'Home', code: { entrypoint: './home.spec.ts' } });\n",
    });
    const loaded = await loadProject({ cwd: root });
    expect(loaded.diagnostics).toEqual([]);
    expect(loaded.specs.map((spec) => spec.address)).toEqual(['browser-check.home']);
  });

  it('cascades environment variables as Checkly does: the check’s own, else multiStepChecks’, else checks’', async () => {
    const root = project({
      'checkly.config.ts': config(
        "checks: { checkMatch: '**/*.check.ts', environmentVariables: [{ key: 'FROM', value: 'checks' }], " +
          "multiStepChecks: { testMatch: 'specs/*.spec.ts', environmentVariables: [{ key: 'FROM', value: 'multiStepChecks' }] } }",
      ),
      'specs/a.spec.ts': SPEC,
      'own.spec.ts': SPEC,
      'own.check.ts':
        "import { MultiStepCheck } from 'checkly/constructs';\n\nnew MultiStepCheck('own', { name: 'Own', code: { entrypoint: './own.spec.ts' }, environmentVariables: [{ key: 'FROM', value: 'check', secret: true }] });\n",
    });
    const loaded = await loadProject({ cwd: root });
    expect(loaded.diagnostics).toEqual([]);
    expect(payloadOf(loaded, 'multistep-check.specs/a.spec.ts').environmentVariables).toEqual([{ key: 'FROM', value: 'multiStepChecks', locked: false, secret: false }]);
    expect(payloadOf(loaded, 'multistep-check.own').environmentVariables).toEqual([
      { key: 'FROM', value: 'check', locked: false, secret: true },
    ]);
  });

  it('takes the checks’ environment variables when multiStepChecks sets none', async () => {
    const root = project({
      'checkly.config.ts': config("checks: { environmentVariables: [{ key: 'FROM', value: 'checks' }], multiStepChecks: { testMatch: '*.spec.ts' } }"),
      'a.spec.ts': SPEC,
    });
    const loaded = await loadProject({ cwd: root });
    expect(errorsOf(loaded)).toEqual([]);
    expect(payloadOf(loaded, 'multistep-check.a.spec.ts').environmentVariables).toEqual([{ key: 'FROM', value: 'checks', locked: false, secret: false }]);
  });

  it.each([
    ["cli: { retries: 5 }", 'vigil.config: "cli.retries" must be less than or equal to 3', 'vigil test retries a failed run at most 3 times, as the Checkly CLI does.'],
    ["cli: { reporters: ['fancy'] }", 'vigil.config: "cli.reporters[0]" must be one of [list, dot, ci, github, json, junit]', "vigil test's reporters are list, dot, ci, github, json, junit."],
    ["cli: { runLocaton: 'eu-west-1' }", 'vigil.config: "cli.runLocaton" is not a config option', 'Did you mean "runLocation"?'],
    [
      "checks: { multiStepChecks: { testMatch: '../other/*.spec.ts' } }",
      'vigil.config: checks.multiStepChecks.testMatch pattern "../other/*.spec.ts" reaches outside the project root ROOT',
      "Patterns are relative to the project root (the config file's directory) and stay inside it.",
    ],
  ])('reports %s at the config with its hint', async (body, message, hint) => {
    const root = project({ 'checkly.config.ts': config(body), 'a.check.ts': API_CHECK });
    const loaded = await loadProject({ cwd: root });
    const errors = loaded.diagnostics.filter((diagnostic) => diagnostic.severity === 'error');
    expect(errors.map((diagnostic) => [diagnostic.message, diagnostic.hint, diagnostic.source?.file])).toEqual([
      [message.replace('ROOT', root), hint, 'checkly.config.ts'],
    ]);
  });
});
