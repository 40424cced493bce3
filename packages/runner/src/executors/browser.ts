/**
 * BROWSER checks: the bundled Playwright spec in `script` runs in Chromium under the real Playwright
 * test runner, through the same machinery as multi-step checks (../multi-step/run-spec.ts: child
 * processes, deadline, network policy, our reporter) with the check's `playwrightConfig`. The
 * Chromium is looked for before anything starts (VIGIL_CHROMIUM_PATH, Playwright's own, the
 * system's), so a machine without one fails the run saying where it looked.
 *
 * `browserCheckResult` has the real service's CheckResultBrowser fields (type, errors, startTime,
 * endTime, runtimeVersion, jobLog, jobAssets, pages, traceSummary) plus the tests, steps and
 * requests multi-step results carry (docs/testing.md).
 */
import { multiStepVerdict } from '../multi-step/result.js';
import { explainFileRefusal } from '../multi-step/file-guard.js';
import { explainRefusal } from '../multi-step/policy-proxy.js';
import { findChromium, runSpec, type SpecPlaywrightConfig } from '../multi-step/run-spec.js';
import type { Executor, ExecutorContext, FailureKind, TryResult, WireCheck } from '../types.js';
import { variableLookup } from '../variables.js';

export const browserExecutor: Executor = {
  checkType: 'BROWSER',
  async run(check: WireCheck, context: ExecutorContext): Promise<TryResult> {
    const started = new Date();
    const code = typeof check.script === 'string' ? check.script : '';
    const timeoutMs = context.options.multiStepTimeoutMs;
    const base = { isDegraded: false, overMaxResponseTime: false, startedAt: started.toISOString(), apiCheckResult: null, multiStepCheckResult: null };
    const failed = (kind: 'SCRIPT' | 'RUNNER', message: string, hasErrors: boolean): TryResult => ({
      ...base,
      hasFailures: true,
      hasErrors,
      responseTime: 0,
      stoppedAt: new Date().toISOString(),
      browserCheckResult: null,
      failure: { kind, message },
    });
    if (code.trim() === '') return failed('SCRIPT', 'the browser check has no script to run', false);
    const chromium = findChromium();
    // The machine lacks what the check needs: a runner fault, not the target's.
    if (!chromium.found) return failed('RUNNER', chromium.message, true);
    const env = Object.fromEntries(variableLookup(context.variables));
    const run = await runSpec({
      code,
      env,
      timeoutMs,
      signal: context.signal,
      denyNetworks: context.options.networkPolicy.rules,
      tenant: context.tenant,
      warm: context.options.warmPlaywright,
      browser: { executablePath: chromium.executablePath, playwrightConfig: playwrightConfigOf(check) },
    });
    const verdict = multiStepVerdict(run, timeoutMs, started.getTime());
    let failure: { kind: FailureKind; message: string } | null = explainFileRefusal(explainRefusal(verdict.failure, run.output, verdict.result.jobLog), run.output, verdict.result.jobLog);
    if (check.shouldFail === true && !verdict.hasErrors && (failure === null || failure.kind === 'ASSERTION')) {
      failure = failure === null ? { kind: 'ASSERTION', message: 'every test passed, but the check has shouldFail: true' } : null;
    }
    const pages = verdict.result.requests
      .filter((request) => request.method === null && request.url !== null && /^Navigate( to |$)/.test(request.title))
      .map((request) => ({ url: request.url, durationMs: request.durationMs, error: request.error }));
    return {
      ...base,
      hasFailures: failure !== null,
      hasErrors: verdict.hasErrors,
      responseTime: Math.round(run.durationMs),
      stoppedAt: new Date().toISOString(),
      browserCheckResult: { type: 'PLAYWRIGHT', ...verdict.result, pages, traceSummary: {} },
      failure: failure ? { kind: failure.kind, message: context.redact(failure.message) } : null,
    };
  },
};

function playwrightConfigOf(check: WireCheck): SpecPlaywrightConfig | null {
  const value = check.playwrightConfig;
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as SpecPlaywrightConfig) : null;
}
