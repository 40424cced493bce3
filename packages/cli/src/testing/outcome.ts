/**
 * One finished run of `vigil test` as every reporter sees it. The `--reporter json` document is
 * built from these, so its fields are a contract (docs/cli.md): only ever added to.
 */
import type { AssertionOutcome, RunOutcome, RunResult } from '@vigil/runner';
import type { PlannedRun } from './runs.js';

export type TestStatus = 'passed' | 'degraded' | 'failed' | 'skipped';

export interface AssertionReport {
  source: string;
  property: string;
  comparison: string;
  target: string;
  actual: unknown;
  passed: boolean;
}

export interface TestOutcome {
  address: string;
  logicalId: string;
  name: string;
  checkType: string;
  /** `file:line:col` of the construct, from the project root. */
  source: string;
  runLocation: string;
  status: TestStatus;
  passed: boolean;
  degraded: boolean;
  overMaxResponseTime: boolean;
  responseTime: number | null;
  /** Tries made, the final one included (0 when skipped). */
  attempts: number;
  /** Why it failed, in one line; null when it passed. For skipped runs, why it was skipped. */
  error: string | null;
  assertions: AssertionReport[];
  /** The FINAL check result; null when skipped. */
  result: RunResult | null;
}

export function skippedOutcome(run: PlannedRun): TestOutcome {
  return {
    ...identity(run),
    status: 'skipped',
    passed: true,
    degraded: false,
    overMaxResponseTime: false,
    responseTime: null,
    attempts: 0,
    error: run.skipReason ?? 'skipped',
    assertions: [],
    result: null,
  };
}

export function outcomeOf(run: PlannedRun, outcome: RunOutcome): TestOutcome {
  const { final } = outcome;
  const passed = !final.hasFailures && !final.hasErrors;
  const degraded = passed && final.isDegraded === true;
  const assertions = assertionsOf(final);
  return {
    ...identity(run),
    status: passed ? (degraded ? 'degraded' : 'passed') : 'failed',
    passed,
    degraded,
    overMaxResponseTime: final.overMaxResponseTime === true,
    responseTime: final.responseTime ?? null,
    attempts: outcome.attempts.length + 1,
    error: passed ? null : failureMessage(final, assertions),
    assertions,
    result: final,
  };
}

function identity(run: PlannedRun) {
  const { spec } = run;
  return {
    address: spec.address,
    logicalId: spec.logicalId,
    name: String(run.check.name),
    checkType: run.check.checkType,
    source: `${spec.source.file}:${spec.source.line}:${spec.source.column}`,
    runLocation: run.location,
  };
}

function assertionsOf(result: RunResult): AssertionReport[] {
  // A DNS monitor's assertions live in its own result part; the report lists them alike.
  const dnsAssertions = (result.dnsCheckResult as { assertions?: AssertionOutcome[] } | null | undefined)?.assertions;
  return (result.apiCheckResult?.assertions ?? dnsAssertions ?? []).map((assertion) => ({
    source: String(assertion.source),
    property: assertion.property ?? '',
    comparison: assertion.comparison ?? '',
    target: String(assertion.target ?? ''),
    actual: assertion.actual,
    passed: assertion.passed,
  }));
}

/** Why a failed run failed, in one line (`vigil test` and `vigil status` word it alike). */
export function failureReason(result: RunResult): string {
  return failureMessage(result, assertionsOf(result));
}

/** The first reason the run failed, most specific first. */
function failureMessage(result: RunResult, assertions: readonly AssertionReport[]): string {
  if (result.error) return result.error;
  const api = result.apiCheckResult;
  if (api?.requestError) return String(api.requestError);
  if (result.overMaxResponseTime) return 'the response took longer than maxResponseTime';
  const failed = assertions.find((assertion) => !assertion.passed);
  if (failed) return `assertion failed: ${describeAssertion(failed)}, got ${formatActual(failed.actual)}`;
  const multiStep = result.multiStepCheckResult as { error?: unknown; errors?: unknown[] } | null;
  if (multiStep?.error) return String(typeof multiStep.error === 'object' ? (multiStep.error as { message?: string }).message : multiStep.error);
  if (Array.isArray(multiStep?.errors) && multiStep.errors.length > 0) {
    const first = multiStep.errors[0] as { message?: string } | string;
    return typeof first === 'string' ? first : String(first.message ?? JSON.stringify(first));
  }
  const status = api?.response?.status;
  if (typeof status === 'number' && status > 0) return `the response status ${status} counts as a failure`;
  if (result.hasErrors) return 'the runner failed (see the result for details)';
  return 'the check failed';
}

/** `JSON_BODY $.id IS_NULL` or `STATUS_CODE EQUALS 200`. */
export function describeAssertion(assertion: AssertionReport): string {
  return [assertion.source, assertion.property, assertion.comparison, assertion.target].filter((part) => part !== '').join(' ');
}

export function formatActual(actual: unknown): string {
  if (actual === undefined) return 'nothing';
  const text = typeof actual === 'string' ? JSON.stringify(actual) : JSON.stringify(actual) ?? String(actual);
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}
