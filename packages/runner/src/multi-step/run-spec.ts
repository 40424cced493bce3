/**
 * One multi-step run: the check's bundled spec under the real Playwright test runner, in child
 * processes (Playwright's CLI and its worker), with a generated config in a fresh directory, our
 * reporter (./reporter.ts), the check's variables as the whole environment, and a hard deadline that
 * kills the process group. API-only specs (the `request` fixture) need no browser; a spec that opens
 * a `page` uses VIGIL_CHROMIUM_PATH, else Playwright's own browsers, else the system `chromium`.
 */
import { existsSync, readdirSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { endPlaywrightTurn, playwrightReporterFile, playwrightTurn, playwrightWorkspace, runPlaywrightProcess } from './playwright-process.js';
import { CHROMIUM_PROXY_SWITCH } from './policy-proxy.js';
import type { ReportFile } from './report.js';
import type { WarmPlaywrightWorkers, WarmWorkerInfo } from './warm-workers.js';

declare const __VIGIL_BUNDLED__: boolean | undefined;

/**
 * Put in front of the spec on its first line, so line numbers stay the bundle's own: Playwright maps
 * positions through the bundle's inline source map itself and reports the user's files (relative to
 * the run directory).
 */
const SPEC_BANNER = "import { createRequire as __vigilCreateRequire } from 'node:module'; const require = __vigilCreateRequire(import.meta.url);";
export const SPEC_FILE = 'check.spec.mjs';
const WARM_UNUSED_REPORT = 'unused-report.json';

let playwrightRequire: NodeJS.Require | undefined;

/**
 * A `require` that finds @playwright/test: from this module (sources, or a CLI package that depends
 * on it), else from @vigil/runner's own directory (the CLI bundle inside the workspace, where the
 * CLI package itself does not list it).
 */
export function requirePlaywright(): NodeJS.Require {
  if (playwrightRequire) return playwrightRequire;
  const own = createRequire(import.meta.url);
  try {
    own.resolve('@playwright/test/package.json');
    playwrightRequire = own;
  } catch {
    playwrightRequire = createRequire(own.resolve('@vigil/runner'));
  }
  return playwrightRequire;
}

function onPath(names: string[]): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    for (const name of names) {
      const candidate = path.join(dir, name);
      if (dir !== '' && existsSync(candidate)) return candidate;
    }
  }
  return undefined;
}

function playwrightHasChromium(): boolean {
  const cache = process.env.PLAYWRIGHT_BROWSERS_PATH || path.join(os.homedir(), '.cache', 'ms-playwright');
  try {
    return readdirSync(cache).some((name) => name.startsWith('chromium'));
  } catch {
    return false;
  }
}

/** The Chromium a `page` runs in: undefined leaves the choice to Playwright (its own download). */
export function chromiumExecutable(): string | undefined {
  return process.env.VIGIL_CHROMIUM_PATH || (playwrightHasChromium() ? undefined : onPath(['chromium', 'chromium-browser']));
}

/** Where a browser check's Chromium came from; `executablePath` undefined leaves it to Playwright (its own install). */
export type ChromiumLookup = { found: true; executablePath: string | undefined } | { found: false; message: string };

/**
 * The Chromium a browser check runs in, looked for in this order: VIGIL_CHROMIUM_PATH, Playwright's
 * own install, the system's `chromium` on PATH. Unlike a multi-step spec (which needs a browser only
 * if it opens a page), a browser check always does, so "none" is said before Playwright starts.
 */
export function findChromium(): ChromiumLookup {
  const configured = process.env.VIGIL_CHROMIUM_PATH;
  if (configured) {
    if (existsSync(configured)) return { found: true, executablePath: configured };
    return { found: false, message: `no browser found: VIGIL_CHROMIUM_PATH is set to ${configured}, which does not exist` };
  }
  if (playwrightHasChromium()) return { found: true, executablePath: undefined };
  const system = onPath(['chromium', 'chromium-browser']);
  if (system !== undefined) return { found: true, executablePath: system };
  return { found: false, message: NO_BROWSER_FOUND };
}

