/**
 * `multiStepCheckResult` from a Playwright run. The real service documents only the outer fields
 * (MultiStepResultBrowser: errors, startTime, endTime, runtimeVersion, jobLog, jobAssets); the rest
 * is Vigil's, documented in docs/testing.md ("Multi-step checks"). Playwright maps positions through
 * the bundle's source map itself; they are made relative to the project here.
 */
import path from 'node:path';
import type { JobLogLine } from '../types.js';
import type { ReportError, ReportFile, ReportLocation, ReportStep } from './report.js';
import { NO_BROWSER_HINT, requirePlaywright, SPEC_FILE, type SpecRun } from './run-spec.js';

const MAX_JOB_LOG_LINES = 1000;
const MAX_LINE_CHARS = 8192;

export interface MultiStepError {
  message: string;
  /** `checks/flow.spec.ts:12:5` (the user's file), or `check script:12:5` for a spec without a source map. */
  location: string | null;
}

export interface MultiStepStep {
  title: string;
  /** Playwright's category: `test.step`, `expect`, `pw:api`, `hook`, `fixture`. */
  category: string;
  depth: number;
  durationMs: number;
  location: string | null;
  error: MultiStepError | null;
  /** Arguments of a Playwright API call (`url`, `locator`, …), as Playwright reports them. */
  params: Record<string, string | number | boolean> | null;
}

export interface MultiStepTest {
  title: string;
  status: string;
  durationMs: number;
  errors: MultiStepError[];
  steps: MultiStepStep[];
}

export interface MultiStepRequest {
  /** The call as Playwright names it: `GET`, `POST`, `Navigate to "…"`, … */
  title: string;
  /** The HTTP method of a `request` fixture call (its title), null for page calls. */
  method: string | null;
  /** The URL Playwright reports for the call (requests, `page.goto`), when it reports one. */
  url: string | null;
  durationMs: number;
  location: string | null;
  error: string | null;
}

export interface MultiStepCheckResult {
  [key: string]: unknown;
  runtimeVersion: string;
  startTime: number;
  endTime: number;
  /** Every failure, one line each (message and location). */
  errors: string[];
  tests: MultiStepTest[];
  /** The spec's requests and page calls (Playwright's `pw:api` steps) in order. */
  requests: MultiStepRequest[];
  /** The spec's console output and the runner's notes. */
  jobLog: JobLogLine[];
  jobAssets: null;
}

let playwrightVersion: string | undefined;
function runtimeVersion(): string {
  if (playwrightVersion === undefined) {
    try {
      playwrightVersion = (requirePlaywright()('@playwright/test/package.json') as { version: string }).version;
    } catch {
      playwrightVersion = 'unknown';
    }
  }
  return `vigil (@playwright/test ${playwrightVersion})`;
}

