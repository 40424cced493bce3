/**
 * The published package, installed as a new user installs it before it is on the registry:
 * `pnpm pack:cli`, then in a bare directory the tarball vendored at vendor/ and
 * `npm init -y && npm i -D ./vendor/<tarball> typescript`, `npx vigil init .`, `npx vigil validate`,
 * plan and apply against a running service, `npx tsc --noEmit`, ES module and CommonJS consumers of
 * `@vigil-mon/cli/constructs`, a project written with the pre-rename `vigil` specifiers. All of that
 * without better-sqlite3, an optional peer the install leaves out (it compiles from source where no
 * prebuilt binary can be downloaded); `vigil server --database` runs on PostgreSQL without it; the
 * embedded local service and `vigil server` say how to get it, and work once it is installed (the dashboard then serves uPlot from the package's own copy).
 *
 * One install serves every test. The registry is reached only for the package's dependencies; every
 * service the tests talk to is on loopback.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deriveDependencies, packageNameOf, type WorkspaceManifest } from '../../packages/cli/scripts/pack.mjs';
import { REPO_ROOT, startVigilServer, targetEnv } from '../support/cli.js';
import { useTestPostgres } from '../support/postgres.js';

/** `vigil server --database` from the installed package, which has no better-sqlite3. */
const postgres = useTestPostgres();

const INSTALL_TIMEOUT = 10 * 60_000;
const STEP_TIMEOUT = 3 * 60_000;

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** How the machine reaches its registry: kept, whoever set it. */
const NPM_SETTINGS_KEPT = /^npm_config_(registry|userconfig|cache|ca|cafile|strict_ssl|proxy|https_proxy|noproxy)$/i;

/**
 * A clean environment, as a user's shell: CI as in CI, no colours, no VIGIL_* of ours, and none of
 * the npm_* variables `pnpm test` exports (pnpm's own settings such as `verify-deps-before-run`,
 * which npm warns about as unknown config).
 */
function environment(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const key of Object.keys(env)) {
    if (key.startsWith('VIGIL_') || key.startsWith('PNPM_') || (/^npm_/i.test(key) && !NPM_SETTINGS_KEPT.test(key))) delete env[key];
  }
  // pnpm's bin shims point NODE_PATH into this repository's node_modules, where require() (the CLI
  // finding better-sqlite3) would find what the bare directory does not have.
  delete env['NODE_PATH'];
  return { ...env, CI: 'true', NO_COLOR: '1', npm_config_fund: 'false', npm_config_audit: 'false' };
}

