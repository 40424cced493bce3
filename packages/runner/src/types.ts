/**
 * The public shapes of `@vigil/runner`: the CLI (`vigil test`), the service's scheduler and runner agents build against them.
 * A result is the check result of the API (`CheckResult` in `@vigil/schema`), with the parts the
 * runner always fills typed precisely, so a reporter needs no casts.
 */
import type { ApiCheckResult, AssertionResult, CheckResult } from '@vigil/schema';
import type { AssertionEvaluator } from './assertions/pool.js';
import type { WarmPlaywrightWorkers } from './multi-step/warm-workers.js';
import type { NetworkPolicy } from './network-policy.js';

export interface RunVariable {
  key: string;
  value: string;
  secret?: boolean;
}

export interface RunContext {
  /** Label stored as runLocation ("eu-west-1"). */
  location: string;
  /**
   * Variables for {{KEY}} and for process.env of scripts. Lookup order = array order, first match
   * wins. The caller orders them (vigil test: `-e`, `--env-file`, the check's, the group's, the config's).
   */
  variables: RunVariable[];
  /** Overrides the check's retry count (vigil test --retries 0..3); undefined = the check's retryStrategy/doubleCheck. */
  retries?: number;
  /** Cancels the run (vigil test --timeout, Ctrl-C): the run ends promptly with a failed FINAL result. */
  signal?: AbortSignal;
  /** Directory the project lives in; scripts' stack traces are mapped to files below it. */
  projectRoot?: string;
  /** Whose run it is (the account): user code of one tenant never shares a process or a queue turn with another's. */
  tenant?: string;
}

/** The wire payload of a check as apply sends it; each executor parses its own kind with `@vigil/schema`. */
export type WireCheck = { checkType: string; name?: string; id?: string } & Record<string, unknown>;

/** One console line of a script or one line the runner logs about a run. */
export interface JobLogLine {
  /** Milliseconds since the UNIX epoch. */
  time: number;
  level: 'DEBUG' | 'INFO' | 'WARN' | 'ERROR';
  msg: string;
}

/** `apiCheckResult.jobLog`: what the setup script, the request and the teardown script logged. */
export interface JobLog {
  setup: JobLogLine[];
  request: JobLogLine[];
  teardown: JobLogLine[];
}

/** Milliseconds each phase of the request took (as the API names them). */
export type TimingPhases = {
  /** Waiting for a socket (0 on a fresh connection, kept for the real service's shape). */
  wait: number;
  dns: number;
  /** TCP connect plus the TLS handshake for https. */
  tcp: number;
  /** Request sent → first response byte. */
  firstByte: number;
  download: number;
  total: number;
  /** TCP monitors: the handshake after the lookup, and connected → last byte (tcp-checks analytics). */
  connection?: number;
  data?: number;
};

/** Offsets from the start of the try, in milliseconds (undici/Node naming: the moments phases end). */
export type Timings = {
  socket: number;
  lookup: number;
  connect: number;
  response: number;
  end: number;
};

/** One assertion's outcome: the check's assertion plus what was compared and whether it held. */
export type AssertionOutcome = AssertionResult & {
  property: string;
  comparison: string;
  regex: string | null;
  actual: unknown;
  passed: boolean;
  error: string | null;
};

/** `apiCheckResult` as the runner always fills it. */
export type ApiRunResult = Omit<ApiCheckResult, 'assertions' | 'response' | 'jobLog'> & {
  assertions: AssertionOutcome[];
  response: ApiCheckResult['response'] & {
    bodyTruncated: boolean;
    timings: Timings;
    timingPhases: TimingPhases;
  };
  jobLog: JobLog;
};

/** A check result of the API as the runner produces it (assignable to `CheckResult`). */
export type RunResult = Omit<CheckResult, 'apiCheckResult' | 'multiStepCheckResult' | 'browserCheckResult'> & {
  apiCheckResult: ApiRunResult | null;
  multiStepCheckResult: Record<string, unknown> | null;
  browserCheckResult: Record<string, unknown> | null;
  /** One line saying why the try failed (null when it passed), for reporters; secrets redacted. */
  error: string | null;
  /** When the target's TLS certificate expires (ISO 8601): https API checks only, not part of the stored result. */
  certificateExpiresAt?: string;
};

export interface RunOutcome {
  /** Each failed try before the last, resultType 'ATTEMPT', in order. */
  attempts: RunResult[];
  /** The last try, resultType 'FINAL'; final.attempts = attempts.length. */
  final: RunResult;
}

export interface RunnerOptions {
  /** Warm script processes kept (default 2). */
  scriptPoolSize?: number;
  /** Per setup/teardown script (default 10_000 ms). */
  scriptTimeoutMs?: number;
  /** Per multi-step run (default 120_000 ms). */
  multiStepTimeoutMs?: number;
  /** Response body bytes kept in a result (default 64 KiB; larger is cut and marked truncated). */
  maxBodyBytes?: number;
  /** Per assertion with a regex or a JSONPath, after which it is stopped and fails (default 1000 ms). */
  assertionTimeoutMs?: number;
  /** Worker threads that evaluate regex and JSONPath assertions (default 2). */
  assertionPoolSize?: number;
  /** Waits between retries; injectable so tests need not wait real seconds. Must end early on abort. */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  /** Executors to use instead of the built-in registry (tests, later check types). */
  executors?: readonly Executor[];
  /**
   * CIDRs (IPv4 and IPv6) the runner never connects to: a run whose target resolves only to denied
   * addresses fails without a connection. Default none (`vigil server` passes its own defaults).
   */
  denyNetworks?: readonly string[];
  /**
   * Warm Playwright workers kept for multi-step and browser runs (each serves one tenant; see
   * multi-step/warm-workers.ts). Default 0: every run starts Playwright afresh.
   */
  playwrightWarmWorkers?: number;
}

