/**
 * How much of the Checkly CLI's own example projects and end-to-end fixtures Vigil loads and
 * applies unchanged (the closing figure of docs/migrating-from-checkly.md). Not part of
 * `pnpm test`: it needs a checkout of checkly/checkly-cli and takes a few minutes.
 *
 *   tsx scripts/checkly-examples-compat.ts <checkly-cli checkout> [--no-apply]
 *
 * The projects: every directory of `examples/` and of `packages/cli/e2e/__tests__/fixtures/` (a
 * fixture's config may sit in a workspace package below it). Each is copied to a temporary
 * directory, its declared npm dependencies other than those Vigil stands in for (`checkly`,
 * `@playwright/test`, types) are installed with npm when it declares any, and then, never edited:
 * 1. it is loaded as `vigil validate` loads it: does the whole project load with no error?
 * 2. one that does is applied with the real CLI (`vigil apply --auto-approve`, against the
 *    embedded local service, as a user's first apply): does it apply?
 * 3. it is loaded again with every construct Vigil lacks (IcmpMonitor, …) stood in for by an inert
 *    placeholder, so the rest of the project is evaluated and each construct can be judged alone.
 * A construct counts as loaded when Vigil created it and reported no error at it; unsupported when
 * its class is one Vigil lacks; failed when Vigil created it but reported an error at it; missing
 * when the Checkly CLI would create it from the config (`browserChecks.testMatch`,
 * `playwrightChecks`) and Vigil did not. Errors of the config itself are listed too.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { cp, mkdir, mkdtemp, readFile, readdir, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { createRequire } from 'node:module';
import { realpathSync } from 'node:fs';
import * as vigilConstructs from '../packages/constructs/src/index.js';
import { loadProject } from '../packages/engine/src/index.js';
import { CHECKLY_CONSTRUCT_NAMES } from '../packages/engine/src/load/checkly-constructs.js';

/** Checkly exports that are not resources of their own (builders, bases, the session). */
const NOT_RESOURCES = /Builder$|Ref$|^(Session|Project|Frequency|Check|Monitor|RuntimeCheck|AlertChannel|AlertChannelSubscription|PrivateLocationCheckAssignment|PrivateLocationGroupAssignment)$/;

const RECORD_KEY = Symbol.for('vigil.checkly-compat.unsupported');

interface Tally {
  project: string;
  loadsUnchanged: boolean;
  /** `vigil apply` of the unchanged project: undefined when it was not tried (it does not load, or --no-apply). */
  applied?: { ok: boolean; output: string };
  /** npm packages installed into the copy first. */
  installed: string[];
  unchangedErrors: string[];
  loaded: string[];
  failed: Array<{ address: string; message: string }>;
  /** Loaded once the project's declared npm dependencies are installed. */
  needsInstall: Array<{ address: string; message: string }>;
  configErrors: string[];
  /** Made by Vigil from a testMatch although a declared check already runs the spec (the Checkly CLI makes none). */
  extra: string[];
  unsupported: string[];
  missing: string[];
}

async function main(): Promise<void> {
  const input = process.argv[2];
  if (input === undefined) {
    process.stderr.write('usage: tsx scripts/checkly-examples-compat.ts <checkly-cli checkout> [--no-apply]\n');
    process.exit(2);
  }
  const apply = !process.argv.includes('--no-apply');
  Object.assign(process.env, HARNESS_ENV);
  const projects: Array<{ name: string; directory: string }> = [];
  for (const parent of ['examples', 'packages/cli/e2e/__tests__/fixtures']) {
    const directory = path.join(input, parent);
    if (!(await isDirectory(directory))) continue;
    for (const name of (await readdir(directory)).filter((entry) => !entry.startsWith('.')).sort()) {
      if (await isDirectory(path.join(directory, name))) projects.push({ name: `${path.basename(parent)}/${name}`, directory: path.join(directory, name) });
    }
  }
  const shimDirectory = await mkdtemp(path.join(tmpdir(), 'vigil-compat-shim-'));
  const shim = await writeShim(shimDirectory);
  const tallies: Tally[] = [];
  try {
    for (const { name, directory } of projects) tallies.push(await measure(name, directory, shim, apply));
  } finally {
    await rm(shimDirectory, { recursive: true, force: true });
  }
  report(tallies);
}