function run(command: string, args: readonly string[], cwd: string, env: Readonly<Record<string, string>> = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env: { ...environment(), ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Runs a setup step and fails with its whole output when it fails. */
async function must(command: string, args: readonly string[], cwd: string): Promise<Run> {
  const result = await run(command, args, cwd);
  if (result.code !== 0) throw new Error(`${command} ${args.join(' ')} exited ${result.code}\n${result.stdout}\n${result.stderr}`);
  return result;
}

describe('the dependencies of the packed manifest', () => {
  const manifests: WorkspaceManifest[] = [
    { name: 'vigil', dependencies: { '@vigil/engine': 'workspace:*', commander: '^14.0.3', esbuild: '^0.28.0' } },
    { name: '@vigil/engine', dependencies: { esbuild: '^0.28.1', zod: '^4.1.0' } },
    { name: '@vigil/runner', dependencies: { '@playwright/test': '^1.56.0', undici: '^7.16.0' } },
  ];

  it('are what the bundles import plus the external packages a bundled package depends on, with the highest declared floor', () => {
    expect(deriveDependencies({ imported: ['esbuild', 'zod'], manifests, external: ['esbuild', '@playwright/test'] })).toEqual({
      '@playwright/test': '^1.56.0',
      esbuild: '^0.28.1',
      zod: '^4.1.0',
    });
  });

  it('refuse a package that no workspace package declares', () => {
    expect(() => deriveDependencies({ imported: ['left-pad'], manifests, external: [] })).toThrow(
      'the published package needs "left-pad", but no workspace package it bundles lists it in "dependencies"',
    );
  });

  it('refuse ranges of different majors', () => {
    const conflicting: WorkspaceManifest[] = [...manifests, { name: '@vigil/server', dependencies: { zod: '^3.23.0' } }];
    expect(() => deriveDependencies({ imported: ['zod'], manifests: conflicting, external: [] })).toThrow(
      'workspace packages want different majors of "zod": @vigil/engine ^4.1.0, @vigil/server ^3.23.0',
    );
  });

  it('leave out the CLI\'s optional peers, whose ranges must be the bundled packages\'', () => {
    const server: WorkspaceManifest = { name: '@vigil/server', dependencies: { 'better-sqlite3': '^12.4.1' } };
    const withServer = [...manifests, server];
    const external = ['esbuild', 'better-sqlite3'];
    expect(deriveDependencies({ imported: [], manifests: withServer, external, peers: { 'better-sqlite3': '^12.4.1' } })).toEqual({ esbuild: '^0.28.1' });
    expect(() => deriveDependencies({ imported: [], manifests: withServer, external, peers: { 'better-sqlite3': '^12.0.0' } })).toThrow(
      'the CLI\'s peer "better-sqlite3" is ^12.0.0, but the packages it bundles declare ^12.4.1: make them equal',
    );
  });

  it('name packages, not the files imported from them', () => {
    expect(['@playwright/test/reporter', 'jsonpath-plus/dist/index.js', 'zod'].map(packageNameOf)).toEqual(['@playwright/test', 'jsonpath-plus', 'zod']);
  });
});

let project: string;
let tarball: string;
let vendored: string;

const PACKAGE = '@vigil-mon/cli';
const MISSING_SQLITE =
  'Error: vigil server and the embedded local service (plan, apply and the other commands without VIGIL_API_URL) store their data with better-sqlite3, which is not installed\n' +
  'hint: npm install -D better-sqlite3@^12.4.1 (it downloads a prebuilt binary, or compiles one with python3, make and a C++ compiler), ' +
  'or set VIGIL_API_URL (and VIGIL_API_KEY) to a running service\n';

/** A running `vigil server` from this repository (the real service), and the env that targets it. */
async function withService<T>(work: (env: Record<string, string>) => Promise<T>): Promise<T> {
  const service = await startVigilServer(['--data', ':memory:', '--no-scheduler']);
  try {
    return await work(targetEnv(service.url, { VIGIL_RATE_LIMIT: 'off' }));
  } finally {
    service.child.kill('SIGTERM');
  }
}

/** `name=value` of each cookie a response sets, for sending back as a browser would. */
function cookiesOf(response: Response): string {
  return response.headers.getSetCookie().map((cookie) => cookie.split(';')[0]!).join('; ');
}

/**
 * Signs in to the dashboard of the service at `url`, opens an API check's page (the page that draws
 * charts) and fetches every script it names: each must be served, as JavaScript, from the installed package.
 */
async function expectChartScriptsServed(url: string): Promise<void> {
  const created = await fetch(`${url}/v1/checks/api`, {
    method: 'POST',
    headers: { authorization: 'Bearer vigil-local', 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Charted', activated: false, request: { method: 'GET', url: 'https://example.com/' } }),
  });
  expect(created.status).toBe(201);
  const { id } = (await created.json()) as { id: string };
  const form = await fetch(`${url}/`);
  const csrf = /name="csrf" value="([^"]+)"/.exec(await form.text())?.[1];
  expect(csrf).toBeDefined();
  const signedIn = await fetch(`${url}/dashboard/sign-in`, {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie: cookiesOf(form), 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ csrf: csrf!, apiKey: 'vigil-local' }),
  });
  expect(signedIn.status).toBe(303);
  const checkPage = await fetch(`${url}/dashboard/checks/${id}`, { headers: { cookie: cookiesOf(signedIn) } });
  expect(checkPage.status).toBe(200);
  const scripts = [...(await checkPage.text()).matchAll(/<script src="([^"]+)"/g)].map((match) => match[1]!);
  expect(scripts).toEqual(['/dashboard/assets/uplot.js', '/dashboard/assets/dashboard.js']);
  for (const script of scripts) {
    const asset = await fetch(`${url}${script}`);
    expect(asset.status, script).toBe(200);
    expect(asset.headers.get('content-type'), script).toBe('text/javascript; charset=utf-8');
    expect((await asset.text()).length, script).toBeGreaterThan(0);
  }
  const uplot = await (await fetch(`${url}/dashboard/assets/uplot.js`)).text();
  expect(uplot).toContain('uPlot');
}

