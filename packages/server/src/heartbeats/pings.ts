/**
 * A ping as the service records it: one heartbeat event of the check, stored at once through the
 * HeartbeatPings port (pending until the watch has turned it into a result), and the check's next
 * deadline moved in the database (the HeartbeatDeadlines port), so no watch sharing the
 * database claims a window the ping closed. Everything else a ping means for monitoring (a result,
 * the check's status, a recovery alert) follows from the stored event on the scheduler's next tick
 * (watch.ts), so a ping answered here is never lost to a restart, and a service running without the
 * scheduler still records pings.
 */
import { randomUUID } from 'node:crypto';
import { HeartbeatConfig, type HeartbeatEvent } from '@vigil/schema';
import type { Repositories } from '../repositories.js';
import { pingState } from './deadlines.js';
import type { PingTarget } from './tokens.js';

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
  /** Settles once the event is stored (committed): false when its id was stored already. */
  readonly stored: Promise<boolean>;
  /**
   * Settles once the deadline's move has committed: false when the check has no deadline yet (no
   * watch has read it since it was created; the watch counts from this ping when it does) or a later
   * ping moved it already.
   */
  readonly deadlineMoved: Promise<boolean>;
}

/**
 * Records a ping; undefined when no heartbeat monitor has the token. `target` is the token's monitor
 * when the caller already looked it up in the same synchronous turn. Called inside the caller's
 * group commit (`writeBatched`), the event and the deadline's move commit together (on SQLite both
 * ports join the open group commit, in this turn).
 */
export function recordPing(
  repositories: Pick<Repositories, 'pingTokens' | 'ports'>,
  input: PingInput,
  target: PingTarget | undefined = repositories.pingTokens.checkOfToken(input.token),
): RecordedPing | undefined {
  if (!target) return undefined;
  const { accountId, check } = target;
  const checkId = String(check.id);
  const anchorMs = repositories.pingTokens.anchorMsOf(accountId, check);
  const heartbeat = HeartbeatConfig.safeParse(check['heartbeat']);
  const event: HeartbeatEvent = {
    id: randomUUID(),
    state: heartbeat.success ? pingState(heartbeat.data, anchorMs, input.atMs, input.failed) : input.failed ? 'FAILING' : 'RECEIVED',
    timestamp: new Date(input.atMs).toISOString(),
    source: input.source.slice(0, PING_SOURCE_MAX),
    userAgent: input.userAgent.slice(0, PING_USER_AGENT_MAX),
  };
  const stored = repositories.ports.heartbeatPings.record({ accountId, checkId, id: event.id, atMs: input.atMs, doc: JSON.stringify(event) });
  return { event, stored, deadlineMoved: repositories.ports.heartbeatDeadlines.recordPing(accountId, checkId, input.atMs) };
}
