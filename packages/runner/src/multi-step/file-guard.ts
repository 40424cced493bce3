/**
 * Pages of browser checks, multi-step checks and Playwright check suites may not load `file:` URLs:
 * a check's page would otherwise read the runner's files (`page.goto('file:///etc/passwd')`) and
 * put them in its result. Chromium lets a navigation Playwright starts open any local file, so the
 * `@playwright/test` the run's code imports is one Vigil writes into the run's workspace: the real
 * package with its `test` extended by fixtures that give every browser context (the `context` and
 * `page` fixtures', and those `browser.newContext()` / `browser.newPage()` open) a route refusing
 * `file:` requests — top-level navigations and frames alike — with `net::ERR_ACCESS_DENIED`. Each
 * refusal is reported on stderr, so the run's failure can say why.
 *
 * A guard for pages, not a sandbox: the spec's own Node code can still read files (see
 * docs/design-deviations.md), and neither a browser the spec launches itself (`chromium.launch()`)
 * nor a context whose routes the spec removes (`unrouteAll`) is covered.
 */
import { readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { FailureKind } from '../types.js';

/** The line a refused `file:` load is reported with; {@link explainFileRefusal} looks for it. */
export const FILE_REFUSED_MARKER = 'vigil file guard:';
export const FILE_REFUSED_REASON = 'browser checks and multi-step checks may not load file: URLs';

function guardSource(realPackageDir: string): string {
  const json = JSON.stringify;
  return `'use strict';
const real = require(${json(path.join(realPackageDir, 'index.js'))});
const FILE_URL = /^file:/i;
const guarded = new WeakSet();

async function guardContext(context) {
  if (guarded.has(context)) return;
  guarded.add(context);
  await context.route(FILE_URL, (route) => {
    process.stderr.write(${json(FILE_REFUSED_MARKER)} + ' ' + route.request().url() + ' refused: ' + ${json(FILE_REFUSED_REASON)} + '\\n');
    return route.abort('accessdenied');
  });
}

const test = real.test.extend({
  browser: [async ({ browser }, use) => {
    const newContext = browser.newContext;
    browser.newContext = async function (...args) {
      const context = await newContext.apply(this, args);
      await guardContext(context);
      return context;
    };
    await use(browser);
  }, { scope: 'worker' }],
  context: async ({ context }, use) => {
    await guardContext(context);
    await use(context);
  },
});

// The module's exports are the test function itself with the package's exports as its properties.
for (const key of Object.keys(real)) if (!(key in test)) test[key] = real[key];
test.test = test;
test.default = test;
module.exports = test;
`;
}

/**
 * Writes the guarded `@playwright/test` as `node_modules/@playwright/test` of `workspace`: its
 * entry points load the real package in `realPackageDir` (the very instance the CLI runs), with
 * `test` replaced.
 */
export async function writeGuardedPlaywright(workspace: string, realPackageDir: string): Promise<void> {
  const dir = path.join(workspace, 'node_modules', '@playwright', 'test');
  await mkdir(dir, { recursive: true });
  const real = (file: string) => JSON.stringify(path.join(realPackageDir, file));
  const { version } = JSON.parse(readFileSync(path.join(realPackageDir, 'package.json'), 'utf8')) as { version: string };
  const manifest = {
    name: '@playwright/test',
    version,
    private: true,
    exports: {
      '.': { import: './index.mjs', require: './index.js', default: './index.js' },
      './cli': './cli.js',
      './package.json': './package.json',
      './reporter': { import: './reporter.mjs', require: './reporter.js', default: './reporter.js' },
    },
  };
  const files: Record<string, string> = {
    'package.json': `${JSON.stringify(manifest, null, 2)}\n`,
    'index.js': guardSource(realPackageDir),
    'index.mjs': [
      "import test from './index.js';",
      `export * from ${real('index.mjs')};`,
      'export { test };',
      'export default test;',
      '',
    ].join('\n'),
    'cli.js': `module.exports = require(${real('cli.js')});\n`,
    'reporter.js': `module.exports = require(${real('reporter.js')});\n`,
    'reporter.mjs': `export * from ${real('reporter.mjs')};\n`,
  };
  for (const [name, text] of Object.entries(files)) await writeFile(path.join(dir, name), text);
}

/** The first `file:` load the guard refused, as it reported it (in Playwright's output, or a test's log). */
function fileRefusal(output: string, jobLog: ReadonlyArray<{ msg: string }>): string | undefined {
  const lines = [...output.split('\n'), ...jobLog.map((line) => line.msg)];
  const line = lines.find((candidate) => candidate.includes(FILE_REFUSED_MARKER));
  return line?.slice(line.indexOf(FILE_REFUSED_MARKER) + FILE_REFUSED_MARKER.length).trim();
}

type Failure = { kind: FailureKind; message: string };

/** A run's failure with the guard's refusal put ahead of it: Playwright itself only says `net::ERR_ACCESS_DENIED`. */
export function explainFileRefusal(failure: Failure | null, output: string, jobLog: ReadonlyArray<{ msg: string }>): Failure | null {
  const refusal = failure === null ? undefined : fileRefusal(output, jobLog);
  return failure !== null && refusal !== undefined ? { kind: failure.kind, message: `${refusal} — ${failure.message}` } : failure;
}