/**
 * Fixtures Checkly's own e2e tests expect to fail to load (a syntax error, a throw, a duplicate
 * logical id): rejecting them means the same as Checkly. They are listed, not counted.
 */
const REJECTED_BY_CHECKLY = new Set(['fixtures/check-parse-error', 'fixtures/test-parse-error', 'fixtures/test-duplicated-groups']);

/** What Checkly's e2e harness puts in the environment of the CLI it runs on the fixtures. */
const HARNESS_ENV: Readonly<Record<string, string>> = {
  PROJECT_LOGICAL_ID: 'vigil-compat',
  EXECUTION_ID: 'vigil-compat-run',
  PRIVATE_LOCATION_SLUG_NAME: 'compat-location',
  AUTHOR_NAME: 'Vigil',
  SECRET_ENV: 'secret',
  ENVIRONMENT_URL: 'https://example.com',
  WEB_SHOP_PASSWORD: 'password',
};

/** Packages Vigil serves itself (checkly), provides to the runner (@playwright/test), or that only matter to editors. */
const NOT_INSTALLED = /^(checkly|@checkly\/cli|@playwright\/test|playwright|typescript|ts-node|jiti|@types\/.*)$/;

const run = promisify(execFile);
const VIGIL_BIN = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../packages/cli/bin/vigil.mjs');

/**
 * What `npm install` (or `pnpm install` in a workspace) would provide: registry packages with npm,
 * `workspace:` ones as links to the workspace's package of that name, transitively.
 */
async function install(root: string, cwd: string): Promise<string[]> {
  const manifests = (await allFiles(root)).filter((file) => file.endsWith('package.json'));
  const workspacePackages = new Map<string, string>();
  for (const file of manifests) {
    const manifest = JSON.parse(await readFile(path.join(root, file), 'utf8')) as { name?: string };
    if (manifest.name !== undefined) workspacePackages.set(manifest.name, path.join(root, path.dirname(file)));
  }
  const registry: string[] = [];
  const linked: string[] = [];
  const visit = async (directory: string, into: string) => {
    const manifest = JSON.parse(await readFile(path.join(directory, 'package.json'), 'utf8').catch(() => '{}')) as Record<string, Record<string, string> | undefined>;
    for (const [name, range] of Object.entries({ ...manifest.dependencies, ...manifest.devDependencies })) {
      if (NOT_INSTALLED.test(name)) continue;
      const local = workspacePackages.get(name);
      if (range.startsWith('workspace:') && local !== undefined) {
        await mkdir(path.join(into, 'node_modules'), { recursive: true });
        await symlink(local, path.join(into, 'node_modules', name), 'dir').catch(() => undefined);
        linked.push(name);
        await visit(local, local);
      } else if (!registry.includes(name)) registry.push(name);
    }
  };
  await visit(cwd, cwd);
  if (registry.length > 0) await run('npm', ['install', '--no-save', '--no-package-lock', '--ignore-scripts', '--no-audit', '--no-fund', ...registry], { cwd });
  return [...registry, ...linked.map((name) => `${name} (workspace link)`)];
}

/** The directory holding the project's config: the copy itself, or a workspace package below it. */
async function configDirectory(root: string): Promise<string> {
  const files = await allFiles(root);
  const configs = files.filter((file) => /(^|\/)checkly\.config\.(ts|mts|cts|js|mjs|cjs)$/.test(file)).sort((a, b) => a.split('/').length - b.split('/').length);
  return configs[0] === undefined ? root : path.join(root, path.dirname(configs[0]));
}

