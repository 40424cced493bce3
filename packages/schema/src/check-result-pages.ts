/**
 * `GET /v2/check-results/{checkId}` (real API): a check's results newest first, paged by an opaque
 * cursor (`nextId`) instead of page numbers, optionally projected to `fields`; and the single-result
 * read `GET /v1/check-results/{checkId}/{checkResultId}`.
 */
import { z } from 'zod';
import { queryBoolean, queryInt, queryList } from './helpers.js';
import { CheckResult } from './check-results.js';
import { LIST_LIMIT_DEFAULT, LIST_LIMIT_MAX, LIST_LIMIT_MIN } from './limits.js';
import { CheckType, Location, ResultType } from './values.js';

/** What `fields` may name: the real service's projection list. */
export const CHECK_RESULT_FIELDS = [
  'id', 'name', 'checkId', 'hasFailures', 'hasErrors', 'isDegraded', 'isCancelled', 'overMaxResponseTime',
  'runLocation', 'startedAt', 'stoppedAt', 'created_at', 'createdAt', 'responseTime', 'apiCheckResult',
  'browserCheckResult', 'multiStepCheckResult', 'agenticCheckResult', 'playwrightCheckResult',
  'tracerouteCheckResult', 'grpcCheckResult', 'sslCheckResult', 'checkRunId', 'attempts', 'resultType',
  'sequenceId', 'traceId', 'errorGroupIds',
] as const;
export const CheckResultField = z.enum(CHECK_RESULT_FIELDS);

export const CheckResultsV2Query = z.object({
  limit: queryInt().min(LIST_LIMIT_MIN).max(LIST_LIMIT_MAX).default(LIST_LIMIT_DEFAULT),
  /** UNIX seconds, inclusive; default: no lower bound (whatever retention kept). */
  from: queryInt().min(0).optional(),
  /** UNIX seconds, exclusive; default: no upper bound. */
  to: queryInt().min(0).optional(),
  location: Location.optional(),
  checkType: CheckType.optional(),
  hasFailures: queryBoolean().optional(),
  resultType: ResultType.default('FINAL'),
  /** The `nextId` of the previous page. */
  nextId: z.string().min(1).optional(),
  /** Comma-separated or repeated; absent: every field. */
  fields: queryList(CheckResultField).optional(),
});
export type CheckResultsV2Query = z.infer<typeof CheckResultsV2Query>;

/** One page: entries newest first; `nextId` null on the last page. Entries hold only `fields` when asked. */
export const CheckResultPage = z.object({
  length: z.number(),
  entries: z.array(CheckResult.partial()),
  nextId: z.string().nullable(),
});
export type CheckResultPage = z.infer<typeof CheckResultPage>;

export const CheckResultIdParams = z.object({ checkId: z.string().min(1), checkResultId: z.string().min(1) });
export type CheckResultIdParams = z.infer<typeof CheckResultIdParams>;
