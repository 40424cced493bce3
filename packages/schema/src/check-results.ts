/** Check results (spec §2.5) and the query of `GET /v1/check-results/{checkId}` (spec §4.1). */
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

/** `apiCheckResult` of an API check's result; inner timing objects are open (spec §2.10). */
export const ApiCheckResult = z.object({
  assertions: z.array(z.object({ source: z.string(), target: z.unknown() })),
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
    headers: Json,
    timings: Json,
    timingPhases: Json,
  }),
  requestError: z.string().nullable(),
  jobLog: z.unknown(),
  jobAssets: z.unknown(),
});
export type ApiCheckResult = z.infer<typeof ApiCheckResult>;

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
  checkRunId: z.number(),
  attempts: z.number(),
  resultType: ResultType.exclude(['ALL']),
  sequenceId: z.string().nullable(),
});
export type CheckResult = z.infer<typeof CheckResult>;
