/**
 * What every engine of the storage ports (ports.ts) does the same way: the checks of their input,
 * with one wording, and the few rules that are arithmetic rather than SQL. Keeping them here is what
 * lets the contract suite expect the same error from SQLite and PostgreSQL.
 */
import { createHash } from 'node:crypto';
import { IDEMPOTENCY_KEY_MAX_LENGTH } from '@vigil/schema';
import type { CheckResultDocument, ClaimedNotification, ErrorOccurrence, MissedDeadline, MissedWindowKey, QueuedNotification, RateDecision, RateLimitRequest, ResultCursor, ResultFilter, ResultRetention, RolledUpResults, RollupGranularity, SlotClaim, StoredResponse, WatchedHeartbeat } from './ports.js';

/** How long a stored response answers a repeated `Idempotency-Key`: 24 hours, as the real service. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

/** Bad input to a port: a bug of the caller, never something a client of the API can cause. */
export class StoreInputError extends Error {
  override readonly name = 'StoreInputError';
}

export function text(name: string, value: unknown, maxLength = Number.POSITIVE_INFINITY): string {
  if (typeof value !== 'string' || value.length === 0 || value.length > maxLength) {
    const bound = Number.isFinite(maxLength) ? `of 1 to ${maxLength} characters` : 'that is not empty';
    throw new StoreInputError(`${name} must be a string ${bound}, got ${shown(value)}`);
  }
  return value;
}

/** Moments are milliseconds since the epoch; a float or a negative one is a unit mix-up. */
export function moment(name: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    throw new StoreInputError(`${name} must be a whole number of milliseconds since the epoch, got ${shown(value)}`);
  }
  return value;
}

export function positive(name: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) {
    throw new StoreInputError(`${name} must be a whole number of at least 1, got ${shown(value)}`);
  }
  return value;
}

export function shown(value: unknown): string {
  if (typeof value === 'string') return value.length > 40 ? `a string of ${value.length} characters` : JSON.stringify(value);
  return value === undefined ? 'undefined' : typeof value === 'number' ? String(value) : typeof value;
}

export function checkIdempotencyKey(accountId: unknown, key: unknown, now: unknown): void {
  text('accountId', accountId);
  text('Idempotency-Key', key, IDEMPOTENCY_KEY_MAX_LENGTH);
  moment('now', now);
}

export function checkStoredResponse(response: StoredResponse): void {
  text('fingerprint', response.fingerprint);
  if (!Number.isInteger(response.status) || response.status < 100 || response.status > 599) {
    throw new StoreInputError(`status must be an HTTP status code (100 to 599), got ${shown(response.status)}`);
  }
  if (typeof response.body !== 'string') throw new StoreInputError(`body must be the response's JSON text, got ${shown(response.body)}`);
}

export function checkRateLimitRequest(request: RateLimitRequest): void {
  text('key', request.key);
  positive('limit', request.limit);
  positive('windowMs', request.windowMs);
  moment('now', request.now);
}

