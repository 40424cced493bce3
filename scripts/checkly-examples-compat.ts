/**
 * How much of the Checkly CLI's own `examples/` Vigil loads unchanged (issue 19's closing figure).
 * Not part of `pnpm test`: it needs a checkout of checkly/checkly-cli and takes a minute.
 *
 *   tsx scripts/checkly-examples-compat.ts <checkly-cli checkout or its examples/ directory>
 *
 * Each example project is copied to a temporary directory and loaded twice, never edited:
 * 1. as it is, the way `vigil validate` loads it: does the whole project load with no error?
 * 2. with every construct Vigil lacks (IcmpMonitor, AgenticCheck, …) stood in for by an inert
 *    placeholder, so the rest of the project is evaluated and each construct can be judged alone.
 * A construct counts as loaded when Vigil created it and reported no error at it; unsupported when
 * its class is one Vigil lacks; failed when Vigil created it but reported an error at it; missing
 * when the Checkly CLI would create it from the config (`browserChecks.testMatch`,
 * `playwrightChecks`) and Vigil did not. A construct whose only problem is an npm package the
 * project declares but that is not installed in the copy (`npm install` was not run) is counted
 * as loaded and listed as such. Errors of the config itself are listed too.
 */
import { cp, mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
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
    process.stderr.write('usage: tsx scripts/checkly-examples-compat.ts <checkly-cli checkout or its examples/ directory>\n');
    process.exit(2);
  }
  const examples = (await isDirectory(path.join(input, 'examples'))) ? path.join(input, 'examples') : input;
  const projects = (await readdir(examples)).filter((name) => !name.startsWith('.')).sort();
  const shimDirectory = await mkdtemp(path.join(tmpdir(), 'vigil-compat-shim-'));
  const shim = await writeShim(shimDirectory);
  const tallies: Tally[] = [];
  try {
    for (const name of projects) {
      if (!(await isDirectory(path.join(examples, name)))) continue;
      tallies.push(await measure(name, path.join(examples, name), shim));
    }
  } finally {
    await rm(shimDirectory, { recursive: true, force: true });
  }
  report(tallies);
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

async function measure(name: string, source: string, shim: string): Promise<Tally> {
  const copy = await mkdtemp(path.join(tmpdir(), `vigil-compat-${name}-`));
  try {
    await cp(source, copy, { recursive: true, filter: (file) => !/[\\/](node_modules|\.vigil)$/.test(file) });
    const unchanged = await loadProject({ cwd: copy });
    const unchangedErrors = unchanged.diagnostics.filter((d) => d.severity === 'error').map((d) => `${d.source ? `${d.source.file}:${d.source.line}  ` : ''}${d.message}`);

    const constructs = realpathSync(createRequire(import.meta.url).resolve('../packages/constructs/src/index.ts'));
    const holder = globalThis as { [RECORD_KEY]?: string[] };
    holder[RECORD_KEY] = [];
    const aliases = { vigil: constructs, 'vigil/constructs': constructs, '@vigil/constructs': constructs, checkly: constructs, 'checkly/constructs': shim };
    const stood = await loadProject({ cwd: copy, aliases });
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
        const specs = owner.scriptEntrypoints().map((request) => path.relative(copy, request.path).split(path.sep).join('/'));
        // A check made from a testMatch runs its own spec; only declared checks take a spec away.
        return specs.filter((spec) => spec !== construct.logicalId);
      }),
    );
    const extra = addresses.filter((address) => /^(browser-check|multistep-check)\./.test(address) && taken.has(address.slice(address.indexOf('.') + 1)));
    addresses.splice(0, addresses.length, ...addresses.filter((address) => !extra.includes(address)));
    const declared = await declaredDependencies(copy);
    const uninstalled = (message: string) => declared.some((name) => message.includes(`Could not resolve "${name}"`) || message.includes(`Cannot find package '${name}'`) || message.includes(`Cannot find package "${name}"`));
    const withError = addresses.filter((address) => errorsByAddress.has(address)).map((address) => ({ address, message: errorsByAddress.get(address)! }));
    const needsInstall = withError.filter((item) => uninstalled(item.message));
    const failed = withError.filter((item) => !uninstalled(item.message));
    const loaded = addresses.filter((address) => !errorsByAddress.has(address)).concat(needsInstall.map((item) => item.address));
    const configErrors = stood.diagnostics.filter((d) => d.severity === 'error' && d.address === undefined && !d.message.includes('is not supported by vigil yet')).map((d) => d.message);
    const missing = expectedFromConfig(stood.config, copy, await allFiles(copy)).filter((address) => !addresses.includes(address) && !taken.has(address.slice(address.indexOf('.') + 1)));
    return { project: name, loadsUnchanged: unchangedErrors.length === 0, unchangedErrors, loaded, failed, needsInstall, configErrors, extra, unsupported, missing };
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

function report(tallies: Tally[]): void {
  let loaded = 0;
  let total = 0;
  const out: string[] = [];
  for (const tally of tallies) {
    const count = tally.loaded.length + tally.failed.length + tally.unsupported.length + tally.missing.length;
    loaded += tally.loaded.length;
    total += count;
    out.push(`${tally.project}: ${tally.loaded.length}/${count} constructs load; the project as it is ${tally.loadsUnchanged ? 'loads with no error' : `has ${tally.unchangedErrors.length} error(s)`}`);
    if (tally.unsupported.length > 0) out.push(`  unsupported: ${summarise(tally.unsupported)}`);
    for (const failure of tally.failed) out.push(`  failed: ${failure.address}: ${failure.message}`);
    for (const item of tally.needsInstall) out.push(`  loads after npm install: ${item.address}: ${item.message}`);
    for (const error of tally.configErrors) out.push(`  config: ${error}`);
    for (const address of tally.missing) out.push(`  missing (config): ${address}`);
    for (const address of tally.extra) out.push(`  extra (not made by the Checkly CLI, not counted): ${address}`);
    for (const error of tally.unchangedErrors) out.push(`  as it is: ${error}`);
  }
  const share = total === 0 ? 0 : Math.round((loaded / total) * 1000) / 10;
  out.unshift(`Checkly examples: ${loaded} of ${total} constructs load unchanged (${share} %); ${tallies.filter((t) => t.loadsUnchanged).length} of ${tallies.length} projects load with no error`);
  process.stdout.write(out.join('\n') + '\n');
}

function summarise(names: string[]): string {
  const counts = new Map<string, number>();
  for (const name of names) counts.set(name, (counts.get(name) ?? 0) + 1);
  return [...counts].map(([name, count]) => (count === 1 ? name : `${name} ×${count}`)).join(', ');
}

await main();
