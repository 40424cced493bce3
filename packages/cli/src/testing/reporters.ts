/**
 * `vigil test --reporter list|dot|ci|github|json|junit`. Text reporters print a line per run as it
 * finishes, then the failures in detail and a summary; json and junit print one document at the end.
 *
 * Everything here prints what targets sent (bodies, headers, error text): untrusted, so text output
 * goes through the engine's `printable` (no terminal escapes, one line each) and XML through `xmlText`.
 */
import { appendFileSync } from 'node:fs';
import { printable } from '@vigil/engine';
import { describeAssertion, formatActual, type TestOutcome } from './outcome.js';

export const REPORTERS = ['list', 'dot', 'ci', 'github', 'json', 'junit'] as const;
export type ReporterName = (typeof REPORTERS)[number];

export interface Summary {
  /** Runs, skipped ones included. */
  total: number;
  /** Runs that passed, degraded ones included. */
  passed: number;
  failed: number;
  /** Passed runs that were slower than degradedResponseTime (also counted in `passed`). */
  degraded: number;
  skipped: number;
  durationMs: number;
}

export interface Reporter {
  /** A run finished (`done` of `total`). */
  finished(outcome: TestOutcome, done: number, total: number): void;
  end(outcomes: readonly TestOutcome[], summary: Summary): void;
}

export interface ReporterOptions {
  write: (text: string) => void;
  color: boolean;
  /** Redraws a progress line (TTY only). */
  progress: boolean;
  env: NodeJS.ProcessEnv;
}

export function summarize(outcomes: readonly TestOutcome[], durationMs: number): Summary {
  const count = (status: TestOutcome['status']) => outcomes.filter((outcome) => outcome.status === status).length;
  const degraded = count('degraded');
  return { total: outcomes.length, passed: count('passed') + degraded, failed: count('failed'), degraded, skipped: count('skipped'), durationMs };
}

export function createReporter(name: ReporterName, options: ReporterOptions): Reporter {
  switch (name) {
    case 'list':
    case 'ci':
      return new TextReporter(options, 'line');
    case 'dot':
      return new TextReporter(options, 'dot');
    case 'github':
      return new GithubReporter(options);
    case 'json':
      return { finished: () => {}, end: (outcomes, summary) => options.write(`${JSON.stringify(jsonDocument(outcomes, summary), null, 2)}\n`) };
    case 'junit':
      return { finished: () => {}, end: (outcomes, summary) => options.write(junitDocument(outcomes, summary)) };
  }
}

const MARKS: Record<TestOutcome['status'], string> = { passed: '✔', degraded: '◐', failed: '✖', skipped: '○' };
const DOTS: Record<TestOutcome['status'], string> = { passed: '.', degraded: 'D', failed: 'F', skipped: 'S' };
const COLORS: Record<TestOutcome['status'], number> = { passed: 32, degraded: 33, failed: 31, skipped: 90 };

class TextReporter implements Reporter {
  #dots = 0;
  #progressShown = false;

  constructor(
    protected readonly options: ReporterOptions,
    private readonly style: 'line' | 'dot',
  ) {}

  protected paint(status: TestOutcome['status'], text: string): string {
    return this.options.color ? `\u001b[${COLORS[status]}m${text}\u001b[0m` : text;
  }