/** The stored name of a rate-limit window: the key names an API key, which no table may hold. */
export function windowId(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

/**
 * The decision for a window as an engine left it after counting one request: `hits` counts requests
 * up to `limit + 1` (a refused one is the `limit + 1`th and is not counted further), so the request
 * was allowed exactly when `hits <= limit`. The same numbers the in-memory limiter gives.
 */
export function rateDecision(request: RateLimitRequest, window: { startedMs: number; hits: number }): RateDecision {
  const resetSeconds = Math.max(1, Math.ceil((window.startedMs + request.windowMs - request.now) / 1000));
  const allowed = window.hits <= request.limit;
  return { allowed, limit: request.limit, remaining: allowed ? request.limit - window.hits : 0, resetSeconds };
}

export function checkSlot(slot: SlotClaim): void {
  text('accountId', slot.accountId);
  text('checkId', slot.checkId);
  text('location', slot.location);
  moment('dueMs', slot.dueMs);
  const expected = `${slot.checkId}@${slot.dueMs}@${slot.location}`;
  if (slot.key !== expected) {
    throw new StoreInputError(`slot key ${shown(slot.key)} is not checkId@dueMs@location (${JSON.stringify(expected)})`);
  }
}

/** The slots of one claim, checked; a slot listed twice is a scheduler bug, not a race to settle. */
export function checkSlots(slots: readonly SlotClaim[], claimedMs: number): void {
  moment('claimedMs', claimedMs);
  const seen = new Set<string>();
  for (const slot of slots) {
    checkSlot(slot);
    const id = `${slot.accountId}\u0000${slot.key}`;
    if (seen.has(id)) throw new StoreInputError(`slot "${slot.key}" of account "${slot.accountId}" is listed twice in one claim`);
    seen.add(id);
  }
}

/** Which check and location a claim mark is asked for. */
export function checkClaimMarkOf(accountId: unknown, checkId: unknown, location: unknown): void {
  text('accountId', accountId);
  text('checkId', checkId);
  text('location', location);
}

export function checkMoment(name: string, value: unknown): void {
  moment(name, value);
}

/**
 * The channel type of mail to a status page's subscriber (an incident's update), which no alert
 * channel sends: its `alertChannelId` is 0.
 */
export const SUBSCRIBER_MAIL_CHANNEL_TYPE = 'STATUS_PAGE_SUBSCRIBER';

export function checkQueuedNotification(notification: QueuedNotification): void {
  text('notification id', notification.id);
  text('accountId', notification.accountId);
  // A subscriber's mail has no channel, and the verification of a subscription is about no check.
  const subscriberMail = notification.channelType === SUBSCRIBER_MAIL_CHANNEL_TYPE;
  if (!(subscriberMail && notification.checkId === '')) text('checkId', notification.checkId);
  if (!(subscriberMail && notification.alertChannelId === 0)) positive('alertChannelId', notification.alertChannelId);
  text('channelType', notification.channelType);
  text('alertType', notification.alertType);
  text('doc', notification.doc);
}

export function checkOutboxClaim(owner: unknown, nowMs: unknown, leaseMs: unknown, limit: unknown): void {
  checkLeaseClaim('lease owner', owner, nowMs, leaseMs, limit);
}

/** A claim of up to `limit` items for `owner` until `nowMs + leaseMs`; `ownerName` is how the port's errors call the owner. */
export function checkLeaseClaim(ownerName: string, owner: unknown, nowMs: unknown, leaseMs: unknown, limit: unknown): void {
  text(ownerName, owner, 200);
  moment('nowMs', nowMs);
  positive('leaseMs', leaseMs);
  positive('limit', limit);
}

export function checkOutboxOwner(owner: unknown, id: unknown): void {
  text('lease owner', owner, 200);
  text('notification id', id);
}

/** The input of an alert-state transition; a notification of another account, or listed twice, is a bug of the caller. */
export function checkAlertTransition(accountId: string, checkId: string, expectedVersion: number, nextState: string, notifications: readonly QueuedNotification[], nowMs: number): void {
  checkAlertStateKey(accountId, checkId);
  if (typeof expectedVersion !== 'number' || !Number.isSafeInteger(expectedVersion) || expectedVersion < 0) {
    throw new StoreInputError(`expectedVersion must be a whole number of at least 0 (0: the check has no state yet), got ${shown(expectedVersion)}`);
  }
  if (!isJsonObject(nextState)) throw new StoreInputError(`alert state must be the JSON text of an object, got ${shown(nextState)}`);
  moment('nowMs', nowMs);
  const seen = new Set<string>();
  for (const notification of notifications) {
    checkQueuedNotification(notification);
    if (notification.accountId !== accountId) {
      throw new StoreInputError(`notification "${notification.id}" is of account ${shown(notification.accountId)}, not of the transition's account ${shown(accountId)}`);
    }
    if (seen.has(notification.id)) throw new StoreInputError(`notification "${notification.id}" is listed twice in one transition`);
    seen.add(notification.id);
  }
}

export function checkSslAlertClaims(accountId: string, checkId: string, day: number, notifications: readonly QueuedNotification[], nowMs: number): void {
  checkAlertStateKey(accountId, checkId);
  if (typeof day !== 'number' || !Number.isSafeInteger(day) || day < 0) throw new StoreInputError(`day must be a whole number of UTC days since the epoch, got ${shown(day)}`);
  moment('nowMs', nowMs);
  const channels = new Set<number>();
  for (const notification of notifications) {
    checkQueuedNotification(notification);
    if (notification.accountId !== accountId || notification.checkId !== checkId) {
      throw new StoreInputError(`notification "${notification.id}" is of check ${shown(notification.checkId)} of account ${shown(notification.accountId)}, not of the claim's check ${shown(checkId)} of account ${shown(accountId)}`);
    }
    if (channels.has(notification.alertChannelId)) throw new StoreInputError(`channel ${notification.alertChannelId} is listed twice in one day's claim`);
    channels.add(notification.alertChannelId);
  }
}

export function checkAlertStateKey(accountId: unknown, checkId: unknown): void {
  text('accountId', accountId);
  text('checkId', checkId);
}

function isJsonObject(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  try {
    const parsed: unknown = JSON.parse(value);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed);
  } catch {
    return false;
  }
}

