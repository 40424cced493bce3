/**
 * The Playwright reporter of a multi-step run. Playwright loads this file itself (from sources it
 * transpiles the TypeScript; the CLI bundle ships it as dist/multi-step-reporter.mjs), in the
 * Playwright runner's process; it writes one JSON document (`ReportFile`) that ./run-spec.ts reads
 * after the run. Every step is kept, including Playwright's own API calls (`pw:api`): they carry the
 * requests a spec made through the `request` fixture. Imports types only.
 */
import { writeFileSync } from 'node:fs';
import type { FullResult, Reporter, TestCase, TestError, TestResult, TestStep } from '@playwright/test/reporter';
import type { ReportFile, ReportStep, ReportTest, ReportError } from './report.js';

const MAX_STEPS = 2000;
const MAX_PARAM_CHARS = 2000;

function errorOf(error: TestError): ReportError {
  return {
    message: error.message ?? error.value ?? 'unknown error',
    stack: error.stack ?? null,
    location: error.location ? { file: error.location.file, line: error.location.line, column: error.location.column } : null,
  };
}

/** The call arguments Playwright reports for an API call (its `url`, `locator`, …), plain values only. */
function paramsOf(step: TestStep): Record<string, string | number | boolean> | null {
  if (step.category !== 'pw:api' || !step.params) return null;
  const params: Record<string, string | number | boolean> = {};
  for (const [key, value] of Object.entries(step.params)) {
    if (typeof value === 'string') params[key] = value.length > MAX_PARAM_CHARS ? `${value.slice(0, MAX_PARAM_CHARS)}…` : value;
    else if (typeof value === 'number' || typeof value === 'boolean') params[key] = value;
  }
  return params;
}

export default class MultiStepReporter implements Reporter {
  readonly #outputFile: string;
  readonly #tests: ReportTest[] = [];
  readonly #errors: ReportError[] = [];
  readonly #started = Date.now();
  #stepCount = 0;

  constructor(options: { outputFile: string }) {
    this.#outputFile = options.outputFile;
  }

  /** True, so Playwright adds no terminal reporter of its own: nobody reads that output. */
  printsToStdio(): boolean {
    return true;
  }

  #step(step: TestStep, depth: number, out: ReportStep[]): void {
    if (this.#stepCount >= MAX_STEPS) return;
    this.#stepCount += 1;
    out.push({
      title: step.title,
      category: step.category,
      depth,
      startTime: step.startTime.getTime(),
      durationMs: step.duration,
      error: step.error ? errorOf(step.error) : null,
      location: step.location ? { file: step.location.file, line: step.location.line, column: step.location.column } : null,
      params: paramsOf(step),
    });
    for (const child of step.steps) this.#step(child, depth + 1, out);
  }

  onTestEnd(test: TestCase, result: TestResult): void {
    const steps: ReportStep[] = [];
    for (const step of result.steps) this.#step(step, 0, steps);
    const text = (chunks: Array<string | Buffer>) => chunks.map((chunk) => (typeof chunk === 'string' ? chunk : chunk.toString('utf8')));
    this.#tests.push({
      title: test.title,
      titlePath: test.titlePath().filter((part) => part !== ''),
      status: result.status,
      expectedStatus: test.expectedStatus,
      startTime: result.startTime.getTime(),
      durationMs: result.duration,
      errors: result.errors.map(errorOf),
      steps,
      stdout: text(result.stdout),
      stderr: text(result.stderr),
    });
  }

  onError(error: TestError): void {
    this.#errors.push(errorOf(error));
  }

  onEnd(result: FullResult): void {
    const report: ReportFile = { status: result.status, startTime: this.#started, durationMs: result.duration, tests: this.#tests, errors: this.#errors };
    writeFileSync(this.#outputFile, JSON.stringify(report));
  }
}
