/**
 * The checks of the heartbeat-ping port's input (ports.ts `HeartbeatPings`), one wording for both
 * engines, so the contract suite expects the same error from each.
 */
import { checkLeaseClaim, moment, positive, shown, StoreInputError, text } from './port-rules.js';
import type { ResourceDocument } from './document-ports.js';
import type { HeartbeatMonitor, PingKey, StoredPing } from './ports.js';

export function checkStoredPing(ping: StoredPing): void {
  checkPingKey(ping);
  text('checkId', ping.checkId);
  moment('atMs', ping.atMs);
  if (typeof ping.doc !== 'string') throw new StoreInputError(`doc must be the event's JSON text, got ${shown(ping.doc)}`);
}

export function checkPingKey(key: PingKey): void {
  text('accountId', key.accountId);
  text('ping id', key.id);
}

export function checkPingRange(accountId: unknown, checkId: unknown, fromMs: unknown, toMs: unknown): void {
  text('accountId', accountId);
  text('checkId', checkId);
  moment('fromMs', fromMs);
  moment('toMs', toMs);
}

export function checkPingClaim(owner: unknown, nowMs: unknown, leaseMs: unknown, limit: unknown): void {
  checkLeaseClaim('claim owner', owner, nowMs, leaseMs, limit);
}

/** The pings of one confirm; one listed twice would get two answers for one row, which is a caller's bug. */
export function checkPingKeys(pings: readonly PingKey[], owner: unknown): void {
  text('claim owner', owner, 200);
  const seen = new Set<string>();
  for (const ping of pings) {
    checkPingKey(ping);
    const key = `${ping.accountId}\u0000${ping.id}`;
    if (seen.has(key)) throw new StoreInputError(`ping "${ping.id}" of account "${ping.accountId}" is listed twice in one confirm`);
    seen.add(key);
  }
}

export function checkPingToken(token: unknown): void {
  text('ping token', token);
}

export function checkPingPrune(beforeMs: unknown, limit: unknown): void {
  moment('beforeMs', beforeMs);
  positive('limit', limit);
}

/** A monitor's row as both engines read it: the check's account and stored text, and its last ping. */
export interface MonitorRow {
  readonly account_id: string;
  readonly doc: string;
  /** A BIGINT may come back as text from a driver; read as a number. */
  readonly last_ping_ms: number | string | null;
}

export function monitorOf(row: MonitorRow): HeartbeatMonitor {
  return { accountId: row.account_id, check: JSON.parse(row.doc) as ResourceDocument, lastPingMs: row.last_ping_ms === null ? null : Number(row.last_ping_ms) };
}

/** A claimed event's row as both engines' claims return it. */
export interface ClaimedPingRow {
  readonly seq: number;
  readonly account_id: string;
  readonly check_id: string;
  readonly id: string;
  readonly at_ms: number;
  readonly doc: string;
}

/**
 * Claimed rows as pings, in the order they were stored, by the engine's own sequence (`seq`: a rowid, or
 * a BIGINT the pool reads as a number): neither engine's RETURNING promises the order of the subquery it claimed by.
 */
export function claimedPings(rows: readonly ClaimedPingRow[]): StoredPing[] {
  return [...rows]
    .sort((a, b) => a.seq - b.seq)
    .map((row) => ({ accountId: row.account_id, checkId: row.check_id, id: row.id, atMs: row.at_ms, doc: row.doc }));
}