export function checkWatchedHeartbeat(heartbeat: WatchedHeartbeat): void {
  text('accountId', heartbeat.accountId);
  text('checkId', heartbeat.checkId);
  positive('periodMs', heartbeat.periodMs);
  if (typeof heartbeat.graceMs !== 'number' || !Number.isSafeInteger(heartbeat.graceMs) || heartbeat.graceMs < 0) {
    throw new StoreInputError(`graceMs must be a whole number of at least 0, got ${shown(heartbeat.graceMs)}`);
  }
  moment('anchorMs', heartbeat.anchorMs);
}

export function checkHeartbeatKey(accountId: unknown, checkId: unknown): void {
  text('accountId', accountId);
  text('checkId', checkId);
}

export function checkDeadlineClaim(nowMs: unknown, limit: unknown, owner: unknown, leaseMs: unknown): void {
  moment('nowMs', nowMs);
  positive('limit', limit);
  text('claim owner', owner, 200);
  positive('leaseMs', leaseMs);
}

export function checkMissedWindows(windows: readonly MissedWindowKey[], owner: unknown): void {
  text('claim owner', owner, 200);
  for (const window of windows) {
    checkHeartbeatKey(window.accountId, window.checkId);
    moment('dueMs', window.dueMs);
  }
}

export function checkJobRun(jobName: unknown, nowMs: unknown, everyMs: unknown, owner: unknown): void {
  text('job name', jobName, 200);
  moment('nowMs', nowMs);
  positive('everyMs', everyMs);
  text('job owner', owner, 200);
}

export function checkJobName(jobName: unknown): void {
  text('job name', jobName, 200);
}

/** Earliest deadline first, then by check: the order a claim hands missed windows out (RETURNING has none). */
export function byDeadline(a: MissedDeadline, b: MissedDeadline): number {
  return a.dueMs - b.dueMs || (a.accountId < b.accountId ? -1 : a.accountId > b.accountId ? 1 : a.checkId < b.checkId ? -1 : a.checkId > b.checkId ? 1 : 0);
}

/** An outbox row as both engines store it (same column names), as the port hands it out. */
export function claimedOf(row: {
  id: string; account_id: string; check_id: string; alert_channel_id: number; channel_type: string; alert_type: string; doc: string; attempts: number; lease_until_ms: number | null;
}): ClaimedNotification {
  return {
    id: row.id,
    accountId: row.account_id,
    checkId: row.check_id,
    alertChannelId: row.alert_channel_id,
    channelType: row.channel_type,
    alertType: row.alert_type,
    doc: row.doc,
    attempts: row.attempts,
    leaseUntilMs: row.lease_until_ms ?? 0,
  };
}

/** The span of an hourly rollup row; a day's is a daily row's (and, on PostgreSQL, a partition of raw results). */
export const HOUR_MS = 3_600_000;
export const DAY_MS = 24 * HOUR_MS;

/** The start of the UTC day of `ms`. */
export function dayOf(ms: number): number {
  return Math.floor(ms / DAY_MS) * DAY_MS;
}

/** The most days one `prepareDays` call covers: a caller asking for more has its units wrong. */
export const MAX_PREPARED_DAYS = 62;

export function checkPreparedDays(fromMs: unknown, toMs: unknown): void {
  moment('fromMs', fromMs);
  moment('toMs', toMs);
  if ((toMs as number) < (fromMs as number)) throw new StoreInputError(`toMs must not be before fromMs, got ${shown(fromMs)} to ${shown(toMs)}`);
  if (dayOf(toMs as number) - dayOf(fromMs as number) >= MAX_PREPARED_DAYS * DAY_MS) throw new StoreInputError(`prepareDays covers at most ${MAX_PREPARED_DAYS} days, got ${shown(fromMs)} to ${shown(toMs)}`);
}

/** A run's tries: at least one, all of one check, each with an id, a time and a location. */
export function checkResultRun(accountId: unknown, tries: readonly CheckResultDocument[]): void {
  text('accountId', accountId);
  if (!Array.isArray(tries) || tries.length === 0) throw new StoreInputError('a run must have at least one try');
  const checkId = tries[0]!.checkId;
  for (const tried of tries) {
    text('result id', tried.id, 255);
    text('checkId', tried.checkId);
    if (tried.checkId !== checkId) throw new StoreInputError(`the tries of one run must be of one check, got ${shown(checkId)} and ${shown(tried.checkId)}`);
    const createdMs = typeof tried.created_at === 'string' ? Date.parse(tried.created_at) : Number.NaN;
    if (!Number.isSafeInteger(createdMs) || createdMs < 0) throw new StoreInputError(`created_at must be an ISO time after 1970, got ${shown(tried.created_at)}`);
    text('runLocation', tried.runLocation);
  }
}

/** The longest result id the ports store: a longer one names no result, and a read of one is refused. */
export const MAX_RESULT_ID_LENGTH = 255;