export interface Runner {
  /**
   * `check` is the wire payload exactly as apply sends it (create body incl. checkType, after the
   * config → group → check cascade and the group's apiCheckDefaults), plus `localSetupScript` /
   * `localTearDownScript` / `script` holding bundled code. Never throws for anything a target or a
   * user script does; runner faults give hasErrors: true.
   */
  run(check: WireCheck, context: RunContext): Promise<RunOutcome>;
  /** Ends the warm script pool; idempotent. */
  close(): Promise<void>;
}

/** Why a try failed, for `retryStrategy.onlyOn` and for reporters. */
export type FailureKind = 'NETWORK_ERROR' | 'TIMEOUT' | 'ASSERTION' | 'STATUS' | 'SCRIPT' | 'ABORTED' | 'RUNNER';

/** One try of one check: the result without the envelope the runner adds (ids, resultType, attempts). */
export interface TryResult {
  hasFailures: boolean;
  hasErrors: boolean;
  isDegraded: boolean | null;
  overMaxResponseTime: boolean | null;
  responseTime: number;
  startedAt: string;
  stoppedAt: string;
  apiCheckResult: ApiRunResult | null;
  multiStepCheckResult: Record<string, unknown> | null;
  /** BROWSER checks' result; absent for other types. */
  browserCheckResult?: Record<string, unknown> | null;
  /** DNS monitors' result (the query, the response code and answers, the assertions); absent for other types. */
  dnsCheckResult?: Record<string, unknown> | null;
  /** SSL monitors' result (the certificate and connection facts, baseline findings, assertions); absent for other types. */
  sslCheckResult?: Record<string, unknown> | null;
  /** ICMP monitors' result (packets, loss, round-trip statistics, assertions, how it pinged); absent for other types. */
  icmpCheckResult?: Record<string, unknown> | null;
  /** Traceroute monitors' result (hops, whether the host was reached, the final hop's latency, assertions); absent for other types. */
  tracerouteCheckResult?: Record<string, unknown> | null;
  /** gRPC monitors' result (status, health status, response message, metadata, assertions); absent for other types. */
  grpcCheckResult?: Record<string, unknown> | null;
  /** Set when hasFailures or hasErrors. */
  failure: { kind: FailureKind; message: string } | null;
  /** When the target's TLS certificate expires (ISO 8601); only https API checks have one. */
  certificateExpiresAt?: string;
}

/** What the runner hands an executor for one try. */
export interface ExecutorContext {
  location: string;
  variables: readonly RunVariable[];
  /** Ends the try (session timeout, Ctrl-C); executors stop promptly and report ABORTED. */
  signal: AbortSignal;
  projectRoot: string | undefined;
  /** RunContext's tenant. */
  tenant: string | undefined;
  /** Replaces every secret value in a string with `*****`. */
  redact(text: string, options?: { cut?: boolean }): string;
  options: ResolvedRunnerOptions;
  /** The setup/teardown script pool, started on first use. */
  scripts(): ScriptHooks;
  /** Evaluates assertions; those with a regex or a JSONPath off this thread, with a deadline. */
  assertions: AssertionEvaluator;
}

export type ResolvedRunnerOptions = Required<Omit<RunnerOptions, 'executors' | 'denyNetworks'>> & {
  /** `denyNetworks`, parsed. */
  networkPolicy: NetworkPolicy;
  /** The runner's warm Playwright workers; null when `playwrightWarmWorkers` is 0. */
  warmPlaywright: WarmPlaywrightWorkers | null;
};

/** The request a setup script may change (Checkly's contract). */
export interface ScriptRequest {
  url: string;
  method: string;
  headers: Record<string, string>;
  queryParameters: Record<string, string>;
  body: string;
}

/** The response a teardown script sees. */
export interface ScriptResponse {
  status: number;
  statusText: string;
  headers: Record<string, string>;
  body: string;
  timings: Timings;
  timingPhases: TimingPhases;
}

export interface ScriptRunOutcome<T> {
  /** The value the script produced (the mutated request for setup). */
  value: T;
  logs: JobLogLine[];
  /** The script's error, located at its own file:line, when it threw or timed out. */
  error: string | null;
}

/** The call site of the setup/teardown scripts in the API executor (implemented by `./scripts`' pool). */
export interface ScriptHooks {
  /** `env` in the outcome: `process.env` as the script left it (new keys fill `{{KEY}}` placeholders). */
  runSetup(input: {
    code: string;
    request: ScriptRequest;
    env: Record<string, string>;
    signal: AbortSignal;
    projectRoot?: string;
    tenant?: string;
  }): Promise<ScriptRunOutcome<ScriptRequest> & { env?: Record<string, string> }>;
  /** `response` in the outcome: the response as the script left it; assertions run on that. */
  runTearDown(input: {
    code: string;
    request: ScriptRequest;
    response: ScriptResponse;
    env: Record<string, string>;
    signal: AbortSignal;
    projectRoot?: string;
    tenant?: string;
  }): Promise<ScriptRunOutcome<null> & { response?: ScriptResponse }>;
  close(): Promise<void>;
}

/** One executor per checkType (API, MULTI_STEP now; TCP, DNS, URL, BROWSER … later): one file each. */
export interface Executor {
  checkType: string;
  /** One try. Never throws for anything a target or user code does. */
  run(check: WireCheck, context: ExecutorContext): Promise<TryResult>;
}
