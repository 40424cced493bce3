/**
 * `createRunner`: one run of one check = tries until one passes or the retry plan is spent. Every
 * failed try before the last becomes an ATTEMPT result, the last one the FINAL result.
 * The runner never throws for anything a target or user code does: an executor that throws is a
 * runner fault and becomes a result with `hasErrors: true`.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { ASSERTION_POOL_SIZE, ASSERTION_TIMEOUT_MS, AssertionPool } from './assertions/pool.js';
import { WarmPlaywrightWorkers } from './multi-step/warm-workers.js';
import { BUILT_IN_EXECUTORS, executorRegistry } from './executors/registry.js';
import { parseNetworkPolicy } from './network-policy.js';
import { retryPlan, retryable } from './retries.js';
import { createScriptPool } from './scripts/index.js';
import type {
  Executor,
  ExecutorContext,
  ResolvedRunnerOptions,
  RunContext,
  RunOutcome,
  RunResult,
  Runner,
  RunnerOptions,
  ScriptHooks,
  TryResult,
  WireCheck,
} from './types.js';
import { redactDeep, secretRedactor } from './variables.js';

export const DEFAULT_MAX_BODY_BYTES = 64 * 1024;

/** Sleeps `ms`, ending early (without throwing) when `signal` aborts. */
export async function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  if (ms <= 0 || signal.aborted) return;
  await delay(ms, undefined, { signal }).catch(() => undefined);
}

export interface InternalRunnerOptions extends RunnerOptions {
  /** The setup/teardown call site; tests pass their own. */
  scriptHooks?: (options: ResolvedRunnerOptions) => ScriptHooks;
}

export function createRunner(options: InternalRunnerOptions = {}): Runner {
  const resolved: ResolvedRunnerOptions = {
    scriptPoolSize: options.scriptPoolSize ?? 2,
    scriptTimeoutMs: options.scriptTimeoutMs ?? 10_000,
    multiStepTimeoutMs: options.multiStepTimeoutMs ?? 120_000,
    maxBodyBytes: options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
    assertionTimeoutMs: options.assertionTimeoutMs ?? ASSERTION_TIMEOUT_MS,
    assertionPoolSize: options.assertionPoolSize ?? ASSERTION_POOL_SIZE,
    sleep: options.sleep ?? abortableSleep,
    // Throws for a malformed CIDR: a runner that cannot enforce its policy must not start.
    networkPolicy: parseNetworkPolicy(options.denyNetworks ?? []),
    playwrightWarmWorkers: options.playwrightWarmWorkers ?? 0,
    warmPlaywright: (options.playwrightWarmWorkers ?? 0) > 0 ? new WarmPlaywrightWorkers(options.playwrightWarmWorkers ?? 0) : null,
  };
  const registry = executorRegistry(options.executors ?? BUILT_IN_EXECUTORS);
  const makeScriptHooks = options.scriptHooks ?? ((resolved: ResolvedRunnerOptions) => createScriptPool({ size: resolved.scriptPoolSize, timeoutMs: resolved.scriptTimeoutMs, denyNetworks: resolved.networkPolicy.rules }));
  let scripts: ScriptHooks | undefined;
  // Its workers start with the first assertion that needs one.
  const assertions = new AssertionPool({ size: resolved.assertionPoolSize, timeoutMs: resolved.assertionTimeoutMs });
  let closed = false;

  return {
    async run(check: WireCheck, context: RunContext): Promise<RunOutcome> {
      const signal = context.signal ?? new AbortController().signal;
      const redact = secretRedactor(context.variables);
      const hasSecrets = context.variables.some((variable) => variable.secret === true && variable.value !== '');
      const executorContext: ExecutorContext = {
        location: context.location,
        variables: context.variables,
        signal,
        projectRoot: context.projectRoot,
        tenant: context.tenant,
        redact,
        options: resolved,
        scripts: () => {
          if (closed) throw new Error('the runner was closed before this run used its script pool');
          scripts ??= makeScriptHooks(resolved);
          return scripts;
        },
        assertions,
      };
      const executor = registry.get(check.checkType);
      const plan = retryPlan(check as Parameters<typeof retryPlan>[0], context.retries);
      const envelope = {
        name: typeof check.name === 'string' ? check.name : '',
        checkId: typeof check.id === 'string' ? check.id : '',
        runLocation: context.location,
        sequenceId: randomUUID(),
      };
      const runStarted = performance.now();
      // Time counted against maxDurationSeconds: tries as measured, waits as planned (an injected
      // sleep may return at once, and the budget must not depend on that).
      let sleptFor = 0;
      let waitedPlanned = 0;
      const attempts: RunResult[] = [];
      for (let retry = 0; ; retry += 1) {
        const tried = await oneTry(executor, check, executorContext);
        const result = (resultType: 'ATTEMPT' | 'FINAL'): RunResult => {
          const built = toResult(tried, envelope, resultType, attempts.length);
          return hasSecrets ? redactDeep(built, redact) : built;
        };
        const failure = tried.failure;
        if (failure === null || retry >= plan.maxRetries || signal.aborted || !retryable(plan, failure.kind)) {
          return { attempts, final: result('FINAL') };
        }
        const backoff = plan.backoffMs(retry + 1);
        const spent = performance.now() - runStarted - sleptFor + waitedPlanned;
        if (spent + backoff > plan.maxDurationMs) return { attempts, final: result('FINAL') };
        attempts.push(result('ATTEMPT'));
        const sleepStarted = performance.now();
        await resolved.sleep(backoff, signal);
        sleptFor += performance.now() - sleepStarted;
        waitedPlanned += backoff;
        if (signal.aborted) {
          // The last try stands as the run's outcome: a cancelled run ends with what it saw.
          const last = attempts.pop()!;
          return { attempts, final: { ...last, resultType: 'FINAL', attempts: attempts.length } };
        }
      }
    },
    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      resolved.warmPlaywright?.close();
      await Promise.all([scripts?.close(), assertions.close()]);
    },
  };
}