async function isDirectory(file: string): Promise<boolean> {
  return stat(file).then((info) => info.isDirectory(), () => false);
}

/** A `checkly/constructs` that is Vigil's plus an inert stand-in for each construct Vigil lacks. */
async function writeShim(directory: string): Promise<string> {
  const constructsEntry = realpathSync(createRequire(import.meta.url).resolve('../packages/constructs/src/index.ts'));
  const missing = [...CHECKLY_CONSTRUCT_NAMES].filter((name) => !(name in vigilConstructs)).sort();
  const lines = [
    `export * from ${JSON.stringify(pathToFileURL(constructsEntry).href)};`,
    `const record = (name) => (globalThis[Symbol.for('vigil.checkly-compat.unsupported')] ??= []).push(name);`,
    // Any property, call or `new` of a stand-in gives a stand-in, so builder chains evaluate.
    'function standIn(name, counts) {',
    '  const handler = {',
    "    get: (_target, key) => (key === Symbol.toPrimitive ? () => name : key === 'then' ? undefined : proxy),",
    '    apply: () => proxy,',
    '    construct: () => { if (counts) record(name); return proxy; },',
    '  };',
    '  const proxy = new Proxy(function () {}, handler);',
    '  return proxy;',
    '}',
    ...missing.map((name) => `export const ${name} = standIn(${JSON.stringify(name)}, ${!NOT_RESOURCES.test(name)});`),
  ];
  const file = path.join(directory, 'checkly-constructs-shim.mjs');
  await writeFile(file, lines.join('\n') + '\n');
  return file;
}