// eslint-disable-next-line no-control-regex
const ANSI = /\u001b\[[0-9;]*m/g;
const stripAnsi = (text: string) => text.replace(ANSI, '');

function capped(text: string): string {
  return text.length > MAX_LINE_CHARS ? `${text.slice(0, MAX_LINE_CHARS)}… (${text.length - MAX_LINE_CHARS} more characters)` : text;
}

class Locator {
  readonly #prefix: string;
  constructor(dir: string) {
    this.#prefix = dir.endsWith(path.sep) ? dir : `${dir}${path.sep}`;
  }

  #file(file: string): string {
    const relative = file.startsWith(this.#prefix) ? file.slice(this.#prefix.length) : file;
    return relative === SPEC_FILE ? 'check script' : relative.split(path.sep).join('/');
  }

  at(file: string, line: number, column: number): string {
    return `${this.#file(file)}:${line}:${column}`;
  }

  location(location: ReportLocation | null): string | null {
    return location ? this.at(location.file, location.line, location.column) : null;
  }

  /** The run directory left out of paths in a message, so they read as the user's files. */
  text(message: string): string {
    return stripAnsi(message).split(this.#prefix).join('').split(SPEC_FILE).join('check script');
  }

  error(error: ReportError): MultiStepError {
    let message = this.text(error.message).trim();
    if (/Executable doesn't exist|browserType\.launch/.test(message)) message = `${NO_BROWSER_HINT}\n(Playwright said: ${message.split('\n')[0]})`;
    return { message, location: this.location(error.location) };
  }
}

function step(locator: Locator, raw: ReportStep): MultiStepStep {
  return {
    title: raw.title,
    category: raw.category,
    depth: raw.depth,
    durationMs: raw.durationMs,
    location: locator.location(raw.location),
    error: raw.error ? locator.error(raw.error) : null,
    params: raw.params ?? null,
  };
}

const HTTP_METHOD = /^(GET|HEAD|POST|PUT|PATCH|DELETE|OPTIONS|FETCH)$/i;

function oneLine(error: MultiStepError): string {
  const [first = ''] = error.message.split('\n');
  const detail = error.message
    .split('\n')
    .slice(1)
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('at '))
    .slice(0, 2)
    .join('; ');
  return `${first}${detail ? ` — ${detail}` : ''}${error.location ? ` (at ${error.location})` : ''}`;
}

function reportLines(report: ReportFile, locator: Locator): JobLogLine[] {
  const lines: JobLogLine[] = [];
  for (const test of report.tests) {
    const push = (level: JobLogLine['level'], chunks: string[]) => {
      for (const chunk of chunks) {
        for (const line of stripAnsi(chunk).split('\n')) if (line.trim() !== '' && lines.length < MAX_JOB_LOG_LINES) lines.push({ time: test.startTime, level, msg: capped(locator.text(line)) });
      }
    };
    push('INFO', test.stdout);
    push('ERROR', test.stderr);
  }
  return lines;
}

export interface MultiStepVerdict {
  result: MultiStepCheckResult;
  /** Null when every test passed. */
  failure: { kind: 'ASSERTION' | 'TIMEOUT' | 'ABORTED' | 'SCRIPT'; message: string } | null;
  /** The runner itself failed (Playwright could not start, wrote no report without a timeout). */
  hasErrors: boolean;
}

/** What a spec run means for the check: its result and whether (and why) it failed. */
export function multiStepVerdict(run: SpecRun, timeoutMs: number, startTime: number): MultiStepVerdict {
  const locator = new Locator(run.dir);
  const result: MultiStepCheckResult = {
    runtimeVersion: runtimeVersion(),
    startTime,
    endTime: startTime + Math.round(run.durationMs),
    errors: [],
    tests: [],
    requests: [],
    jobLog: [],
    jobAssets: null,
  };
  if (run.aborted) {
    result.errors.push('the run was cancelled');
    return { result, failure: { kind: 'ABORTED', message: 'the run was cancelled before the spec finished' }, hasErrors: false };
  }
  if (run.timedOut) {
    const message = `the spec did not finish within ${timeoutMs} ms and was stopped`;
    result.errors.push(message);
    return { result, failure: { kind: 'TIMEOUT', message }, hasErrors: false };
  }
  const { report } = run;
  if (!report) {
    const output = locator.text(run.output).trim().split('\n').slice(-20).join('\n');
    const message = `Playwright ended (exit code ${run.exitCode}) without a report: ${output || 'no output'}`;
    result.errors.push(message);
    return { result, failure: { kind: 'SCRIPT', message }, hasErrors: true };
  }
  result.jobLog = reportLines(report, locator);
  for (const test of report.tests) {
    const steps = test.steps.map((raw) => step(locator, raw));
    const errors = test.errors.map((error) => locator.error(error));
    result.tests.push({ title: test.titlePath.slice(1).join(' › ') || test.title, status: test.status, durationMs: test.durationMs, errors, steps });
    for (const raw of steps) {
      if (raw.category === 'pw:api' && !/^(Create|Dispose) request context$/.test(raw.title)) {
        const url = typeof raw.params?.url === 'string' ? raw.params.url : null;
        const method = HTTP_METHOD.test(raw.title) ? raw.title.toUpperCase() : null;
        result.requests.push({ title: raw.title, method, url, durationMs: raw.durationMs, location: raw.location, error: raw.error ? oneLine(raw.error) : null });
      }
    }
    result.errors.push(...errors.map(oneLine));
  }
  result.errors.push(...report.errors.map((error) => oneLine(locator.error(error))));
  const failed = report.tests.filter((test) => test.status !== test.expectedStatus && test.status !== 'skipped');
  const timedOut = report.tests.some((test) => test.status === 'timedOut') || report.status === 'timedout';
  if (report.tests.length === 0 && report.status === 'timedout') {
    // The deadline passed before Playwright had even started the tests (a slow start on a busy machine).
    const message = `the spec did not finish within ${timeoutMs} ms: ${result.errors[0] ?? 'timed out before any test started'}`;
    return { result, failure: { kind: 'TIMEOUT', message }, hasErrors: false };
  }
  if (report.tests.length === 0) {
    const message = result.errors[0] ?? 'the spec declares no tests';
    if (result.errors.length === 0) result.errors.push(message);
    return { result, failure: { kind: 'SCRIPT', message }, hasErrors: false };
  }
  if (failed.length === 0 && report.errors.length === 0) return { result, failure: null, hasErrors: false };
  const message = timedOut ? `the spec did not finish within ${timeoutMs} ms: ${result.errors[0] ?? 'timed out'}` : (result.errors[0] ?? `${failed.length} test(s) failed`);
  return { result, failure: { kind: timedOut ? 'TIMEOUT' : 'ASSERTION', message }, hasErrors: false };
}
