/**
 * Setup and teardown scripts of API checks (Checkly's contract): a setup script may change `request`
 * (url, method, headers, queryParameters, body) before it is sent; a teardown script sees `request`
 * and `response` and may change the response before assertions run. Both see only the check's
 * variables in `process.env`, may use top-level `await`, and log through `console` into the job log.
 * Each runs in a fresh, sandboxed process of its own (./pool.ts, ./sandbox.ts), with a deadline.
 */
import type { JobLogLine, ScriptHooks, ScriptRequest, ScriptResponse, ScriptRunOutcome } from '../types.js';
import { denyNetworkArgs } from '../network-policy-guard.js';
import { parseNetworkPolicy } from '../network-policy.js';
import { WorkerPool, memoryLimit, type WorkerOutcome } from './pool.js';
import { DEFAULT_SANDBOX_LIMITS, type SandboxLimits } from './sandbox.js';
import type { WorkerError, WorkerResponse } from './protocol.js';

export const DEFAULT_SCRIPT_TIMEOUT_MS = 10_000;

export interface ScriptPoolOptions {
  /** Worker processes kept warm. */
  size: number;
  /** Deadline of one script, unless a run sets its own. */
  timeoutMs: number;
  /** CIDRs no script may connect to (enforced inside the workers by ../network-policy-guard.ts). */
  denyNetworks?: readonly string[];
  /** Per-process limits (CPU, memory, open files, processes); ./sandbox.ts has the defaults. */
  limits?: SandboxLimits;
}

interface ScriptInput {
  /** The script: bundled code (with its inline source map) or code written inline. */
  code: string;
  /** The check's variables, the script's whole `process.env`. */
  env: Record<string, string>;
  /** Ends the script at once (the worker is killed and replaced). */
  signal: AbortSignal;
  /** Where `require` looks for packages first; also roots nothing else (default: the runner's cwd). */
  projectRoot?: string;
  /** Whose script it is (the account); the pool shares its places fairly between tenants. */
  tenant?: string;
  /** Overrides the pool's deadline for this script. */
  timeoutMs?: number;
  /** Names code without a source map in error locations (default "setup script" / "teardown script"). */
  label?: string;
}

/** What a script run gives back besides ScriptHooks' fields. */
interface ScriptDetails {
  /** `process.env` as the script left it: a setup script may set variables for `{{KEY}}` in the request. */
  env: Record<string, string>;
  /** The error's stack, mapped to the user's files, when the script failed. */
  stack: string | null;
  /** `scripts/setup.ts:4:7` when the script threw and the place is known. */
  location: string | null;
  /** Why it failed: it threw, ran past its deadline, passed a sandbox limit, ended its process, was aborted, or the runner failed. */
  failure: 'threw' | 'timeout' | 'limit' | 'exited' | 'aborted' | 'runner' | null;
  /** Wall time from handing the script over to its answer. */
  durationMs: number;
}

export type SetupOutcome = ScriptRunOutcome<ScriptRequest> & ScriptDetails;
/** `value` stays null (ScriptHooks' shape); the response as the script left it is `response`. */
export type TearDownOutcome = ScriptRunOutcome<null> & ScriptDetails & { response: ScriptResponse };

export interface ScriptPool extends ScriptHooks {
  runSetup(input: ScriptInput & { request: ScriptRequest }): Promise<SetupOutcome>;
  runTearDown(input: ScriptInput & { request: ScriptRequest; response: ScriptResponse }): Promise<TearDownOutcome>;
  /** Starts the worker processes now instead of on the first script. */
  warm(): Promise<void>;
  close(): Promise<void>;
}

function toWorkerResponse(response: ScriptResponse): WorkerResponse {
  return {
    statusCode: response.status,
    statusMessage: response.statusText,
    headers: response.headers,
    body: response.body,
    timings: { ...response.timings },
    timingPhases: { ...response.timingPhases },
  };
}

function fromWorkerResponse(original: ScriptResponse, response: WorkerResponse | null): ScriptResponse {
  if (!response) return original;
  return {
    ...original,
    status: Number.isFinite(response.statusCode) ? response.statusCode : original.status,
    statusText: response.statusMessage,
    headers: response.headers,
    body: response.body,
  };
}

/** The error as one line; callers prefix it ("setup script failed: …"). */
function errorLine(error: WorkerError): string {
  return error.location ? `${error.message} (at ${error.location})` : error.message;
}

