/**
 * Bundling of Playwright check suites (`PlaywrightCheck`): the suite's Playwright config, the spec
 * files it selects (its `testDir`/`testMatch`, and those of its projects) and every local file they
 * import, each by its path from the project root, so the runner can lay the suite out again and run
 * Playwright on it. npm packages are not bundled: the runner provides `@playwright/test`.
 *
 * Every file must lie inside the project root (a suite's files keep their paths, so the
 * `checks.allowedScriptDirectories` outside it cannot hold them), and the bundle is bounded by the
 * schema's `PLAYWRIGHT_BUNDLE_MAX_FILES` and `PLAYWRIGHT_BUNDLE_MAX_BYTES`.
 *
 * To know which specs the config selects, the config is evaluated here (see `readPlaywrightConfig`).
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import * as esbuild from 'esbuild';
import picomatch from 'picomatch';
import { glob } from 'tinyglobby';
import { PLAYWRIGHT_BUNDLE_MAX_BYTES, PLAYWRIGHT_BUNDLE_MAX_FILES, type PlaywrightBundleFile } from '@vigil/schema';
import { PlaywrightCheck, withProject, type Diagnostic, type PlaywrightCheckEntry, type Project, type SourceLocation, type VigilConfig } from '@vigil/constructs';
import { fileLocationDefines, LOADERS } from './bundle.js';
import { isInsideDirectories, realPathOf } from './scripts.js';
import { esbuildMessagesToDiagnostics } from './user-errors.js';

/** Playwright's default `testMatch`. */
const DEFAULT_TEST_MATCH = '**/*.@(spec|test).?(c|m)[jt]s?(x)';
const NEVER_SEARCHED = ['**/node_modules/**', '**/.git/**', '**/test-results/**', '**/playwright-report/**', '**/.vigil/**'];

/** Structural view of a `PlaywrightCheck` (it may come from another package copy). */
interface SuiteOwner {
  readonly address: string;
  readonly source: SourceLocation;
  suiteConfigPath(): string | undefined;
  suiteInclude?(): string[];
  setSuiteBundle(bundle: { files: PlaywrightBundleFile[] }): void;
}

function isSuiteOwner(value: unknown): value is SuiteOwner {
  const candidate = value as Partial<SuiteOwner> | null;
  return typeof candidate === 'object' && candidate !== null && typeof candidate.suiteConfigPath === 'function' && typeof candidate.setSuiteBundle === 'function';
}

/** Stands in for the bundle of a suite that could not be bundled (and was reported). */
const NOT_BUNDLED: PlaywrightBundleFile[] = [{ path: 'not-bundled', content: '' }];

/** Bundles every Playwright check suite of the project and hands each construct its files. */
export async function attachPlaywrightSuites(project: Project, root: string): Promise<Diagnostic[]> {
  const diagnostics: Diagnostic[] = [];
  const bundles = new Map<string, Promise<SuiteBundleResult>>();
  for (const construct of project.constructs()) {
    if (!isSuiteOwner(construct)) continue;
    const configPath = construct.suiteConfigPath();
    // A missing config is the construct's to report, at the prop the user wrote.
    if (configPath === undefined || !existsSync(configPath)) continue;
    const include = construct.suiteInclude?.() ?? [];
    const key = JSON.stringify([configPath, include]);
    let pending = bundles.get(key);
    if (pending === undefined) {
      pending = bundlePlaywrightSuite(root, configPath, include);
      bundles.set(key, pending);
    }
    const result = await pending;
    construct.setSuiteBundle({ files: result.files ?? NOT_BUNDLED });
    for (const diagnostic of result.diagnostics) {
      diagnostics.push({ ...diagnostic, address: construct.address, path: 'playwrightConfigPath', ...(diagnostic.source ? {} : { source: construct.source }) });
    }
  }
  return diagnostics;
}

export interface SuiteBundleResult {
  files?: PlaywrightBundleFile[];
  diagnostics: Diagnostic[];
}

const posix = (file: string) => file.split(path.sep).join('/');

