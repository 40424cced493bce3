/**
 * A ping as the service records it: one heartbeat event of the check, stored at once through the
 * HeartbeatPings port (pending until the watch has turned it into a result), and the check's next
 * deadline moved in the database (the HeartbeatDeadlines port), so no watch sharing the
 * database claims a window the ping closed; the look-up of its monitor by token, the event and the
 * move are one unit of work. Everything else a ping means for monitoring (a result,
 * the check's status, a recovery alert) follows from the stored event on the scheduler's next tick
 * (watch.ts), so a ping answered here is never lost to a restart, and a service running without the
 * scheduler still records pings.
 */
import { randomUUID } from 'node:crypto';
import { HeartbeatConfig, type HeartbeatEvent } from '@vigil/schema';
import type { HeartbeatMonitor, TransactionPorts } from '../store/ports.js';
import { pingState } from './deadlines.js';
import { anchorMsOf } from './tokens.js';

/** What the caller tells about itself; both are untrusted text, stored as given within these lengths. */
export const PING_SOURCE_MAX = 100;
export const PING_USER_AGENT_MAX = 200;

export interface PingInput {
  token: string;
  failed: boolean;
  /** `?source=` of the request, or how it came (`HTTP GET`). */
  source: string;
  userAgent: string;
  atMs: number;
}

export interface RecordedPing {
  readonly event: HeartbeatEvent;
  /** False when its id was stored already. */
  readonly stored: boolean;
  /**
   * False when the check has no deadline yet (no watch has read it since it was created; the watch
   * counts from this ping when it does) or a later ping moved it already.
   */
  readonly deadlineMoved: boolean;
}

/** The ports a ping is recorded through: a unit of work's (the ping route's), so the three are one transaction. */
export type PingPorts = Pick<TransactionPorts, 'heartbeatPings' | 'heartbeatDeadlines'>;

/**
 * Records a ping; undefined when no heartbeat monitor has the token. The monitor is looked up here,
 * in the caller's unit, so the event and the deadline's move commit with the look-up they follow
 * (a monitor deleted, or its token replaced, meanwhile is not pinged); `monitor` skips the look-up
 * for a caller that just made it in the same unit.
 */
export async function recordPing(ports: PingPorts, input: PingInput, monitor?: HeartbeatMonitor): Promise<RecordedPing | undefined> {
  const target = monitor ?? (await ports.heartbeatPings.monitorOfToken(input.token));
  if (!target) return undefined;
  const { accountId, check } = target;
  const checkId = String(check.id);
  const heartbeat = HeartbeatConfig.safeParse(check['heartbeat']);
  const event: HeartbeatEvent = {
    id: randomUUID(),
    state: heartbeat.success ? pingState(heartbeat.data, anchorMsOf(target), input.atMs, input.failed) : input.failed ? 'FAILING' : 'RECEIVED',
    timestamp: new Date(input.atMs).toISOString(),
    source: input.source.slice(0, PING_SOURCE_MAX),
    userAgent: input.userAgent.slice(0, PING_USER_AGENT_MAX),
  };
  const stored = await ports.heartbeatPings.record({ accountId, checkId, id: event.id, atMs: input.atMs, doc: JSON.stringify(event) });
  const deadlineMoved = await ports.heartbeatDeadlines.recordPing(accountId, checkId, input.atMs);
  return { event, stored, deadlineMoved };
}