  finished(outcome: TestOutcome, done: number, total: number): void {
    this.#clearProgress();
    if (this.style === 'dot') {
      this.options.write(this.paint(outcome.status, DOTS[outcome.status]));
      if (++this.#dots % 80 === 0) this.options.write('\n');
    } else {
      this.options.write(`${this.paint(outcome.status, MARKS[outcome.status])} ${headline(outcome)}\n`);
    }
    if (this.options.progress && done < total) {
      this.options.write(`${this.style === 'dot' ? '' : `  … ${done}/${total} done`}`);
      this.#progressShown = this.style !== 'dot';
    }
  }

  #clearProgress(): void {
    if (this.#progressShown) this.options.write('\r\u001b[2K');
    this.#progressShown = false;
  }

  end(outcomes: readonly TestOutcome[], summary: Summary): void {
    this.#clearProgress();
    if (this.style === 'dot' && this.#dots % 80 !== 0) this.options.write('\n');
    const failed = outcomes.filter((outcome) => outcome.status === 'failed');
    if (failed.length > 0) {
      this.options.write(`\nFailures:\n`);
      for (const outcome of failed) this.options.write(`\n${this.paint('failed', MARKS.failed)} ${headline(outcome)}\n${details(outcome)}`);
    }
    this.options.write(`\n${summaryText(summary)}\n`);
  }
}

/** Text output plus `::error` annotations and a job summary table in `$GITHUB_STEP_SUMMARY`. */
class GithubReporter extends TextReporter {
  constructor(options: ReporterOptions) {
    super(options, 'line');
  }

  override end(outcomes: readonly TestOutcome[], summary: Summary): void {
    super.end(outcomes, summary);
    for (const outcome of outcomes.filter((item) => item.status === 'failed')) {
      const [file, line, column] = outcome.source.split(':');
      this.options.write(
        `::error file=${githubProperty(file ?? '')},line=${line},col=${column},title=${githubProperty(`${outcome.name} (${outcome.runLocation})`)}::${githubData(outcome.error ?? 'failed')}\n`,
      );
    }
    const summaryFile = this.options.env.GITHUB_STEP_SUMMARY;
    if (summaryFile) appendFileSync(summaryFile, markdownSummary(outcomes, summary));
  }
}

function headline(outcome: TestOutcome): string {
  const time = outcome.responseTime === null ? '' : `  ${Math.round(outcome.responseTime)} ms`;
  const retries = outcome.attempts > 1 ? `  (${outcome.attempts} attempts)` : '';
  const skipped = outcome.status === 'skipped' ? `  skipped: ${outcome.error}` : '';
  return printable(`${outcome.address}  ${outcome.name}  [${outcome.runLocation}]${time}${retries}${skipped}`);
}

const BODY_EXCERPT = 300;

/** What a reader needs to see why a run failed, indented under its headline. */
export function details(outcome: TestOutcome): string {
  const lines: string[] = [`at ${outcome.source}`, `error: ${outcome.error ?? 'failed'}`];
  if (outcome.assertions.length > 0) {
    lines.push('assertions:');
    for (const assertion of outcome.assertions) {
      lines.push(`  ${assertion.passed ? '✔' : '✖'} ${describeAssertion(assertion)}  (actual: ${formatActual(assertion.actual)})`);
    }
  }
  const api = outcome.result?.apiCheckResult;
  if (api) {
    const request = api.request as { method?: string; url?: string } | undefined;
    if (request?.url) lines.push(`request: ${request.method ?? 'GET'} ${request.url}`);
    const response = api.response;
    if (response && response.status) {
      lines.push(`response: ${response.status} ${response.statusText ?? ''}`.trimEnd());
      const body = typeof response.body === 'string' ? response.body : response.body == null ? '' : JSON.stringify(response.body);
      if (body) {
        const excerpt = body.length > BODY_EXCERPT ? `${body.slice(0, BODY_EXCERPT)}… (${body.length} characters)` : body;
        for (const bodyLine of excerpt.split(/\r?\n/)) lines.push(`  ${bodyLine}`);
      }
      const phases = response.timingPhases;
      if (phases) {
        lines.push(`timings: dns ${ms(phases.dns)} · tcp ${ms(phases.tcp)} · first byte ${ms(phases.firstByte)} · download ${ms(phases.download)} · total ${ms(phases.total)}`);
      }
    }
    for (const [phase, entries] of Object.entries(api.jobLog ?? {})) {
      for (const entry of (entries as Array<{ level: string; msg: string }>).slice(0, 20)) lines.push(`${phase} log: [${entry.level}] ${entry.msg}`);
    }
  }
  const dns = outcome.result?.dnsCheckResult as { request?: Record<string, unknown>; response?: { responseCode?: string | null; textAnswer?: string } } | null | undefined;
  if (dns?.request) {
    const { recordType, query, protocol, server } = dns.request;
    lines.push(`query: ${String(recordType)} ${String(query)} at ${String(server ?? '?')} over ${String(protocol)}`);
    if (dns.response?.responseCode) lines.push(`response: ${dns.response.responseCode}`);
    const answer = (dns.response?.textAnswer ?? '').split('\n').filter((line) => line !== '' && !line.startsWith(';'));
    // dig separates fields with tabs, which the terminal escaping would show as \t.
    for (const record of answer.slice(0, 10)) lines.push(`  ${record.replace(/\t+/g, '  ')}`);
  }
  if (outcome.attempts > 1) lines.push(`attempts: ${outcome.attempts}`);
  return lines.map((line) => `    ${printable(line)}\n`).join('');
}

function ms(value: number | undefined): string {
  return value === undefined ? '?' : `${Math.round(value)} ms`;
}

export function summaryText(summary: Summary): string {
  const parts = [`${summary.passed} passed`, `${summary.failed} failed`];
  if (summary.degraded > 0) parts.push(`${summary.degraded} degraded`);
  if (summary.skipped > 0) parts.push(`${summary.skipped} skipped`);
  const runs = `${summary.total} run${summary.total === 1 ? '' : 's'}`;
  return `${runs}: ${parts.join(', ')} (${(summary.durationMs / 1000).toFixed(1)} s)`;
}

/** The `--reporter json` document, formatVersion 1 (docs/cli.md). */
export function jsonDocument(outcomes: readonly TestOutcome[], summary: Summary) {
  const { durationMs, ...counts } = summary;
  return {
    formatVersion: 1 as const,
    summary: { ...counts, durationMs },
    results: outcomes.map((outcome) => ({
      address: outcome.address,
      logicalId: outcome.logicalId,
      name: outcome.name,
      checkType: outcome.checkType,
      source: outcome.source,
      runLocation: outcome.runLocation,
      status: outcome.status,
      passed: outcome.passed,
      degraded: outcome.degraded,
      overMaxResponseTime: outcome.overMaxResponseTime,
      responseTime: outcome.responseTime,
      attempts: outcome.attempts,
      error: outcome.error,
      assertions: outcome.assertions,
      result: outcome.result,
    })),
  };
}

/** JUnit XML: one testsuite per monitor file, one testcase per run. */
export function junitDocument(outcomes: readonly TestOutcome[], summary: Summary): string {
  const byFile = new Map<string, TestOutcome[]>();
  for (const outcome of outcomes) {
    const file = outcome.source.split(':')[0] ?? '';
    byFile.set(file, [...(byFile.get(file) ?? []), outcome]);
  }
  const seconds = (value: number | null) => ((value ?? 0) / 1000).toFixed(3);
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="vigil test" tests="${summary.total}" failures="${summary.failed}" skipped="${summary.skipped}" time="${seconds(summary.durationMs)}">`,
  ];
  for (const [file, items] of byFile) {
    const failures = items.filter((item) => item.status === 'failed').length;
    const skipped = items.filter((item) => item.status === 'skipped').length;
    lines.push(`  <testsuite name="${xmlText(file)}" tests="${items.length}" failures="${failures}" skipped="${skipped}">`);
    for (const item of items) {
      const open = `    <testcase classname="${xmlText(file)}" name="${xmlText(`${item.name} [${item.runLocation}]`)}" time="${seconds(item.responseTime)}"`;
      if (item.status === 'failed') {
        lines.push(`${open}>`, `      <failure message="${xmlText(item.error ?? 'failed')}">${xmlText(details(item))}</failure>`, '    </testcase>');
      } else if (item.status === 'skipped') {
        lines.push(`${open}>`, `      <skipped message="${xmlText(item.error ?? '')}"/>`, '    </testcase>');
      } else {
        lines.push(`${open}/>`);
      }
    }
    lines.push('  </testsuite>');
  }
  lines.push('</testsuites>', '');
  return lines.join('\n');
}

/** Escaped for XML text and attributes; characters XML 1.0 forbids are dropped. */
export function xmlText(text: string): string {
  return text
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

/** GitHub workflow command escaping (the runner's own rules for data and property values). */
function githubData(text: string): string {
  return text.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

function githubProperty(text: string): string {
  return githubData(text).replace(/:/g, '%3A').replace(/,/g, '%2C');
}

function markdownSummary(outcomes: readonly TestOutcome[], summary: Summary): string {
  const cell = (text: string) => printable(text).replace(/\|/g, '\\|').replace(/\n/g, ' ');
  const rows = outcomes.map(
    (outcome) =>
      `| ${MARKS[outcome.status]} ${outcome.status} | \`${cell(outcome.address)}\` | ${cell(outcome.name)} | ${cell(outcome.runLocation)} | ${outcome.responseTime === null ? '' : `${Math.round(outcome.responseTime)} ms`} | ${cell(outcome.status === 'passed' || outcome.status === 'degraded' ? '' : (outcome.error ?? ''))} |`,
  );
  return [`### vigil test: ${summaryText(summary)}`, '', '| result | address | name | location | time | error |', '| --- | --- | --- | --- | --- | --- |', ...rows, '', ''].join('\n');
}