/** The suite's files (config, specs, their local imports, package.json files on the way), or why not. */
export async function bundlePlaywrightSuite(root: string, configPath: string, include: readonly string[] = []): Promise<SuiteBundleResult> {
  const realRoot = realPathOf(root);
  const inside = (file: string) => isInsideDirectories(realPathOf(file), [realRoot]);
  const outsideRoot = (file: string): SuiteBundleResult => ({
    diagnostics: [
      {
        severity: 'error',
        message: `"playwrightConfigPath": ${file} is outside the project root, so it cannot be bundled into the check`,
        hint: `A Playwright check's files are uploaded with their paths from the project root (${root}); keep the suite inside it.`,
      },
    ],
  });
  if (!inside(configPath)) return outsideRoot(configPath);

  const evaluated = await readPlaywrightConfig(root, configPath);
  if (evaluated.diagnostics.length > 0) return { diagnostics: evaluated.diagnostics };
  const specs = await findSpecFiles(path.dirname(configPath), evaluated.config ?? {});
  if (specs.length === 0) {
    return {
      diagnostics: [{ severity: 'error', message: `the Playwright config ${posix(path.relative(root, configPath))} selects no test files`, hint: 'Check its testDir and testMatch.' }],
    };
  }
  const outside = specs.find((spec) => !inside(spec));
  if (outside !== undefined) return outsideRoot(outside);

  const graph = await localImports(root, [configPath, ...specs]);
  if (graph.files === undefined) return { diagnostics: graph.diagnostics };
  // `include`: assets the specs read at run time (Checkly's rule: globs from the config's directory).
  const included = include.length === 0 ? [] : await glob([...include], { cwd: path.dirname(configPath), ignore: NEVER_SEARCHED, absolute: true, onlyFiles: true, dot: true });
  const wanted = new Set([configPath, ...specs, ...graph.files, ...included].map((file) => path.resolve(root, file)));
  // package.json files from the config's directory up to the root: "type" decides how Playwright loads the files.
  for (let dir = path.dirname(configPath); inside(path.join(dir, 'x')); dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'package.json'))) wanted.add(path.join(dir, 'package.json'));
    if (dir === root) break;
  }
  const files: PlaywrightBundleFile[] = [];
  let size = 0;
  for (const file of [...wanted].sort()) {
    if (!inside(file)) return outsideRoot(file);
    const content = await readFile(file, 'utf8');
    size += content.length;
    files.push({ path: posix(path.relative(root, file)), content });
  }
  if (files.length > PLAYWRIGHT_BUNDLE_MAX_FILES || size > PLAYWRIGHT_BUNDLE_MAX_BYTES) {
    const largest = [...files].sort((a, b) => b.content.length - a.content.length).slice(0, 3).map((file) => `${file.path} (${file.content.length})`);
    return {
      diagnostics: [
        {
          severity: 'error',
          message: `the Playwright suite has ${files.length} files of ${size} characters, more than a check carries (${PLAYWRIGHT_BUNDLE_MAX_FILES} files, ${PLAYWRIGHT_BUNDLE_MAX_BYTES} characters); largest: ${largest.join(', ')}`,
          hint: 'Narrow the suite with testDir/testMatch in its Playwright config, or split it into several configs.',
        },
      ],
    };
  }
  return { files, diagnostics: [] };
}

/** The parts of a Playwright config that select test files. */
interface SelectingConfig {
  testDir?: unknown;
  testMatch?: unknown;
  testIgnore?: unknown;
  projects?: unknown;
}

const STAND_IN = 'vigil-playwright-stand-in';

/**
 * The config's default export, evaluated as Node (and Playwright, which compiles a config to
 * CommonJS) would: npm packages are `require`d from the config's directory (dotenv needs Node's
 * built-ins at run time), every file keeps its own `__dirname` and `__filename`, and a CommonJS
 * config's `require('path')` works. `@playwright/test` is a stand-in whose `defineConfig` returns
 * its argument, so the runner need not be installed.
 */
