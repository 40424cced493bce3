/**
 * Bundles the CLI into packages/cli/dist/ with esbuild (`pnpm build`; also run on install and before
 * `pnpm test` and `pnpm bench`). bin/vigil.mjs runs the bundle while it is newer than every source
 * file, and the TypeScript sources through tsx otherwise (see sources.mjs). scripts/pack.mjs builds
 * the same bundle into the published package (`pnpm pack:cli`).
 *
 * Why: through tsx every command first sent each of its ~300 modules through tsx's loader thread,
 * about 0.3 s before any work on an idle machine and over a second on a busy one, plus a second V8
 * isolate's memory. A bundle starts in a fraction of that.
 *
 * Three entry points share chunks (`splitting`), so `vigil`, `vigil/constructs` and the CLI itself
 * are one module instance: user code loaded by the CLI imports them from here (validate.ts,
 * cliModuleAliases). Packages in EXTERNAL stay out of the bundle and resolve from node_modules,
 * which is why the published package depends on them (pack.mjs derives that list).
 *
 * Files the code reads at run time rather than imports go beside the bundle in dist/assets/: uPlot's
 * script and stylesheet, which the dashboard serves to browsers (server/src/dashboard/assets.ts); and
 * the warm Playwright host files go beside the bundle's chunks, where the runner looks for them.
 * Copied rather than made a dependency, as every other package the CLI uses without running its own
 * binaries is bundled: the published package then needs nothing more installed to draw charts, and
 * the repository's own bundle (which resolves packages from packages/cli/node_modules) draws them too.
 */
import { build } from 'esbuild';
import { copyFile, mkdir, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const CLI_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/**
 * Never bundled: native code (better-sqlite3), packages that run their own binaries or spawn their
 * own files (esbuild, tsx, Playwright), and the TypeScript compiler behind ts-morph (megabytes that
 * only `vigil import` loads).
 */
export const EXTERNAL = ['better-sqlite3', 'esbuild', 'ts-morph', 'typescript', 'tsx', '@playwright/test', 'playwright', 'playwright-core'];

/** What both the ESM bundle and the CommonJS copy of the constructs share. */
export const COMMON_OPTIONS = {
  absWorkingDir: CLI_ROOT,
  bundle: true,
  platform: 'node',
  target: 'node20',
  external: EXTERNAL,
  metafile: true,
  // Messages name construct classes (`ApiCheck "home" …`); minifying renames must not show there.
  keepNames: true,
  logLevel: 'warning',
};

/** uPlot's files the dashboard serves, with its licence, from the server package's dependency. */
export const UPLOT_FILES = ['dist/uPlot.iife.min.js', 'dist/uPlot.min.css', 'LICENSE'];

/** The warm Playwright worker's host and its environment preload (@vigil/runner's multi-step/warm-workers.ts). */
export const WARM_HOST_FILES = ['warm-host.cjs', 'warm-worker-env.cjs'];

async function copyRunTimeAssets(outdir) {
  const serverRequire = createRequire(path.join(CLI_ROOT, '..', 'server', 'package.json'));
  const uplotRoot = path.dirname(serverRequire.resolve('uplot/package.json'));
  const target = path.join(outdir, 'assets', 'uplot');
  await mkdir(target, { recursive: true });
  for (const file of UPLOT_FILES) await copyFile(path.join(uplotRoot, file), path.join(target, path.basename(file)));
  // The warm Playwright host is plain CommonJS that Playwright's own loader runs outside the bundle;
  // the runner finds it beside the chunk that imports it (new URL('./warm-host.cjs', import.meta.url)).
  for (const file of WARM_HOST_FILES) await copyFile(path.join(CLI_ROOT, '..', 'runner', 'src', 'multi-step', file), path.join(outdir, file));
}

/** Builds the ESM bundle into `outdir` and resolves to esbuild's metafile (what it imports). */
export async function buildCli(outdir = path.join(CLI_ROOT, 'dist')) {
  await rm(outdir, { recursive: true, force: true });
  const result = await build({
    ...COMMON_OPTIONS,
    // script-worker: the child process that runs setup/teardown scripts (@vigil/runner's scripts/pool.ts);
    // multi-step-reporter: the reporter Playwright loads for a multi-step run (multi-step/run-spec.ts);
    // network-policy-preload: the network policy Playwright's processes load (NODE_OPTIONS --import).
    entryPoints: {
      main: 'src/main.ts',
      index: 'src/index.ts',
      constructs: 'src/constructs.ts',
      'script-worker': '../runner/src/scripts/worker.ts',
      // assertion-worker: the worker thread that evaluates regex and JSONPath assertions (@vigil/runner's assertions/pool.ts).
      'assertion-worker': '../runner/src/assertions/worker.ts',
      'multi-step-reporter': '../runner/src/multi-step/reporter.ts',
      'network-policy-preload': '../runner/src/network-policy-preload.ts',
      // browser-policy-proxy: the forward proxy a browser check's Chromium uses under a network policy.
      'browser-policy-proxy': '../runner/src/multi-step/policy-proxy.ts',
    },
    outdir,
    outExtension: { '.js': '.mjs' },
    splitting: true,
    format: 'esm',
    define: { __VIGIL_BUNDLED__: 'true' },
    // CommonJS dependencies (commander, deep-diff) call require() for Node built-ins.
    banner: { js: "import { createRequire as __vigilCreateRequire } from 'node:module'; const require = __vigilCreateRequire(import.meta.url);" },
  });
  await copyRunTimeAssets(outdir);
  // Written last: its time is the bundle's, which bin/vigil.mjs compares with the sources'.
  await writeFile(path.join(outdir, 'BUILT'), `${new Date().toISOString()}\n`);
  return result.metafile;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await buildCli();