export const NO_BROWSER_FOUND =
  'no browser found: looked for VIGIL_CHROMIUM_PATH (not set), Playwright\'s own Chromium (none installed; `npx playwright install chromium`) ' +
  'and the system\'s `chromium` on PATH (not found; e.g. `apt-get install chromium`)';

export const NO_BROWSER_HINT =
  'this multi-step check opens a browser page, and no Chromium was found: set VIGIL_CHROMIUM_PATH to a Chromium or Chrome executable, ' +
  'or run `npx playwright install chromium`, or install the system `chromium` package (found on PATH)';

export interface SpecRun {
  /** The run's directory: positions Playwright reports are below it (deleted when the run ends). */
  dir: string;
  /** The report, or null when Playwright wrote none (killed at the deadline, crashed before its end). */
  report: ReportFile | null;
  /** Playwright's own stdout and stderr (the reporter prints nothing; this is what went wrong around it). */
  output: string;
  timedOut: boolean;
  aborted: boolean;
  exitCode: number | null;
  durationMs: number;
  /** The warm worker that ran it; absent for a cold run. */
  worker?: WarmWorkerInfo;
}

export interface SpecInput {
  code: string;
  env: Record<string, string>;
  timeoutMs: number;
  signal: AbortSignal;
  /** CIDRs the spec may not connect to: its Node processes (../network-policy-preload.ts) and its browser (./policy-proxy.ts); none when absent. */
  denyNetworks?: readonly string[];
  /** Whose run it is: Playwright's transform cache is kept per tenant, never shared between tenants. */
  tenant?: string | undefined;
  /** Warm workers to run in (./warm-workers.ts); absent, or none free, runs cold. */
  warm?: WarmPlaywrightWorkers | null | undefined;
  /** A browser check's run: the Chromium found by {@link findChromium} and the check's Playwright options. */
  browser?: { executablePath: string | undefined; playwrightConfig?: SpecPlaywrightConfig | null };
}

/** A browser check's `playwrightConfig` (Checkly's PlaywrightConfig: `use`, `expect`, `timeout`). */
export interface SpecPlaywrightConfig {
  use?: Record<string, unknown>;
  expect?: Record<string, unknown>;
  timeout?: number;
}

/** The browser's forward proxy under a network policy (./policy-proxy.ts): bundled, or the TypeScript source. */
function policyProxyModule(): string {
  if (typeof __VIGIL_BUNDLED__ !== 'undefined' && __VIGIL_BUNDLED__) return new URL('./browser-policy-proxy.mjs', import.meta.url).href;
  return new URL('./policy-proxy.ts', import.meta.url).href;
}

/** The same module as a file path (a Playwright `globalSetup` entry). */
export function policyProxyFile(): string {
  return fileURLToPath(policyProxyModule());
}