async function readPlaywrightConfig(root: string, configPath: string): Promise<{ config?: SelectingConfig; diagnostics: Diagnostic[] }> {
  let code: string;
  try {
    const result = await esbuild.build({
      absWorkingDir: root,
      entryPoints: [configPath],
      bundle: true,
      platform: 'node',
      format: 'cjs',
      target: 'node20',
      packages: 'external',
      write: false,
      logLevel: 'silent',
      plugins: [
        {
          name: 'vigil-playwright-stand-in',
          setup(build) {
            build.onResolve({ filter: /^(@playwright\/test|playwright\/test|playwright)(\/.*)?$/ }, (args) => ({ path: args.path, namespace: STAND_IN }));
            // CommonJS, so any named import (devices, test, expect, …) is allowed.
            build.onLoad({ filter: /.*/, namespace: STAND_IN }, () => ({
              contents:
                'const anything = new Proxy(function () {}, { get: (_t, key) => (key === Symbol.toPrimitive ? () => "" : anything), apply: () => anything });\n' +
                'module.exports = { defineConfig: (...configs) => Object.assign({}, ...configs), devices: new Proxy({}, { get: () => ({}) }), test: anything, expect: anything };',
              loader: 'js',
            }));
            build.onLoad({ filter: /\.[cm]?[jt]sx?$/ }, async (args) => {
              if (args.path.split(path.sep).includes('node_modules')) return undefined;
              const source = await readFile(args.path, 'utf8');
              if (!/__dirname|__filename|import\.meta/.test(source)) return undefined;
              const transformed = await esbuild.transform(source, {
                loader: LOADERS[path.extname(args.path)] ?? 'js',
                sourcefile: args.path,
                define: fileLocationDefines(args.path),
                logLevel: 'silent',
              });
              return { contents: transformed.code, loader: 'js' };
            });
          },
        },
      ],
    });
    code = result.outputFiles[0]?.text ?? '';
  } catch (error) {
    if (error instanceof Error && Array.isArray((error as esbuild.BuildFailure).errors)) {
      return { diagnostics: esbuildMessagesToDiagnostics(root, (error as esbuild.BuildFailure).errors, 'error') };
    }
    throw error;
  }
  try {
    const module: { exports: { default?: unknown } & Record<string, unknown> } = { exports: {} };
    // Evaluated in place of the config file: its packages resolve from its node_modules.
    const run = new Function('module', 'exports', 'require', '__filename', '__dirname', code) as (...args: unknown[]) => void;
    run(module, module.exports, createRequire(configPath), configPath, path.dirname(configPath));
    const exported = module.exports as { __esModule?: boolean; default?: unknown } | null;
    // An ES module's default export, or what a CommonJS config assigns to module.exports.
    const config = exported?.__esModule === true ? exported.default : exported;
    if (config === null || typeof config !== 'object') {
      return { diagnostics: [{ severity: 'error', message: `the Playwright config ${posix(path.relative(root, configPath))} has no default export of a config object`, hint: 'Write `export default defineConfig({ ... })`.' }] };
    }
    return { config: config as SelectingConfig, diagnostics: [] };
  } catch (error) {
    return {
      diagnostics: [
        {
          severity: 'error',
          // Node's "Require stack" lists the temporary evaluation, not the user's files.
          message: `could not read the Playwright config ${posix(path.relative(root, configPath))}: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`,
          ...((error as NodeJS.ErrnoException | undefined)?.code === 'MODULE_NOT_FOUND' ? { hint: 'Install the packages the Playwright config imports (npm install) in the project.' } : {}),
        },
      ],
    };
  }
}

type Matcher = (file: string) => boolean;

/** Playwright's `testMatch`/`testIgnore`: globs (matched against the path from testDir, or the whole path) or RegExps. */
function matcherOf(value: unknown, fallback: Matcher): Matcher {
  const patterns = (Array.isArray(value) ? value : value === undefined ? [] : [value]) as unknown[];
  if (patterns.length === 0) return fallback;
  const matchers = patterns.map((pattern): Matcher => {
    if (pattern instanceof RegExp) return (file) => pattern.test(file);
    if (typeof pattern === 'string') {
      const glob = picomatch(pattern, { dot: true });
      const base = picomatch(pattern, { dot: true, basename: true });
      return (file) => glob(file) || base(file);
    }
    return () => false;
  });
  return (file) => matchers.some((match) => match(file));
}

/** The spec files the config (and its projects) select, absolute paths. */
async function findSpecFiles(configDir: string, config: SelectingConfig): Promise<string[]> {
  const projects = Array.isArray(config.projects) ? (config.projects as SelectingConfig[]) : [];
  const selections = (projects.length > 0 ? projects : [{}]).map((project) => ({
    testDir: path.resolve(configDir, typeof project?.testDir === 'string' ? project.testDir : typeof config.testDir === 'string' ? config.testDir : '.'),
    match: matcherOf(project?.testMatch ?? config.testMatch, picomatch(DEFAULT_TEST_MATCH, { dot: true })),
    ignore: matcherOf(project?.testIgnore ?? config.testIgnore, () => false),
  }));
  const found = new Set<string>();
  for (const selection of selections) {
    if (!existsSync(selection.testDir)) continue;
    const files = await glob('**/*', { cwd: selection.testDir, ignore: NEVER_SEARCHED, absolute: false, dot: false });
    for (const relative of files) {
      const absolute = path.join(selection.testDir, relative);
      const shown = relative.split(path.sep).join('/');
      if ((selection.match(shown) || selection.match(absolute)) && !selection.ignore(shown) && !selection.ignore(absolute)) found.add(absolute);
    }
  }
  return [...found].sort();
}

