/**
 * Check statuses (`GET /v1/check-statuses`, real API; not in the spec): per check, the state of its
 * latest FINAL result and a few facts across its runs. Shape from the real service's OpenAPI
 * document (`CheckStatus`); a check that has never run has no status.
 */
import { z } from 'zod';

export const CheckStatus = z.object({
  name: z.string(),
  checkId: z.string(),
  /** The latest run failed (an assertion, a timeout, a script). */
  hasFailures: z.boolean(),
  /** The latest run failed inside the service, not because of the check. */
  hasErrors: z.boolean(),
  /** The latest run passed but was slower than `degradedResponseTime`. */
  isDegraded: z.boolean(),
  longestRun: z.number().nullable(),
  shortestRun: z.number().nullable(),
  lastRunLocation: z.string().nullable(),
  lastCheckRunId: z.string().nullable(),
  /** Days until the certificate of an https target expires, when the latest run saw one. */
  sslDaysRemaining: z.number().nullable(),
  created_at: z.string(),
  updated_at: z.string().nullable(),
});
export type CheckStatus = z.infer<typeof CheckStatus>;
