/**
 * What this replica heard agents say, written to the agent-presence port (store/agent-ports.ts), where
 * every replica reads it. A poll already costs a write (its claim), so presence adds at most one
 * write per agent a second: an agent's first poll, or one that says who it is differently (another
 * queue, key or version), is written at once; later polls and reports within a second of the last
 * write are written together when that second is over, so the database is never more than a second
 * behind what an agent last said. Liveness spans two lease periods (at least 2 s), far longer.
 */
import type { AgentPoll } from '@vigil/schema';
import type { AgentPresence, AgentPresenceRecord, AgentSighting } from '../store/agent-ports.js';

/** The least time between two presence writes of one agent. */
export const PRESENCE_WRITE_EVERY_MS = 1000;

interface Heard {
  readonly queue: string;
  readonly agentId: string;
  /** What it said at its last poll here; undefined when it only reported here (it polled another replica). */
  sighting: AgentSighting | undefined;
  /** Its last report here, for an agent known only by its reports. */
  reportedMs: number;
  /** performance.now() of the last write started. */
  writtenAt: number;
  /** Heard from since the last write started. */
  dirty: boolean;
  writing: Promise<void> | undefined;
  timer: NodeJS.Timeout | undefined;
}

export class AgentSightings {
  readonly #presence: AgentPresence;
  readonly #log: (line: string) => void;
  readonly #heard = new Map<string, Heard>();
  /** Keys revoked through this replica: its word on their agents may be newer than the database's. */
  readonly #revokedKeys = new Set<string>();
  #stopped = false;

  constructor(presence: AgentPresence, log: (line: string) => void) {
    this.#presence = presence;
    this.#log = log;
  }

  /**
   * An agent polled: resolves once its sighting is stored when it had to be written now (first heard,
   * or who it is changed), else at once, leaving the write to the end of its second. Never rejects: a
   * failed write is logged, and the next one says it again.
   */
  polled(sighting: AgentSighting): Promise<void> {
    const heard = this.#entry(sighting.queue, sighting.agentId);
    const before = heard.sighting;
    const changed = before === undefined || before.location !== sighting.location || before.agentVersion !== sighting.agentVersion || before.wireVersion !== sighting.wireVersion || before.privateLocation?.keyId !== sighting.privateLocation?.keyId;
    heard.sighting = before !== undefined && before.lastSeenMs > sighting.lastSeenMs ? before : sighting;
    return this.#schedule(heard, changed);
  }

  /** An agent's poll ended at `nowMs`: it is seen then, saying what it said when the poll began. */
  pollEnded(queue: string, agentId: string, nowMs: number): void {
    const heard = this.#heard.get(keyOf(queue, agentId));
    if (!heard?.sighting || heard.sighting.lastSeenMs >= nowMs) return;
    heard.sighting = { ...heard.sighting, lastSeenMs: nowMs };
    void this.#schedule(heard, false);
  }

  /** An agent reported through this replica at `nowMs` (it may poll another one). */
  reported(queue: string, agentId: string, nowMs: number): void {
    const heard = this.#entry(queue, agentId);
    if (heard.sighting) {
      if (heard.sighting.lastSeenMs < nowMs) heard.sighting = { ...heard.sighting, lastSeenMs: nowMs };
    } else {
      heard.reportedMs = Math.max(heard.reportedMs, nowMs);
    }
    void this.#schedule(heard, false);
  }

  /** A private location's key was revoked through this replica: its agents are gone. */
  revoked(keyId: string): void {
    this.#revokedKeys.add(keyId);
  }

  /**
   * The agents the database lists (`stored`, of `accountId`'s view), each as this replica last heard
   * it where that is newer than what the database holds (at most a second of it is not written yet).
   */
  over(stored: readonly AgentPresenceRecord[], accountId: string | undefined): AgentPresenceRecord[] {
    const known = new Map(stored.map((record) => [keyOf(record.queue, record.agentId), record]));
    for (const sighting of this.#latest()) {
      if (sighting.privateLocation !== undefined && sighting.privateLocation.accountId !== accountId) continue;
      const key = keyOf(sighting.queue, sighting.agentId);
      const before = known.get(key);
      if (before && before.lastSeenMs >= sighting.lastSeenMs) continue;
      // Its key as the database judged it when it is the same key; one revoked here is not held.
      const keyId = sighting.privateLocation?.keyId;
      const keyHeld = keyId !== undefined && this.#revokedKeys.has(keyId) ? false : before?.privateLocation?.keyId === keyId ? (before?.keyHeld ?? true) : true;
      known.set(key, { ...sighting, keyHeld });
    }
    return [...known.values()];
  }