function configSource(input: {
  reportFile: string;
  timeoutMs: number;
  executablePath: string | undefined;
  playwrightConfig?: SpecPlaywrightConfig | null;
  /** A run under a network policy: its browser's traffic goes through the policy proxy. */
  proxied?: boolean;
}): string {
  const own = input.playwrightConfig ?? {};
  // Under a policy the proxy replaces any the check names (the policy must see every connection).
  const { proxy: _checkProxy, ...usePolicyKeeps } = own.use ?? {};
  const userUse = input.proxied ? usePolicyKeeps : (own.use ?? {});
  // The browser is the one the runner found, never one a check names.
  const { executablePath: _named, ...userLaunch } =
    typeof userUse.launchOptions === 'object' && userUse.launchOptions !== null ? (userUse.launchOptions as Record<string, unknown>) : {};
  if (input.proxied && Array.isArray(userLaunch.args)) {
    userLaunch.args = userLaunch.args.filter((arg) => typeof arg !== 'string' || !CHROMIUM_PROXY_SWITCH.test(arg));
  }
  const config = {
    testDir: '.',
    testMatch: SPEC_FILE,
    // The check's own test timeout, within the run's deadline.
    timeout: typeof own.timeout === 'number' && own.timeout > 0 ? Math.min(own.timeout, input.timeoutMs) : input.timeoutMs,
    ...(own.expect ? { expect: own.expect } : {}),
    globalTimeout: input.timeoutMs,
    retries: 0,
    workers: 1,
    forbidOnly: false,
    outputDir: './test-results',
    preserveOutput: 'never',
    reporter: [[playwrightReporterFile(), { outputFile: input.reportFile }]],
    use: {
      // The check's options first: what keeps the run headless, unrecorded and in the Chromium found wins.
      ...userUse,
      headless: true,
      trace: 'off',
      screenshot: 'off',
      video: 'off',
      ...(input.executablePath ? { launchOptions: { ...userLaunch, executablePath: input.executablePath } } : Object.keys(userLaunch).length > 0 || input.proxied ? { launchOptions: userLaunch } : {}),
    },
  };
  if (!input.proxied) return `export default ${JSON.stringify(config, null, 2)};\n`;
  // The browser's proxy, not `use.proxy`: that would send the `request` fixture through it too,
  // which a policy denying loopback would refuse on its way to the proxy. The fixture's traffic is
  // guarded in its own process.
  return [
    `import { startPolicyProxy } from ${JSON.stringify(policyProxyModule())};`,
    `const config = ${JSON.stringify(config, null, 2)};`,
    'config.use.launchOptions.proxy = { server: (await startPolicyProxy()).url };',
    'export default config;',
    '',
  ].join('\n');
}

/** Runs the spec once (after waiting for its turn); never throws for anything the spec does. */
export async function runSpec(input: SpecInput): Promise<SpecRun> {
  if (!(await playwrightTurn(input.signal))) return { dir: '', report: null, output: '', timedOut: false, aborted: true, exitCode: null, durationMs: 0 };
  try {
    return await runSpecNow(input);
  } finally {
    endPlaywrightTurn();
  }
}

async function runSpecNow(input: SpecInput): Promise<SpecRun> {
  const started = performance.now();
  if (input.warm) {
    const proxied = input.denyNetworks !== undefined && input.denyNetworks.length > 0;
    const warm = await input.warm.run({
      specSource: `${SPEC_BANNER} ${input.code}\n`,
      // The warm host lists and runs tests itself and loads no reporter: the report file is never written.
      configSource: configSource({
        reportFile: WARM_UNUSED_REPORT,
        timeoutMs: input.timeoutMs,
        executablePath: input.browser ? input.browser.executablePath : chromiumExecutable(),
        playwrightConfig: input.browser?.playwrightConfig,
        proxied,
      }),
      env: input.env,
      timeoutMs: input.timeoutMs,
      signal: input.signal,
      denyNetworks: input.denyNetworks,
      tenant: input.tenant,
      started,
    });
    if (warm) return warm;
  }
  const base = await playwrightWorkspace();
  const dir = await mkdtemp(path.join(base, 'run-'));
  const reportFile = path.join(dir, 'report.json');
  try {
    await writeFile(path.join(dir, SPEC_FILE), `${SPEC_BANNER} ${input.code}\n`);
    await writeFile(path.join(dir, 'playwright.config.mjs'), configSource({
        reportFile,
        timeoutMs: input.timeoutMs,
        executablePath: input.browser ? input.browser.executablePath : chromiumExecutable(),
        playwrightConfig: input.browser?.playwrightConfig,
        proxied: input.denyNetworks !== undefined && input.denyNetworks.length > 0,
      }),);
    return await runPlaywrightProcess({
      dir,
      args: ['--config', path.join(dir, 'playwright.config.mjs')],
      reportFile,
      env: input.env,
      timeoutMs: input.timeoutMs,
      signal: input.signal,
      denyNetworks: input.denyNetworks,
      tenant: input.tenant,
      started,
    });
  } finally {
    await rm(dir, { recursive: true, force: true }).catch(() => undefined);
  }
}