describe('pnpm pack:cli', () => {
  beforeAll(async () => {
    const packed = await must('npx', ['-y', 'pnpm@10', 'pack:cli'], REPO_ROOT);
    tarball = packed.stdout.trim().split('\n').pop()!;
    project = await mkdtemp(path.join(tmpdir(), 'vigil-pack-'));
    await must('npm', ['init', '-y'], project);
    // As the getting-started guide says until the package is on the registry: the tarball is
    // committed in the user's repository and installed from there.
    vendored = `vendor/${path.basename(tarball)}`;
    await mkdir(path.join(project, 'vendor'));
    await copyFile(tarball, path.join(project, vendored));
    // The README's install line, less better-sqlite3 (the optional peer this part proves is optional).
    await must('npm', ['i', '-D', `./${vendored}`, 'typescript@^5.9.3', '@types/node@^20.19.0'], project);
  }, INSTALL_TIMEOUT);

  afterAll(async () => {
    if (project) await rm(project, { recursive: true, force: true });
  });

  it('ends its output with the absolute path of the tarball it wrote', () => {
    expect(path.isAbsolute(tarball)).toBe(true);
    expect(tarball).toMatch(/\/vigil-mon-cli-\d+\.\d+\.\d+\.tgz$/);
    expect(existsSync(tarball)).toBe(true);
  });

  it('packs @vigil-mon/cli with a vigil bin, only registry dependencies and better-sqlite3 as an optional peer', async () => {
    const manifest = JSON.parse(await readFile(path.join(project, 'node_modules', PACKAGE, 'package.json'), 'utf8'));
    expect(manifest.name).toBe(PACKAGE);
    expect(manifest.bin).toEqual({ vigil: 'bin/vigil.mjs' });
    expect(manifest.private).toBeUndefined();
    const ranges = Object.values<string>(manifest.dependencies);
    expect(ranges.filter((range) => !/^[\^~]?\d/.test(range))).toEqual([]);
    expect(Object.keys(manifest.dependencies)).toContain('esbuild');
    expect(Object.keys(manifest.dependencies).filter((name) => name.startsWith('@vigil/') || name === 'better-sqlite3')).toEqual([]);
    expect(manifest.peerDependencies).toEqual({ 'better-sqlite3': '^12.4.1' });
    expect(manifest.peerDependenciesMeta).toEqual({ 'better-sqlite3': { optional: true } });
    // Nothing native was installed, so nothing was compiled.
    expect(existsSync(path.join(project, 'node_modules', 'better-sqlite3'))).toBe(false);
    // The dashboard's accessibility scanner is for the repository's tests only.
    expect(Object.keys(manifest.dependencies)).not.toContain('axe-core');
    expect(existsSync(path.join(project, 'node_modules', 'axe-core'))).toBe(false);
  });

  it('ships uPlot\'s script, stylesheet and licence beside the bundle, for the dashboard\'s charts', () => {
    const copied = path.join(project, 'node_modules', PACKAGE, 'dist', 'assets', 'uplot');
    for (const file of ['uPlot.iife.min.js', 'uPlot.min.css', 'LICENSE']) expect(existsSync(path.join(copied, file)), file).toBe(true);
  });

  it('ships the warm Playwright host beside the chunks that start it, so agents keep workers warm', () => {
    const dist = path.join(project, 'node_modules', PACKAGE, 'dist');
    for (const file of ['warm-host.cjs', 'warm-worker-env.cjs']) expect(existsSync(path.join(dist, file)), file).toBe(true);
  });

  it('installs the vendored tarball as a file: dependency whose integrity npm ci checks', async () => {
    const manifest = JSON.parse(await readFile(path.join(project, 'package.json'), 'utf8'));
    expect(manifest.devDependencies[PACKAGE]).toBe(`file:${vendored}`);
    const lock = JSON.parse(await readFile(path.join(project, 'package-lock.json'), 'utf8'));
    expect(lock.packages[`node_modules/${PACKAGE}`]).toMatchObject({ resolved: `file:${vendored}`, integrity: expect.stringMatching(/^sha512-/) });
    // A tarball changed after the lock was written is refused, not installed.
    const copy = await mkdtemp(path.join(tmpdir(), 'vigil-pack-ci-'));
    try {
      await copyFile(path.join(project, 'package.json'), path.join(copy, 'package.json'));
      await copyFile(path.join(project, 'package-lock.json'), path.join(copy, 'package-lock.json'));
      await mkdir(path.join(copy, 'vendor'));
      await writeFile(path.join(copy, vendored), Buffer.concat([await readFile(tarball), Buffer.from([0])]));
      // An empty cache, as on a CI runner: npm would otherwise take the locked content from its cache.
      const ci = await run('npm', ['ci'], copy, { npm_config_cache: path.join(copy, '.npm-cache') });
      expect(ci.code).not.toBe(0);
      expect(ci.stderr).toContain('EINTEGRITY');
    } finally {
      await rm(copy, { recursive: true, force: true });
    }
  }, STEP_TIMEOUT);

  describe('a bare directory with the packed package installed, without better-sqlite3', () => {
    it('npx vigil init . scaffolds the project, keeping the installed dependency and importing @vigil-mon/cli', async () => {
      const before = JSON.parse(await readFile(path.join(project, 'package.json'), 'utf8'));
      const init = await run('npx', ['vigil', 'init', '.'], project);
      expect(init.stderr).toBe('');
      expect(init.code).toBe(0);
      expect(init.stdout).toContain('  npx vigil validate ');
      expect(init.stdout).not.toContain('npm install');
      const after = JSON.parse(await readFile(path.join(project, 'package.json'), 'utf8'));
      expect(after.devDependencies).toEqual(before.devDependencies);
      expect(Object.keys(after.devDependencies)).not.toContain('vigil');
      expect(after.scripts['vigil:validate']).toBe('vigil validate');
      for (const file of ['vigil.config.ts', 'checks/homepage.monitor.ts', 'tsconfig.json', '.gitignore']) {
        expect(existsSync(path.join(project, file)), file).toBe(true);
      }
      expect(await readFile(path.join(project, 'vigil.config.ts'), 'utf8')).toContain(`from '${PACKAGE}'`);
    }, STEP_TIMEOUT);

    it('npx vigil validate succeeds, and plan and apply work against a running service', async () => {
      const validated = await run('npx', ['vigil', 'validate'], project);
      expect(validated).toMatchObject({ code: 0, stdout: '✔ 1 resource valid\n' });
      await withService(async (env) => {
        const planned = await run('npx', ['vigil', 'plan'], project, env);
        expect(planned.stderr).toBe('');
        expect(planned.code).toBe(0);
        expect(planned.stdout).toContain('+ api-check.homepage');
        expect(planned.stdout).toContain('Plan: 1 to add, 0 to change, 0 to destroy.');
        const applied = await run('npx', ['vigil', 'apply', '--auto-approve'], project, env);
        expect(applied.stderr).toBe('');
        expect(applied.code).toBe(0);
        expect(applied.stdout).toContain('Apply complete! Resources: 1 added, 0 changed, 0 destroyed.');
        expect(await run('npx', ['vigil', 'plan'], project, env)).toMatchObject({ code: 0, stdout: expect.stringContaining('No changes.') });
      });
      // That state belongs to the service just stopped; the embedded service's tests start afresh.
      await rm(path.join(project, '.vigil', 'state.json'));
    }, STEP_TIMEOUT);

    it('vigil server --database runs on PostgreSQL without better-sqlite3', async () => {
      const databaseUrl = await postgres.freshDatabase();
      const child = spawn('npx', ['vigil', 'server', '--port', '0', '--database', databaseUrl], { cwd: project, env: environment(), stdio: ['ignore', 'pipe', 'pipe'] });
      let stderr = '';
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
      try {
        const url = await new Promise<string>((resolve, reject) => {
          let out = '';
          child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
            out += chunk;
            const match = /listening on (\S+)/.exec(out);
            if (match) resolve(match[1]!);
          });
          child.once('exit', (code) => reject(new Error(`vigil server exited ${code}: ${stderr}`)));
        });
        expect(await (await fetch(`${url}/healthz`)).json()).toEqual({ status: 'UP', database: { status: 'UP', engine: 'postgres' } });
        const created = await fetch(`${url}/v1/checks/api`, {
          method: 'POST',
          headers: { authorization: 'Bearer vigil-local', 'content-type': 'application/json' },
          body: JSON.stringify({ name: 'On PostgreSQL', activated: false, request: { method: 'GET', url: 'https://example.com/' } }),
        });
        expect(created.status).toBe(201);
        const listed = await fetch(`${url}/v1/checks`, { headers: { authorization: 'Bearer vigil-local' } });
        expect(((await listed.json()) as Array<{ name: string }>).map((check) => check.name)).toEqual(['On PostgreSQL']);
        expect(existsSync(path.join(project, 'node_modules', 'better-sqlite3'))).toBe(false);
      } finally {
        child.kill('SIGTERM');
      }
    }, STEP_TIMEOUT);

    it('the embedded local service and vigil server say how to install better-sqlite3', async () => {
      expect(await run('npx', ['vigil', 'plan', '--local'], project)).toEqual({ code: 1, stdout: '', stderr: MISSING_SQLITE });
      expect(await run('npx', ['vigil', 'server', '--port', '0', '--data', ':memory:'], project)).toEqual({ code: 1, stdout: '', stderr: MISSING_SQLITE });
    }, STEP_TIMEOUT);

    it('npx tsc --noEmit type-checks the config and monitors against the bundled declarations', async () => {
      expect(await run('npx', ['tsc', '--noEmit'], project)).toMatchObject({ code: 0, stdout: '' });
      // The declarations themselves are sound, not merely skipped.
      expect(await run('npx', ['tsc', '--noEmit', '--skipLibCheck', 'false'], project)).toMatchObject({ code: 0, stdout: '' });
      const typo = path.join(project, 'checks', 'typo.monitor.ts');
      await writeFile(typo, `import { ApiCheck } from '${PACKAGE}/constructs';\nnew ApiCheck('typo', { name: 42, request: { url: 'https://example.com/' } });\n`);
      try {
        const failed = await run('npx', ['tsc', '--noEmit'], project);
        expect(failed.code).not.toBe(0);
        expect(failed.stdout).toContain('checks/typo.monitor.ts');
      } finally {
        await rm(typo);
      }
    }, STEP_TIMEOUT);

    it('imports @vigil-mon/cli/constructs and @vigil-mon/cli from an ES module', async () => {
      await writeFile(
        path.join(project, 'consumer.mjs'),
        [
          `import { ApiCheck, Frequency } from '${PACKAGE}/constructs';`,
          `import { defineConfig } from '${PACKAGE}';`,
          "console.log(typeof ApiCheck, Frequency.EVERY_5M.frequency, defineConfig({ projectName: 'p', logicalId: 'p' }).logicalId);",
        ].join('\n'),
      );
      expect(await run('node', ['consumer.mjs'], project)).toMatchObject({ code: 0, stdout: 'function 5 p\n', stderr: '' });
    }, STEP_TIMEOUT);

    it('requires @vigil-mon/cli/constructs and @vigil-mon/cli from CommonJS', async () => {
      await writeFile(
        path.join(project, 'consumer.cjs'),
        [
          `const { ApiCheck, Frequency } = require('${PACKAGE}/constructs');`,
          `const { defineConfig } = require('${PACKAGE}');`,
          "console.log(typeof ApiCheck, Frequency.EVERY_5M.frequency, defineConfig({ projectName: 'p', logicalId: 'p' }).logicalId);",
          "try { new ApiCheck('x', { name: 'x', request: { url: 'https://example.com/' } }); } catch (error) { console.log(error.message.split(' can only')[0]); }",
        ].join('\n'),
      );
      expect(await run('node', ['consumer.cjs'], project)).toMatchObject({ code: 0, stdout: 'function 5 p\nApiCheck "x"\n', stderr: '' });
    }, STEP_TIMEOUT);

    it('loads a CommonJS project written with the pre-rename `vigil` specifiers, including constructs made by a required package, from a subdirectory', async () => {
      const legacy = path.join(project, 'legacy');
      await mkdir(path.join(legacy, 'checks'), { recursive: true });
      await writeFile(
        path.join(legacy, 'vigil.config.cjs'),
        [
          "const { defineConfig } = require('vigil');",
          "module.exports = defineConfig({ projectName: 'Legacy', logicalId: 'legacy', checks: { checkMatch: '**/*.monitor.js', frequency: 10, locations: ['eu-west-1'] } });",
        ].join('\n'),
      );
      await writeFile(
        path.join(legacy, 'checks', 'home.monitor.js'),
        [
          "const { ApiCheck } = require('vigil/constructs');",
          "const { statusCheck } = require('acme-monitors');",
          "new ApiCheck('legacy-home', { name: 'Legacy home', request: { url: 'https://example.com/' } });",
          "statusCheck('https://status.example.com/');",
        ].join('\n'),
      );
      // A shared library of monitors, as a team might publish one: it gets the CommonJS copy of the
      // constructs from node_modules, which must register into the Project the CLI is loading.
      const library = path.join(project, 'node_modules', 'acme-monitors');
      await mkdir(library, { recursive: true });
      await writeFile(path.join(library, 'package.json'), JSON.stringify({ name: 'acme-monitors', version: '1.0.0', main: 'index.js' }));
      await writeFile(
        path.join(library, 'index.js'),
        [
          `const { ApiCheck } = require('${PACKAGE}/constructs');`,
          "exports.statusCheck = (url) => new ApiCheck('shared-status', { name: 'Status page', request: { url } });",
        ].join('\n'),
      );
      const planned = await withService((env) => run('npx', ['vigil', 'plan'], path.join(legacy, 'checks'), env));
      expect(planned.stderr).toBe('');
      expect(planned.code).toBe(0);
      expect(planned.stdout).toContain('+ api-check.legacy-home');
      expect(planned.stdout).toContain('+ api-check.shared-status');
      expect(planned.stdout).toContain('Plan: 2 to add, 0 to change, 0 to destroy.');
    }, STEP_TIMEOUT);

    it('npx vigil test runs a check against a loopback target with the bundled runner', async () => {
      const target = createServer((_request, response) => {
        response.setHeader('content-type', 'application/json');
        response.end('{"ok":true}');
      });
      await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
      const { port } = target.address() as AddressInfo;
      const checked = path.join(project, 'runner-check');
      try {
        await mkdir(checked);
        await writeFile(path.join(checked, 'vigil.config.ts'), "export default { projectName: 'runner', logicalId: 'runner', checks: { locations: ['eu-west-1'] } };\n");
        await writeFile(
          path.join(checked, 'local.monitor.ts'),
          [
            "import { ApiCheck, AssertionBuilder } from 'vigil/constructs';",
            `new ApiCheck('local', { name: 'Local', request: { url: 'http://127.0.0.1:${port}/', assertions: [`,
            "  AssertionBuilder.statusCode().equals(200), AssertionBuilder.jsonBody('$.ok').equals(true)] } });",
          ].join('\n'),
        );
        const tested = await run('npx', ['vigil', 'test'], checked);
        expect(tested.stderr).toBe('');
        expect(tested.code).toBe(0);
        expect(tested.stdout).toContain('api-check.local');
      } finally {
        target.close();
        // Its monitor would otherwise join the project's own (checkMatch **/*.monitor.ts).
        await rm(checked, { recursive: true, force: true });
      }
    }, STEP_TIMEOUT);

  });

  describe('once better-sqlite3 is installed beside it', () => {
    beforeAll(async () => {
      // The workspace's already-built copy, linked: what is under test is that the installed CLI
      // finds and uses the optional peer, not npm compiling it (minutes where no prebuilt binary
      // can be downloaded, which is why the package no longer depends on it).
      const workspaceCopy = path.dirname(createRequire(path.join(REPO_ROOT, 'packages/server/package.json')).resolve('better-sqlite3/package.json'));
      // --ignore-scripts: npm would otherwise run the linked copy's install script in the workspace
      // itself, rebuilding the native module under every test that is using it at that moment.
      await must('npm', ['i', '-D', '--install-links=false', '--ignore-scripts', workspaceCopy], project);
    }, INSTALL_TIMEOUT);

    it('npx vigil plan --local uses the embedded local service', async () => {
      const planned = await run('npx', ['vigil', 'plan', '--local'], project);
      expect(planned.stderr).toBe('');
      expect(planned.code).toBe(0);
      expect(planned.stdout).toContain('+ api-check.homepage');
      expect(planned.stdout).toContain('Plan: 1 to add, 0 to change, 0 to destroy.');
    }, STEP_TIMEOUT);

    it('npx vigil server starts the local monitoring service on loopback, and its dashboard serves the chart scripts from the package', async () => {
      // The installed bin itself rather than npx, so that stopping it stops the server.
      const bin = path.join(project, 'node_modules', '.bin', 'vigil');
      const child = spawn(bin, ['server', '--port', '0', '--data', path.join(project, '.vigil', 'server')], {
        cwd: project,
        env: environment(),
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      try {
        const url = await new Promise<string>((resolve, reject) => {
          let output = '';
          child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
            output += chunk;
            const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
            if (match) resolve(match[1]!);
          });
          child.on('close', (code) => reject(new Error(`vigil server exited ${code}: ${output}`)));
        });
        const response = await fetch(`${url}/v1/checks`, { headers: { authorization: 'Bearer vigil-local' } });
        expect(response.status).toBe(200);
        expect(await response.json()).toEqual([]);
        await expectChartScriptsServed(url);
      } finally {
        child.kill('SIGTERM');
      }
    }, STEP_TIMEOUT);
  });
});
