/**
 * The ports of stored results, written once and implemented by each engine (`sqlite/`, `postgres/`),
 * apart from ports.ts so that file stays readable: raw results and their rollups, each check's status
 * made from its FINAL results, and the error groups folded from them. Recording a run writes all
 * three in one unit of work (`TransactionPorts`), so they always agree with each other.
 */
import type { CheckStatus } from '@vigil/schema';
import type { ArchivePatch, ErrorGroupState } from './error-group-rules.js';
import type { ResultFacts } from './formats/result-facts.js';

export type { ResultFacts };

/** A check result as stored and read back: the wire document (shape in @vigil/schema), by the fields the store keys on. */
export type CheckResultDocument = Record<string, unknown> & {
  readonly id: string;
  readonly checkId: string;
  /** ISO time; the row's `created_ms`, which pruning compares with the retention. */
  readonly created_at: string;
  readonly runLocation: string;
  readonly hasFailures: boolean;
};

/** Where a page of results newest first starts: strictly before this result (by time, then id). */
export interface ResultCursor {
  readonly createdMs: number;
  readonly id: string;
}

/** Which of a check's results a read returns: those meeting every condition given. */
export interface ResultFilter {
  /** Created at or after this moment (ms since the epoch); absent: no lower bound. */
  readonly fromMs?: number | undefined;
  /** Created before this moment; absent: no upper bound. */
  readonly toMs?: number | undefined;
  /** Run at this location (its name, as the results carry it). */
  readonly location?: string | undefined;
  readonly hasFailures?: boolean | undefined;
  /** Absent: both kinds. */
  readonly resultType?: 'FINAL' | 'ATTEMPT' | undefined;
}

export type RollupGranularity = 'hourly' | 'daily';

/** One rollup row: the FINAL results of one check at one location in one UTC hour or day. */
export interface RolledUpResults {
  readonly startMs: number;
  readonly spanMs: number;
  readonly location: string;
  readonly results: number;
  readonly failures: number;
  readonly degraded: number;
  readonly attempts: number;
  /** Response times: how many results had one, and their sum, sum of squares, min and max. */
  readonly rtCount: number;
  readonly rtSum: number;
  readonly rtSqSum: number;
  readonly rtMin: number | null;
  readonly rtMax: number | null;
  /** Response times counted by bucket (store/formats/rollup-histogram.ts). */
  readonly histogram: ReadonlyMap<number, number>;
}

/** One check's daily rollup rows of one UTC day summed over their locations: what an uptime bar counts. */
export interface DailyResultTotals {
  readonly startMs: number;
  /** FINAL results of the day, and how many of them failed. */
  readonly results: number;
  readonly failures: number;
}

/** How long each kind of result data is kept, in milliseconds. */
export interface ResultRetention {
  /** Raw results created more than this before now go (to the millisecond). */
  readonly rawMs: number;
  readonly hourlyMs: number;
  readonly dailyMs: number;
}

/** What pruning deleted up to: raw results created, and rollup rows starting, before these moments. */
export interface PrunedBefore {
  /** Exactly `retention.rawMs` before the prune's `nowMs` (or an earlier prune's later cutoff). */
  readonly raw: number;
  readonly hourly: number;
  readonly daily: number;
}

/**
 * Stored check results, in the compact row format (store/formats/result-row-codec.ts: a passing
 * result as its delta from a reference result of its check), and their hourly and daily rollups. A
 * run's tries are appended, and its FINAL result folded into its check's rollups, in one transaction;
 * appends of one check from several replicas are serialised on the check, so rollups add up whoever
 * appended. Raw results are pruned to the millisecond: a result 1 ms older than the cutoff goes, one at
 * the cutoff stays.
 */