function strayOutputLines(output: string, level: JobLogLine['level']): JobLogLine[] {
  const time = Date.now();
  return output
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((msg) => ({ time, level, msg }));
}

interface Settled {
  request: ScriptRequest;
  response: WorkerResponse | null;
  env: Record<string, string>;
  logs: JobLogLine[];
  error: string | null;
  details: Omit<ScriptDetails, 'env' | 'durationMs'>;
  durationMs: number;
}

/** One worker outcome as the script's result; anything but a clean finish is an error line. */
function settle(outcome: WorkerOutcome, input: ScriptInput & { request: ScriptRequest }, timeoutMs: number, limits: SandboxLimits): Settled {
  const base = { request: input.request, response: null, env: input.env, durationMs: outcome.durationMs };
  const logs = strayOutputLines(outcome.output, 'INFO');
  switch (outcome.kind) {
    case 'done': {
      const { message } = outcome;
      const error = message.error;
      // The sandbox's data limit shows up inside the script as a failed allocation it may even catch.
      if (error && /Array buffer allocation failed/.test(error.message)) {
        return { ...base, logs: [...message.logs, ...logs], error: `it passed ${memoryLimit(limits)} and was stopped (${errorLine(error)})`, details: { stack: error.stack, location: error.location, failure: 'limit' } };
      }
      return {
        request: message.request,
        response: message.response,
        env: message.env,
        logs: [...message.logs, ...logs],
        error: error ? errorLine(error) : null,
        details: { stack: error?.stack ?? null, location: error?.location ?? null, failure: error ? 'threw' : null },
        durationMs: outcome.durationMs,
      };
    }
    case 'timeout':
      return { ...base, logs, error: `it did not finish within ${timeoutMs} ms and was stopped`, details: { stack: null, location: null, failure: 'timeout' } };
    case 'aborted':
      return { ...base, logs, error: 'it was stopped: the run was cancelled', details: { stack: null, location: null, failure: 'aborted' } };
    case 'exited': {
      const how = outcome.signal ? `killed by ${outcome.signal}` : `exit code ${outcome.code}`;
      return { ...base, logs, error: `it ended its own process (${how}, e.g. through process.exit)`, details: { stack: null, location: null, failure: 'exited' } };
    }
    case 'limit':
      return { ...base, logs, error: `it passed ${outcome.limit} and was stopped`, details: { stack: null, location: null, failure: 'limit' } };
    case 'fault':
      return { ...base, logs, error: `it could not run: ${outcome.message}`, details: { stack: null, location: null, failure: 'runner' } };
  }
}

export function createScriptPool(options: ScriptPoolOptions): ScriptPool {
  const workers = new WorkerPool({ size: options.size, args: denyNetworkArgs(parseNetworkPolicy(options.denyNetworks ?? [])), ...(options.limits ? { limits: options.limits } : {}) });
  const defaultTimeout = options.timeoutMs > 0 ? options.timeoutMs : DEFAULT_SCRIPT_TIMEOUT_MS;

  async function execute(kind: 'setup' | 'teardown', input: ScriptInput & { request: ScriptRequest }, response: ScriptResponse | null): Promise<Settled> {
    const timeoutMs = input.timeoutMs ?? defaultTimeout;
    const outcome = await workers.run({
      message: {
        kind,
        code: input.code,
        label: input.label ?? `${kind} script`,
        env: input.env,
        request: input.request,
        response: response ? toWorkerResponse(response) : null,
        projectRoot: input.projectRoot ?? null,
      },
      tenant: input.tenant ?? '',
      timeoutMs,
      signal: input.signal,
    });
    return settle(outcome, input, timeoutMs, options.limits ?? DEFAULT_SANDBOX_LIMITS);
  }

  return {
    async runSetup(input) {
      const settled = await execute('setup', input, null);
      return { value: settled.request, logs: settled.logs, error: settled.error, env: settled.env, durationMs: settled.durationMs, ...settled.details };
    },
    async runTearDown(input) {
      const settled = await execute('teardown', input, input.response);
      return {
        value: null,
        response: fromWorkerResponse(input.response, settled.response),
        logs: settled.logs,
        error: settled.error,
        env: settled.env,
        durationMs: settled.durationMs,
        ...settled.details,
      };
    },
    warm: () => workers.warm(),
    close: () => workers.close(),
  };
}