/** Every local file the entry files import (transitively), relative to the root; packages stay out. */
async function localImports(root: string, entries: readonly string[]): Promise<{ files?: string[]; diagnostics: Diagnostic[] }> {
  const realRoot = realPathOf(root);
  try {
    const result = await esbuild.build({
      absWorkingDir: root,
      entryPoints: [...entries],
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      write: false,
      metafile: true,
      outdir: path.join(os.tmpdir(), 'vigil-playwright-graph'),
      logLevel: 'silent',
      plugins: [
        {
          name: 'vigil-playwright-local-only',
          setup(build) {
            build.onResolve({ filter: /.*/ }, async (args) => {
              if (args.kind === 'entry-point' || args.pluginData === 'resolving') return undefined;
              const bare = !args.path.startsWith('.') && !path.isAbsolute(args.path);
              const resolved = await build.resolve(args.path, { kind: args.kind, importer: args.importer, resolveDir: args.resolveDir, pluginData: 'resolving' });
              if (resolved.errors.length > 0) return bare ? { path: args.path, external: true } : undefined;
              if (resolved.external || /[\\/]node_modules[\\/]/.test(resolved.path) || !path.isAbsolute(resolved.path)) return { path: args.path, external: true };
              const real = realPathOf(resolved.path);
              if (isInsideDirectories(real, [realRoot])) return { path: resolved.path };
              return {
                errors: [{ text: `"${args.path}" resolves to ${real}, outside the project root, so a Playwright check cannot bundle it`, notes: [{ text: `A Playwright check's files must lie inside the project root (${root}).` }] }],
              };
            });
          },
        },
      ],
    });
    const files = Object.keys(result.metafile.inputs).filter((input) => !input.includes(':'));
    return { files: files.map((file) => path.resolve(root, file)), diagnostics: [] };
  } catch (error) {
    if (error instanceof Error && Array.isArray((error as esbuild.BuildFailure).errors)) {
      return { diagnostics: esbuildMessagesToDiagnostics(root, (error as esbuild.BuildFailure).errors, 'error') };
    }
    throw error;
  }
}

/**
 * The config's Playwright suites (Checkly's project parser): one `PlaywrightCheck` per entry of
 * `checks.playwrightChecks`, its config path relative to the root and defaulting to
 * `checks.playwrightConfigPath`; without entries, `checks.playwrightConfigPath` alone is one check
 * named and identified by the config's file name. The checks are located at the config.
 */
export async function addConfigPlaywrightChecks(project: Project, root: string, config: VigilConfig, configSource: SourceLocation | undefined): Promise<Diagnostic[]> {
  const checks = config.checks ?? {};
  const entries: PlaywrightCheckEntry[] = Array.isArray(checks.playwrightChecks) ? checks.playwrightChecks : [];
  const diagnostics: Diagnostic[] = [];
  // Checkly passes the config's checks.include to every suite the config makes.
  const include = checks.include === undefined ? {} : { include: checks.include };
  const located = (construct: PlaywrightCheck) => {
    if (configSource) Object.defineProperty(construct, 'source', { value: configSource, enumerable: true });
  };
  await withProject(project, async () => {
    if (entries.length === 0) {
      if (typeof checks.playwrightConfigPath !== 'string') return;
      const name = path.basename(checks.playwrightConfigPath);
      located(new PlaywrightCheck(name, { name, playwrightConfigPath: path.resolve(root, checks.playwrightConfigPath), ...include }));
      return;
    }
    for (const [index, entry] of entries.entries()) {
      const { logicalId, playwrightConfigPath, ...props } = entry;
      const configured = playwrightConfigPath ?? checks.playwrightConfigPath;
      if (typeof configured !== 'string') {
        diagnostics.push({
          severity: 'error',
          message: `vigil.config: checks.playwrightChecks[${index}] (${logicalId}) names no Playwright config`,
          hint: 'Set its playwrightConfigPath, or checks.playwrightConfigPath for every entry.',
          path: `checks.playwrightChecks[${index}].playwrightConfigPath`,
          ...(configSource ? { source: configSource } : {}),
        });
        continue;
      }
      located(new PlaywrightCheck(logicalId, { ...include, ...props, playwrightConfigPath: path.resolve(root, configured) }));
    }
  });
  return diagnostics;
}
