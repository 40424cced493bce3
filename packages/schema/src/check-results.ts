/** Check results and the query of `GET /v1/check-results/{checkId}`. */
import { z } from 'zod';
import { queryBoolean, queryInt } from './helpers.js';
import { PageQuery } from './paging.js';
import { CheckType, Location, ResultType } from './values.js';

/** Query of `GET /v1/check-results/{checkId}`; the server fills the 6-hour window defaults. */
export const CheckResultsQuery = PageQuery.extend({
  /** UNIX seconds, inclusive; default now − 6 h. */
  from: queryInt().min(0).optional(),
  /** UNIX seconds, exclusive; default `from` + 6 h. */
  to: queryInt().min(0).optional(),
  location: Location.optional(),
  checkType: CheckType.optional(),
  hasFailures: queryBoolean().optional(),
  resultType: ResultType.default('FINAL'),
});
export type CheckResultsQuery = z.infer<typeof CheckResultsQuery>;

const Json = z.record(z.string(), z.unknown());

/**
 * One assertion as a result records it. The real service stores `{source, target}`; the runner adds
 * what it compared and the outcome, optional so results seeded or imported without them still parse.
 */
export const AssertionResult = z.object({
  source: z.string(),
  target: z.unknown(),
  property: z.string().optional(),
  comparison: z.string().optional(),
  regex: z.string().nullable().optional(),
  /** The value the comparison saw (after the JSONPath/header look-up and the regex capture). */
  actual: z.unknown().optional(),
  passed: z.boolean().optional(),
  /** Why the assertion could not be evaluated (e.g. the body is not JSON), when it could not. */
  error: z.string().nullable().optional(),
});
export type AssertionResult = z.infer<typeof AssertionResult>;

/** `apiCheckResult` of an API check's result; inner timing objects are open. */
export const ApiCheckResult = z.object({
  assertions: z.array(AssertionResult),
  request: z.object({
    method: z.string(),
    url: z.string(),
    data: z.string(),
    headers: Json,
    params: Json,
  }),
  response: z.object({
    status: z.number(),
    statusText: z.string(),
    body: z.string(),
    /** True when the runner kept only the first part of the body (its size cap). */
    bodyTruncated: z.boolean().optional(),
    headers: Json,
    timings: Json,
    timingPhases: Json,
  }),
  requestError: z.string().nullable(),
  jobLog: z.unknown(),
  jobAssets: z.unknown(),
});
export type ApiCheckResult = z.infer<typeof ApiCheckResult>;

/**
 * The result fields of monitors that each hold one type's details with an `assertions` list, so the
 * service bounds, groups errors of and shrinks them alike without naming each type.
 */
export const MONITOR_RESULT_FIELDS = ['dnsCheckResult', 'sslCheckResult', 'icmpCheckResult', 'tracerouteCheckResult', 'grpcCheckResult'] as const;

export const CheckResult = z.object({
  id: z.string(),
  name: z.string(),
  checkId: z.string(),
  hasFailures: z.boolean(),
  hasErrors: z.boolean(),
  isDegraded: z.boolean().nullable(),
  overMaxResponseTime: z.boolean().nullable(),
  runLocation: z.string(),
  startedAt: z.string().nullable(),
  stoppedAt: z.string().nullable(),
  created_at: z.string(),
  responseTime: z.number(),
  apiCheckResult: ApiCheckResult.nullable(),
  browserCheckResult: Json.nullable(),
  multiStepCheckResult: Json.nullable(),
  /** A DNS monitor's query, response code, answers (text and JSON) and assertions (extension). */
  dnsCheckResult: Json.nullable().optional(),
  /** An SSL monitor's certificate and connection facts, baseline findings and assertions (the real document's `CheckResultSsl`). */
  sslCheckResult: Json.nullable().optional(),
  /** An ICMP monitor's packets, loss, round-trip statistics, assertions and how it pinged (extension). */
  icmpCheckResult: Json.nullable().optional(),
  /** A traceroute monitor's hops, final-hop latency and assertions (the real document's `CheckResultTraceroute`). */
  tracerouteCheckResult: Json.nullable().optional(),
  /** A gRPC monitor's status, health status, response message, metadata and assertions (the real document's `CheckResultGrpc`). */
  grpcCheckResult: Json.nullable().optional(),
  checkRunId: z.number(),
  attempts: z.number(),
  /**
   * Set on the result of a run no runner executed (no agent of its location connected and the
   * location not run by the service itself), with why (extension). Such a result has `hasErrors`
   * and no tries; it moves no alert state.
   */
  notExecuted: z.object({ reason: z.string() }).optional(),
  resultType: ResultType.exclude(['ALL']),
  sequenceId: z.string().nullable(),
  /**
   * The OpenTelemetry trace of the run (real document: required, nullable). Vigil's runner records
   * no traces, so the service answers null; a result seeded or imported with one keeps it. Optional
   * here because a runner's result (not yet stored) has none; every result the service serves has it.
   */
  traceId: z.string().nullable().optional(),
});
export type CheckResult = z.infer<typeof CheckResult>;