async function measure(name: string, source: string, shim: string, apply: boolean): Promise<Tally> {
  const copy = await mkdtemp(path.join(tmpdir(), `vigil-compat-${path.basename(name)}-`));
  try {
    await cp(source, copy, { recursive: true, filter: (file) => !/[\\/](node_modules|\.vigil)$/.test(file) });
    const cwd = await configDirectory(copy);
    const installed = await install(copy, cwd);
    let unchanged = await loadProject({ cwd });
    // A package the project imports without declaring it (Checkly's harness provides it): install it, and say so.
    const undeclared = [...new Set(unchanged.diagnostics.flatMap((d) => /^Cannot find package "([^"]+)"/.exec(d.message)?.[1] ?? []))].filter((name) => !NOT_INSTALLED.test(name));
    if (undeclared.length > 0) {
      await run('npm', ['install', '--no-save', '--no-package-lock', '--ignore-scripts', '--no-audit', '--no-fund', ...undeclared], { cwd });
      installed.push(...undeclared.map((name) => `${name} (imported, not declared)`));
      unchanged = await loadProject({ cwd });
    }
    const unchangedErrors = unchanged.diagnostics.filter((d) => d.severity === 'error').map((d) => `${d.source ? `${d.source.file}:${d.source.line}  ` : ''}${d.message}`);
    let applied: Tally['applied'];
    if (apply && unchangedErrors.length === 0) {
      const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1', CI: 'true' };
      for (const key of Object.keys(env)) if (key.startsWith('VIGIL_') || key.startsWith('CHECKLY_')) delete env[key];
      // --local: the embedded service, as a user's first apply without an account.
      applied = await run(process.execPath, [VIGIL_BIN, 'apply', '--auto-approve', '--local'], { cwd, env, maxBuffer: 16 * 1024 * 1024 }).then(
        (result) => ({ ok: true, output: result.stdout }),
        (error: { stdout?: string; stderr?: string }) => ({ ok: false, output: `${error.stderr ?? ''}${error.stdout ?? ''}`.trim().split('\n').slice(-6).join('\n') }),
      );
    }

    const constructs = realpathSync(createRequire(import.meta.url).resolve('../packages/constructs/src/index.ts'));
    const holder = globalThis as { [RECORD_KEY]?: string[] };
    holder[RECORD_KEY] = [];
    const aliases = { vigil: constructs, 'vigil/constructs': constructs, '@vigil/constructs': constructs, checkly: constructs, 'checkly/constructs': shim };
    const stood = await loadProject({ cwd, aliases });
    const unsupported = [...(holder[RECORD_KEY] ?? [])];

    const errorsByAddress = new Map<string, string>();
    for (const diagnostic of stood.diagnostics) {
      if (diagnostic.severity === 'error' && diagnostic.address !== undefined && !errorsByAddress.has(diagnostic.address)) errorsByAddress.set(diagnostic.address, diagnostic.message);
    }
    const addresses = stood.project.constructs().map((construct) => construct.address);
    // Specs that a declared browser or multi-step check runs: the Checkly CLI makes no check of them from a testMatch.
    const taken = new Set(
      stood.project.constructs().flatMap((construct) => {
        const owner = construct as unknown as { kind: string; logicalId: string; scriptEntrypoints?: () => Array<{ path: string }> };
        if ((owner.kind !== 'browser-check' && owner.kind !== 'multistep-check') || typeof owner.scriptEntrypoints !== 'function') return [];
        const specs = owner.scriptEntrypoints().map((request) => path.relative(cwd, request.path).split(path.sep).join('/'));
        // A check made from a testMatch runs its own spec; only declared checks take a spec away.
        return specs.filter((spec) => spec !== construct.logicalId);
      }),
    );
    const extra = addresses.filter((address) => /^(browser-check|multistep-check)\./.test(address) && taken.has(address.slice(address.indexOf('.') + 1)));
    addresses.splice(0, addresses.length, ...addresses.filter((address) => !extra.includes(address)));
    const declared = await declaredDependencies(cwd);
    const uninstalled = (message: string) => declared.some((name) => message.includes(`Could not resolve "${name}"`) || message.includes(`Cannot find package '${name}'`) || message.includes(`Cannot find package "${name}"`));
    const withError = addresses.filter((address) => errorsByAddress.has(address)).map((address) => ({ address, message: errorsByAddress.get(address)! }));
    const needsInstall = withError.filter((item) => uninstalled(item.message));
    const failed = withError.filter((item) => !uninstalled(item.message));
    const loaded = addresses.filter((address) => !errorsByAddress.has(address)).concat(needsInstall.map((item) => item.address));
    const configErrors = stood.diagnostics.filter((d) => d.severity === 'error' && d.address === undefined && !d.message.includes('is not supported by vigil yet')).map((d) => d.message);
    const missing = expectedFromConfig(stood.config, cwd, await allFiles(cwd)).filter((address) => !addresses.includes(address) && !taken.has(address.slice(address.indexOf('.') + 1)));
    return { project: name, loadsUnchanged: unchangedErrors.length === 0, ...(applied ? { applied } : {}), installed, unchangedErrors, loaded, failed, needsInstall, configErrors, extra, unsupported, missing };
  } finally {
    await rm(copy, { recursive: true, force: true });
  }
}

async function declaredDependencies(root: string): Promise<string[]> {
  const manifest = await readFile(path.join(root, 'package.json'), 'utf8').then((text) => JSON.parse(text) as Record<string, Record<string, string> | undefined>, () => ({}) as Record<string, undefined>);
  return [...Object.keys(manifest.dependencies ?? {}), ...Object.keys(manifest.devDependencies ?? {})];
}

async function allFiles(root: string): Promise<string[]> {
  const entries = await readdir(root, { recursive: true });
  return entries.map((entry) => String(entry).split(path.sep).join('/')).filter((entry) => !entry.includes('node_modules/'));
}

/** What the Checkly CLI would create from the config alone: browser checks of `browserChecks.testMatch`, `playwrightChecks`. */
function expectedFromConfig(config: unknown, root: string, files: string[]): string[] {
  const checks = (config as { checks?: Record<string, unknown> } | undefined)?.checks ?? {};
  const expected: string[] = [];
  const browser = (checks.browserChecks as { testMatch?: string | string[] } | undefined)?.testMatch;
  if (browser !== undefined) {
    const patterns = [browser].flat().map((pattern) => globToRegExp(pattern));
    for (const file of files) if (patterns.some((pattern) => pattern.test(file))) expected.push(`browser-check.${file}`);
  }
  const suites = checks.playwrightChecks as Array<{ logicalId?: string }> | undefined;
  for (const suite of suites ?? []) if (typeof suite.logicalId === 'string') expected.push(`playwright-check.${suite.logicalId}`);
  void root;
  return expected;
}

/** `**` any directories, `*` within one: enough for the examples' testMatch globs. */
function globToRegExp(glob: string): RegExp {
  const text = glob.replace(/^\.\//, '').replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*\*\//g, '\u0000').replace(/\*/g, '[^/]*').replace(/\u0000/g, '(?:.*/)?');
  return new RegExp(`^${text}$`);
}

function report(all: Tally[]): void {
  let loaded = 0;
  let total = 0;
  const out: string[] = [];
  const tallies = all.filter((tally) => !REJECTED_BY_CHECKLY.has(tally.project));
  for (const tally of all) {
    const rejected = REJECTED_BY_CHECKLY.has(tally.project);
    const count = tally.loaded.length + tally.failed.length + tally.unsupported.length + tally.missing.length;
    if (!rejected) {
      loaded += tally.loaded.length;
      total += count;
    }
    const state = rejected
      ? tally.loadsUnchanged ? 'loads, though Checkly rejects it (not counted)' : 'is rejected, as Checkly rejects it (not counted)'
      : !tally.loadsUnchanged ? `has ${tally.unchangedErrors.length} error(s)` : tally.applied === undefined ? 'loads with no error' : tally.applied.ok ? 'loads and applies' : 'loads but does not apply';
    out.push(`${tally.project}: ${tally.loaded.length}/${count} constructs load; the project as it is ${state}${tally.installed.length > 0 ? ` (after installing ${tally.installed.join(', ')})` : ''}`);
    if (tally.unsupported.length > 0) out.push(`  unsupported: ${summarise(tally.unsupported)}`);
    for (const failure of tally.failed) out.push(`  failed: ${failure.address}: ${failure.message}`);
    for (const item of tally.needsInstall) out.push(`  loads after npm install: ${item.address}: ${item.message}`);
    for (const error of tally.configErrors) out.push(`  config: ${error}`);
    for (const address of tally.missing) out.push(`  missing (config): ${address}`);
    for (const address of tally.extra) out.push(`  extra (not made by the Checkly CLI, not counted): ${address}`);
    for (const error of tally.unchangedErrors) out.push(`  as it is: ${error}`);
    if (tally.applied && !tally.applied.ok) out.push(`  apply: ${tally.applied.output.replace(/\n/g, '\n    ')}`);
  }
  const share = total === 0 ? 0 : Math.round((loaded / total) * 1000) / 10;
  const loading = tallies.filter((t) => t.loadsUnchanged).length;
  const applying = tallies.filter((t) => t.applied?.ok === true).length;
  out.unshift(
    `Checkly examples and e2e fixtures: ${loaded} of ${total} constructs load unchanged (${share} %); ` +
      `${loading} of ${tallies.length} projects load with no error, ${applying} of ${tallies.length} apply with zero edits ` +
      `(${all.length - tallies.length} more that Checkly itself rejects are not counted)`,
  );
  process.stdout.write(out.join('\n') + '\n');
}

function summarise(names: string[]): string {
  const counts = new Map<string, number>();
  for (const name of names) counts.set(name, (counts.get(name) ?? 0) + 1);
  return [...counts].map(([name, count]) => (count === 1 ? name : `${name} ×${count}`)).join(', ');
}

await main();
