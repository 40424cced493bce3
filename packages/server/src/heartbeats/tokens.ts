/**
 * Ping tokens: the service gives every heartbeat monitor a random token when it is created (never
 * one the caller chose, so one account cannot aim at another's URL) and keeps it across updates,
 * which send `heartbeat` without it. The token is the only credential of `/ping/{token}`.
 */
import { randomUUID } from 'node:crypto';
import type { Statement } from 'better-sqlite3';
import { readSideOf } from '../readside/context.js';
import type { SqliteDatabase, StoredDoc, Store } from '../store/index.js';

/** The `heartbeat` of a check being created: a HEARTBEAT check gets a fresh token. */
export function heartbeatOnCreate(checkType: unknown, heartbeat: unknown): Record<string, unknown> {
  if (checkType !== 'HEARTBEAT' || !isObject(heartbeat)) return {};
  return { heartbeat: { ...heartbeat, pingToken: randomUUID() } };
}

/** Puts the stored token back into a merged update (a check stored without one gets one now). */
export function keepPingToken(stored: StoredDoc, merged: StoredDoc): void {
  if (merged['checkType'] !== 'HEARTBEAT' || !isObject(merged['heartbeat'])) return;
  const previous = isObject(stored['heartbeat']) ? stored['heartbeat']['pingToken'] : undefined;
  merged['heartbeat'] = { ...merged['heartbeat'], pingToken: typeof previous === 'string' && previous !== '' ? previous : randomUUID() };
}

export interface PingTarget {
  accountId: string;
  check: StoredDoc;
}

interface Lookups {
  byToken: Statement;
  lastPing: Statement;
}

const prepared = new WeakMap<Store, Lookups>();

/** Prepares the look-ups; the ping route calls it when it registers, not inside a ping's write. */
export function lookupsOf(store: Store): Lookups {
  let lookups = prepared.get(store);
  if (!lookups) {
    readSideOf(store); // heartbeat_events
    lookups = {
      byToken: store.db.prepare("SELECT account_id, doc FROM checks WHERE check_type = 'HEARTBEAT' AND json_extract(doc, '$.heartbeat.pingToken') = ?"),
      lastPing: store.db.prepare('SELECT max(at_ms) AS at FROM heartbeat_events WHERE account_id = ? AND check_id = ?'),
    };
    prepared.set(store, lookups);
  }
  return lookups;
}

/** The heartbeat monitor a ping token belongs to, in any account. */
export function checkOfToken(store: Store, token: string): PingTarget | undefined {
  const row = lookupsOf(store).byToken.get(token) as { account_id: string; doc: string } | undefined;
  return row ? { accountId: row.account_id, check: JSON.parse(row.doc) as StoredDoc } : undefined;
}

/**
 * What a heartbeat's deadline is measured from: its last ping, or its creation when it was never
 * pinged (deadlines.ts).
 */
export function anchorMsOf(store: Store, accountId: string, check: StoredDoc): number {
  const row = lookupsOf(store).lastPing.get(accountId, String(check.id)) as { at: number | null };
  const createdMs = Date.parse(String(check['created_at']));
  return row.at ?? (Number.isFinite(createdMs) ? createdMs : 0);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