export function checkResultKey(accountId: unknown, checkId: unknown, id?: unknown): void {
  text('accountId', accountId);
  text('checkId', checkId);
  if (id !== undefined) text('result id', id, MAX_RESULT_ID_LENGTH);
}

export function checkResultPage(accountId: unknown, checkId: unknown, page: ResultFilter & { limit: unknown; offset?: unknown; before?: ResultCursor | undefined }): void {
  checkResultKey(accountId, checkId);
  checkResultFilter(page);
  positive('limit', page.limit);
  if (page.offset !== undefined && (typeof page.offset !== 'number' || !Number.isSafeInteger(page.offset) || page.offset < 0)) {
    throw new StoreInputError(`offset must be a whole number of at least 0, got ${shown(page.offset)}`);
  }
  if (page.before !== undefined) {
    moment('before.createdMs', page.before.createdMs);
    text('before.id', page.before.id, 255);
  }
}

export function checkResultWindowPage(accountId: unknown, checkId: unknown, query: ResultFilter & { page: unknown; limit: unknown }): void {
  checkResultKey(accountId, checkId);
  checkResultFilter(query);
  positive('page', query.page);
  positive('limit', query.limit);
}

function checkResultFilter(filter: ResultFilter): void {
  if (filter.fromMs !== undefined) moment('fromMs', filter.fromMs);
  if (filter.toMs !== undefined) moment('toMs', filter.toMs);
  if (filter.location !== undefined) text('location', filter.location);
  if (filter.hasFailures !== undefined && typeof filter.hasFailures !== 'boolean') throw new StoreInputError(`hasFailures must be true or false, got ${shown(filter.hasFailures)}`);
  if (filter.resultType !== undefined && filter.resultType !== 'FINAL' && filter.resultType !== 'ATTEMPT') {
    throw new StoreInputError(`resultType must be "FINAL" or "ATTEMPT", got ${shown(filter.resultType)}`);
  }
}

export function checkFactRange(accountId: unknown, checkId: unknown, fromMs: unknown, toMs: unknown): void {
  checkResultKey(accountId, checkId);
  moment('fromMs', fromMs);
  moment('toMs', toMs);
}

export function checkDailyTotals(accountId: unknown, checkIds: readonly unknown[], fromMs: unknown, toMs: unknown): void {
  text('accountId', accountId);
  if (!Array.isArray(checkIds)) throw new StoreInputError(`checkIds must be a list, got ${shown(checkIds)}`);
  for (const checkId of checkIds) text('checkId', checkId);
  moment('fromMs', fromMs);
  moment('toMs', toMs);
}

export function checkRollupRange(accountId: unknown, checkId: unknown, granularity: unknown, fromMs: unknown, toMs: unknown): asserts granularity is RollupGranularity {
  checkResultKey(accountId, checkId);
  if (granularity !== 'hourly' && granularity !== 'daily') throw new StoreInputError(`granularity must be "hourly" or "daily", got ${shown(granularity)}`);
  moment('fromMs', fromMs);
  moment('toMs', toMs);
}

export function checkRetention(nowMs: unknown, retention: ResultRetention): void {
  moment('nowMs', nowMs);
  positive('retention.rawMs', retention.rawMs);
  positive('retention.hourlyMs', retention.hourlyMs);
  positive('retention.dailyMs', retention.dailyMs);
}

/**
 * Where a prune deletes up to: raw results by their time, rollup rows by their start, each exactly its
 * retention before now (the SQLite service's `--retention` keeps results to the millisecond too).
 */
export function pruneCutoffs(nowMs: number, retention: ResultRetention): { rawMs: number; hourlyMs: number; dailyMs: number } {
  return { rawMs: nowMs - retention.rawMs, hourlyMs: nowMs - retention.hourlyMs, dailyMs: nowMs - retention.dailyMs };
}

/** A rollup row as both engines store it, decoded (one decoder for both: store/formats/rollup-row.ts). */
export { rollupRowOf as rolledUpOf } from './formats/rollup-row.js';

/** The errors of stored results to fold: each of a check, with a message and a time. */
export function checkErrorOccurrences(accountId: unknown, occurrences: readonly ErrorOccurrence[]): void {
  text('accountId', accountId);
  if (!Array.isArray(occurrences)) throw new StoreInputError('occurrences must be a list');
  for (const occurrence of occurrences) {
    text('checkId', occurrence.checkId);
    if (typeof occurrence.message !== 'string') throw new StoreInputError(`an error's message must be a string, got ${shown(occurrence.message)}`);
    moment('at', occurrence.at);
  }
}

export function checkErrorGroupPage(accountId: unknown, checkId: unknown, paging: { page: unknown; limit: unknown }): void {
  checkResultKey(accountId, checkId);
  positive('page', paging.page);
  positive('limit', paging.limit);
}
