/**
 * Ping tokens: the service gives every heartbeat monitor a random token when it is created (never
 * one the caller chose, so one account cannot aim at another's URL) and keeps it across updates,
 * which send `heartbeat` without it. The token is the only credential of `/ping/{token}`; the
 * HeartbeatPings port finds a monitor by it (`monitorOfToken`).
 */
import { randomUUID } from 'node:crypto';
import type { StoredDoc } from '../store/index.js';
import type { HeartbeatMonitor } from '../store/ports.js';

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

/**
 * What a heartbeat's deadline is measured from: its last ping, or its creation when it was never
 * pinged (deadlines.ts).
 */
export function anchorMsOf(monitor: HeartbeatMonitor): number {
  const createdMs = Date.parse(String(monitor.check['created_at']));
  return monitor.lastPingMs ?? (Number.isFinite(createdMs) ? createdMs : 0);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