  /** The agents heard here with this private location's key. */
  holdersOfKey(keyId: string): Array<{ agentId: string; queue: string }> {
    return this.#latest()
      .filter((sighting) => sighting.privateLocation?.keyId === keyId)
      .map((sighting) => ({ agentId: sighting.agentId, queue: sighting.queue }));
  }

  /** Forgets agents last heard here before `seenBeforeMs` (the database forgets them too). */
  forget(seenBeforeMs: number): void {
    for (const [key, heard] of this.#heard) {
      const last = heard.sighting?.lastSeenMs ?? heard.reportedMs;
      if (last < seenBeforeMs && !heard.writing) {
        clearTimeout(heard.timer);
        this.#heard.delete(key);
      }
    }
  }

  /** Writes nothing more (the service is closing its database). */
  stop(): void {
    this.#stopped = true;
    for (const heard of this.#heard.values()) {
      clearTimeout(heard.timer);
      heard.timer = undefined;
    }
  }

  start(): void {
    this.#stopped = false;
  }

  #latest(): AgentSighting[] {
    return [...this.#heard.values()].flatMap((heard) => (heard.sighting ? [heard.sighting] : []));
  }

  #entry(queue: string, agentId: string): Heard {
    const key = keyOf(queue, agentId);
    let heard = this.#heard.get(key);
    if (!heard) {
      heard = { queue, agentId, sighting: undefined, reportedMs: 0, writtenAt: Number.NEGATIVE_INFINITY, dirty: false, writing: undefined, timer: undefined };
      this.#heard.set(key, heard);
    }
    return heard;
  }

  #schedule(heard: Heard, now: boolean): Promise<void> {
    heard.dirty = true;
    if (this.#stopped) return Promise.resolve();
    // The write under way is followed by one of what was heard since (its end looks at `dirty`).
    if (heard.writing) return now ? heard.writing : Promise.resolve();
    const wait = now ? 0 : heard.writtenAt + PRESENCE_WRITE_EVERY_MS - performance.now();
    if (wait > 0) {
      heard.timer ??= setTimeout(() => {
        heard.timer = undefined;
        void this.#write(heard);
      }, wait).unref();
      return Promise.resolve();
    }
    clearTimeout(heard.timer);
    heard.timer = undefined;
    return this.#write(heard);
  }

  #write(heard: Heard): Promise<void> {
    if (this.#stopped || !heard.dirty) return Promise.resolve();
    heard.dirty = false;
    heard.writtenAt = performance.now();
    const written = heard.sighting ? this.#presence.seen(heard.sighting) : this.#presence.touch(heard.queue, heard.agentId, heard.reportedMs);
    heard.writing = written
      .catch((error: unknown) => {
        if (!this.#stopped) this.#log(`vigil server: recording that agent ${heard.agentId} was seen failed: ${String((error as Error)?.stack ?? error)}`);
      })
      .finally(() => {
        heard.writing = undefined;
        if (heard.dirty) void this.#schedule(heard, false);
      });
    return heard.writing;
  }
}

/** What a poll says of its agent, with who it is by its key (hub.ts's AgentIdentity). */
export function sightingOf(poll: AgentPoll, identity: Pick<AgentSighting, 'queue' | 'location' | 'privateLocation'>, nowMs: number): AgentSighting {
  return {
    agentId: poll.agentId,
    queue: identity.queue,
    location: identity.location,
    ...(identity.privateLocation ? { privateLocation: identity.privateLocation } : {}),
    agentVersion: poll.agentVersion,
    wireVersion: poll.wireVersion,
    runsInFlight: poll.leases.length,
    lastSeenMs: nowMs,
  };
}

function keyOf(queue: string, agentId: string): string {
  return `${queue}\n${agentId}`;
}