async function oneTry(executor: Executor | undefined, check: WireCheck, context: ExecutorContext): Promise<TryResult> {
  const started = new Date();
  if (executor === undefined) {
    return runnerFault(started, `vigil cannot run ${String(check.checkType)} checks (no executor for this checkType)`);
  }
  try {
    return await executor.run(check, context);
  } catch (error) {
    return runnerFault(started, `this is a bug in vigil: the ${executor.checkType} executor threw: ${describe(error)}`);
  }
}

function runnerFault(started: Date, message: string): TryResult {
  return {
    hasFailures: true,
    hasErrors: true,
    isDegraded: null,
    overMaxResponseTime: null,
    responseTime: 0,
    startedAt: started.toISOString(),
    stoppedAt: new Date().toISOString(),
    apiCheckResult: null,
    multiStepCheckResult: null,
    failure: { kind: 'RUNNER', message },
  };
}

function describe(error: unknown): string {
  return error instanceof Error ? (error.stack ?? error.message) : String(error);
}

function toResult(
  tried: TryResult,
  envelope: { name: string; checkId: string; runLocation: string; sequenceId: string },
  resultType: 'ATTEMPT' | 'FINAL',
  attempts: number,
): RunResult {
  return {
    id: randomUUID(),
    name: envelope.name,
    checkId: envelope.checkId,
    hasFailures: tried.hasFailures,
    hasErrors: tried.hasErrors,
    isDegraded: tried.isDegraded,
    overMaxResponseTime: tried.overMaxResponseTime,
    runLocation: envelope.runLocation,
    startedAt: tried.startedAt,
    stoppedAt: tried.stoppedAt,
    created_at: tried.stoppedAt,
    responseTime: tried.responseTime,
    apiCheckResult: tried.apiCheckResult,
    browserCheckResult: tried.browserCheckResult ?? null,
    multiStepCheckResult: tried.multiStepCheckResult,
    ...(tried.dnsCheckResult ? { dnsCheckResult: tried.dnsCheckResult } : {}),
    ...(tried.sslCheckResult ? { sslCheckResult: tried.sslCheckResult } : {}),
    ...(tried.icmpCheckResult ? { icmpCheckResult: tried.icmpCheckResult } : {}),
    ...(tried.tracerouteCheckResult ? { tracerouteCheckResult: tried.tracerouteCheckResult } : {}),
    ...(tried.grpcCheckResult ? { grpcCheckResult: tried.grpcCheckResult } : {}),
    checkRunId: 0,
    attempts,
    resultType,
    sequenceId: envelope.sequenceId,
    error: tried.failure?.message ?? null,
    ...(tried.certificateExpiresAt ? { certificateExpiresAt: tried.certificateExpiresAt } : {}),
  };
}
