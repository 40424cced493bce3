/**
 * The boundary between the scheduler and whatever executes a run: a `RunJob` goes out, a
 * `RunReport` comes back. Inside one `vigil server` they are handed over in memory; a runner in
 * another process (an agent near its targets) receives and sends them as JSON, so both carry a
 * version and are validated where they cross a process boundary.
 */
import { z } from 'zod';
import { CheckResult } from './check-results.js';

/** Bumped when a job or report changes in a way an older peer would misread. */
export const RUN_WIRE_VERSION = 1;

/** `${checkId}@${dueMs}@${location}`: one run of one check; its results are recorded once per key. */
export const RunKey = z.string().regex(/^[^@\s]+@\d+@[^@\s]+$/, 'must be "checkId@dueMs@location"');

export const RunJob = z.object({
  wireVersion: z.number().int().positive(),
  key: RunKey,
  accountId: z.string().min(1),
  checkId: z.string().min(1),
  location: z.string().min(1),
  /** The moment the run was due, ms since the epoch; all tries of the run share it. */
  dueMs: z.number().int().nonnegative(),
  /** The check as the service stores it (the API's document), with bundled code for script kinds. */
  check: z.looseObject({ checkType: z.string().min(1) }),
  /** The check's group as stored, when it has one: its defaults apply at run time. */
  group: z.record(z.string(), z.unknown()).nullable(),
});
export type RunJob = z.infer<typeof RunJob>;

/** One try as the runner reports it: a check result plus what the service derives facts from. */
export const RunTryResult = CheckResult.extend({
  /** One line saying why the try failed (null when it passed), secrets redacted. */
  error: z.string().nullable(),
  /** When the target's TLS certificate expires (ISO 8601); feeds statuses and SSL alerts, never stored in the result. */
  certificateExpiresAt: z.string().optional(),
});
export type RunTryResult = z.infer<typeof RunTryResult>;

export const RunReport = z.object({
  wireVersion: z.number().int().positive(),
  key: RunKey,
  /** Each failed try before the last (resultType ATTEMPT), in order. */
  attempts: z.array(RunTryResult),
  /** The last try (resultType FINAL). */
  final: RunTryResult,
});
export type RunReport = z.infer<typeof RunReport>;

/**
 * Why a peer speaking `theirs` cannot exchange jobs with this one, or null when it can. Both
 * versions are named, so whoever reads it knows which side to upgrade.
 */
export function wireVersionMismatch(theirs: unknown, peer: string): string | null {
  if (theirs === RUN_WIRE_VERSION) return null;
  const named = typeof theirs === 'number' ? `version ${theirs}` : 'no version';
  return `${peer} speaks run wire ${named}; this side speaks version ${RUN_WIRE_VERSION}`;
}
