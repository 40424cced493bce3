/**
 * MULTI_STEP checks: the bundled Playwright spec in `script` runs under the real Playwright test
 * runner (../multi-step/run-spec.ts) with the check's variables as its environment; the tests, their
 * steps, requests, `expect` failures and console output become `multiStepCheckResult`
 * (../multi-step/result.ts). A check passes when every test passes; `shouldFail` inverts that.
 */
import { explainFileRefusal } from '../multi-step/file-guard.js';
import { explainRefusal } from '../multi-step/policy-proxy.js';
import { multiStepVerdict } from '../multi-step/result.js';
import { runSpec } from '../multi-step/run-spec.js';
import type { Executor, ExecutorContext, FailureKind, TryResult, WireCheck } from '../types.js';
import { variableLookup } from '../variables.js';

export const multiStepExecutor: Executor = {
  checkType: 'MULTI_STEP',
  async run(check: WireCheck, context: ExecutorContext): Promise<TryResult> {
    const started = new Date();
    const code = typeof check.script === 'string' ? check.script : '';
    const timeoutMs = context.options.multiStepTimeoutMs;
    const base = { isDegraded: false, overMaxResponseTime: false, startedAt: started.toISOString(), apiCheckResult: null };
    if (code.trim() === '') {
      return {
        ...base,
        hasFailures: true,
        hasErrors: false,
        responseTime: 0,
        stoppedAt: new Date().toISOString(),
        multiStepCheckResult: null,
        failure: { kind: 'SCRIPT', message: 'the multi-step check has no script to run' },
      };
    }
    const env = Object.fromEntries(variableLookup(context.variables));
    const run = await runSpec({ code, env, timeoutMs, signal: context.signal, denyNetworks: context.options.networkPolicy.rules, tenant: context.tenant, warm: context.options.warmPlaywright });
    const verdict = multiStepVerdict(run, timeoutMs, started.getTime());
    let failure: { kind: FailureKind; message: string } | null = explainFileRefusal(explainRefusal(verdict.failure, run.output, verdict.result.jobLog), run.output, verdict.result.jobLog);
    if (check.shouldFail === true && !verdict.hasErrors && (failure === null || failure.kind === 'ASSERTION')) {
      failure = failure === null ? { kind: 'ASSERTION', message: 'every test passed, but the check has shouldFail: true' } : null;
    }
    return {
      ...base,
      hasFailures: failure !== null,
      hasErrors: verdict.hasErrors,
      responseTime: Math.round(run.durationMs),
      stoppedAt: new Date().toISOString(),
      multiStepCheckResult: verdict.result,
      failure: failure ? { kind: failure.kind, message: context.redact(failure.message) } : null,
    };
  },
};