export interface CheckResults {
  /**
   * Makes sure results created in `[fromMs, toMs]` have somewhere to go (on PostgreSQL, a partition per
   * UTC day; nothing to do on SQLite). Replicas call it ahead of time, periodically; an append to a day
   * not prepared prepares it itself, at the cost of that append.
   */
  prepareDays(fromMs: number, toMs: number): Promise<void>;
  /**
   * Stores the tries of one run of one check (ATTEMPTs, then the FINAL one; bounded by the caller) and
   * resolves to them as stored, which is what reads return: ids derived from check and time
   * (store/formats/result-ids.ts), the run's `sequenceId` the first try's id, and a passing result
   * reduced as store/formats/result-codec.ts `reducePassing` says. A try whose id is stored already is left alone.
   */
  appendRun(accountId: string, tries: readonly CheckResultDocument[]): Promise<CheckResultDocument[]>;
  /**
   * Stores one result under the id it has, once: a heartbeat's ping or missed window names its result,
   * so a result stored by a holder that died before confirming is not stored again by the next one.
   * Resolves to false, storing nothing, when the check has a result of that id already. A FINAL one
   * is folded into its rollups in the same transaction.
   */
  appendKept(accountId: string, result: CheckResultDocument): Promise<boolean>;
  /**
   * Up to `limit` of a check's results meeting the filter strictly before `before` (or the newest),
   * newest first, ties by id, after leaving out the first `offset` of them (default 0; the dashboard
   * links a check's results by page number, both ways). Only the results returned are decoded,
   * however many the filter or the offset skips.
   */
  newestFirst(accountId: string, checkId: string, page: ResultFilter & { readonly limit: number; readonly offset?: number | undefined; readonly before?: ResultCursor | undefined }): Promise<CheckResultDocument[]>;
  /**
   * One page (from 1) of a check's results meeting the filter, oldest first, ties by id, and how many
   * meet it: the order of every list of the service, so walking the pages of a window never skips or
   * repeats a result. Only the page's results are decoded.
   */
  oldestFirst(accountId: string, checkId: string, query: ResultFilter & { readonly page: number; readonly limit: number }): Promise<{ items: CheckResultDocument[]; total: number }>;
  /** One result of a check, or undefined. */
  find(accountId: string, checkId: string, id: string): Promise<CheckResultDocument | undefined>;
  /**
   * The facts of a check's results created in `[fromMs, toMs)` (store/formats/result-facts.ts: the
   * columns analytics computes with, no document decoded), oldest first, ties in no particular order:
   * what rollups do not keep (phases, status codes, each response time) for the range raw results cover.
   */
  facts(accountId: string, checkId: string, fromMs: number, toMs: number): Promise<ResultFacts[]>;
  /** A check's rollup rows of one granularity starting in `[fromMs, toMs)`, by start then location. */
  rollups(accountId: string, checkId: string, granularity: RollupGranularity, fromMs: number, toMs: number): Promise<RolledUpResults[]>;
  /**
   * For several checks at once, the days starting in `[fromMs, toMs)` that have daily rows, summed over
   * their locations, each check's days in no particular order; a check without any is absent. One
   * statement for a status page's every service, and no histogram read, which an uptime bar does not need.
   */
  dailyTotals(accountId: string, checkIds: readonly string[], fromMs: number, toMs: number): Promise<Map<string, DailyResultTotals[]>>;
  /**
   * Deletes raw results created more than `retention.rawMs` before `nowMs`, and rollup rows starting
   * more than their retention before `nowMs`, without holding long locks; the horizons only move
   * forward. Resolves to where each kind was pruned up to.
   */
  prune(nowMs: number, retention: ResultRetention): Promise<PrunedBefore>;
  /** Where pruning has deleted each kind up to (absent: never pruned). */
  horizons(): Promise<{ raw?: number; hourly?: number; daily?: number }>;
}

/** The fields of a FINAL result a check's status is made from. */
export interface FinalResultFacts {
  name: string;
  checkId: string;
  hasFailures: boolean;
  hasErrors: boolean;
  isDegraded: boolean | null;
  responseTime: number | null;
  runLocation: string;
  checkRunId: number | string | null;
  stoppedAt: string | null;
  sslDaysRemaining?: number | null;
}

/**
 * Each check's status: one document per check, rewritten by each FINAL result stored (the rule is
 * check-status-rules.ts `nextCheckStatus`), so the check-statuses routes read one row per check
 * however many results it has. Writes of one check from several replicas are serialised on the
 * check, so the longest and shortest runs count every result. Reads list only checks that still
 * exist.
 */
export interface CheckStatuses {
  /** Folds a FINAL result into its check's status and resolves to the status stored. */
  record(accountId: string, result: FinalResultFacts): Promise<CheckStatus>;
  /** The statuses of the account's existing checks, in the order the checks were created. */
  list(accountId: string): Promise<CheckStatus[]>;
  /** The status of an existing check; undefined when the check never ran or no longer exists. */
  find(accountId: string, checkId: string): Promise<CheckStatus | undefined>;
}

/** One error a stored result recorded, as its check's error groups fold it. */
export interface ErrorOccurrence {
  readonly checkId: string;
  readonly message: string;
  /** When the result was created, ms since the epoch. */
  readonly at: number;
}

/**
 * Error groups: each check's errors, one group per cleaned message (error-group-rules.ts). The errors
 * of a result are folded in the transaction that stores the result, so the groups are always what the
 * stored results say; folds of one check from several replicas are serialised on the group, so none
 * is lost.
 */
export interface ErrorGroups {
  /** Folds each occurrence, in order, into its check's group of the same cleaned message, starting the group when there is none. */
  fold(accountId: string, occurrences: readonly ErrorOccurrence[]): Promise<void>;
  /** One page (from 1) of a check's groups, in the order they were started, and how many it has. */
  ofCheck(accountId: string, checkId: string, paging: { readonly page: number; readonly limit: number }): Promise<{ items: ErrorGroupState[]; total: number }>;
  find(accountId: string, id: string): Promise<ErrorGroupState | undefined>;
  /** Applies an archive PATCH at `nowMs` and resolves to the group after it; undefined when the account has no such group. */
  archive(accountId: string, id: string, patch: ArchivePatch, nowMs: number): Promise<ErrorGroupState | undefined>;
}
