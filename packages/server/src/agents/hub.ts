/**
 * Where runs of locations not executed in this process go: queued (with their claimed slot) through
 * the agent-lease port (store/agent-ports.ts), handed to the agents of their location that poll for
 * them, recorded through the same path as in-process runs when an agent reports them. The runs and
 * their leases are the database's, shared by replicas: an agent may poll and report through any.
 *
 * - Leases: a job is handed with a lease of `leaseMs`; an agent renews the leases of the runs it is
 *   executing on every poll. A lease that expires goes to the next agent of the location that
 *   polls, and only the current lease's report is recorded (agent-leases.ts), so a run killed with
 *   its agent is executed once more by a peer and recorded once.
 * - Not executed: a run waiting for a lease period with no live agent of its location is recorded
 *   as not executed (notExecutedReport), never dropped silently. It moves no alert state.
 * - Agents are known by what they last said (their poll): id, location, versions, runs in flight,
 *   kept through the agent-presence port (sightings.ts), so every replica knows the agents that poll
 *   any replica. One silent for two lease periods is gone, and so is a private location's agent
 *   whose key was revoked. A run never depends on it except for the not-executed decision above,
 *   which asks whether any agent of the run's queue is live on any replica.
 * - Queues: a public location's runs wait in one queue named after it; a private location's in the
 *   queue of its account (`slug@account`, routing.ts), so an agent only ever gets its own account's runs.
 * - A revoked key (a private location's key deleted) ends the polls of its agents at once and
 *   frees the runs they held for the location's other agents.
 * - Waking: a run queued through this replica wakes its queue's waiting polls here at once; one
 *   queued or released through another replica wakes them when the store tells (`AgentLeases.onQueued`:
 *   PostgreSQL's NOTIFY on commit, SQLite's look at its newest row). A lease running out is no write
 *   anyone tells of: a waiting poll looks again at its queue's next lease end. The sweep is what is left when
 *   that word is lost: it wakes every queue with runs and a live agent, and runs at once when the
 *   store says it may have missed some (listening began, or resumed after the database went away).
 *
 * Over 400 lines on purpose: polls, reports, revocations and the sweep share the waiters and counts
 * kept here, and split apart each would reach into the others' state.
 */
import { MAX_AGENT_LEASE_MS, type AgentInfo, type AgentPoll, type RunReport } from '@vigil/schema';
import type { RunnerReport } from '@vigil/runner';
import type { RecordReport } from '../scheduler/execute.js';
import type { RunJob } from '../scheduler/queue.js';
import { AGENT_PRESENCE_RETENTION_MS, type AgentLeases, type AgentPresence, type AgentPresenceRecord, type LeasedRun } from '../store/agent-ports.js';
import type { StoragePorts, TransactionPorts } from '../store/ports.js';
import { notExecutedReport, runJobOfWire, wireJobOfRun } from './jobs.js';
import { agentQueueOf, describeQueue } from './routing.js';
import { AgentSightings, sightingOf } from './sightings.js';

/** Default lease period: long enough for a poll round trip, short enough that a lost run is re-run soon. */
export const DEFAULT_AGENT_LEASE_MS = 30_000;
/** Shorter leases would expire between an agent's polls on a busy machine. */
export const MIN_AGENT_LEASE_MS = 1000;
/** Runs of one queue given up per sweep: a backlog goes over the next sweeps. */
const WAITING_BATCH = 500;
/** The longest a poll is held open when there is nothing to hand out. */
const MAX_POLL_MS = 20_000;
/** How often a hub forgets agents not heard from for AGENT_PRESENCE_RETENTION_MS. */
const PRESENCE_PRUNE_EVERY_MS = 60_000;

export interface AgentHubOptions {
  /** The storage ports the runs, their leases and the agents' presence go through. */
  ports: Pick<StoragePorts, 'agentLeases' | 'agentPresence'>;
  /** Lease period (at most MAX_AGENT_LEASE_MS). */
  leaseMs?: number;
  now?: () => number;
  log?: (line: string) => void;
  /** Told when a run is first handed to an agent: it starts then (`GET /metrics` counts it as in-process starts). */
  onRunStarted?: (dueMs: number, nowMs: number) => void;
  /** How often the sweep runs (default: a sixth of a lease, from 50 ms to a second); tests lengthen it to see what wakes polls without it. */
  sweepEveryMs?: number;
}

/** Who an agent is by its key: the queue it serves and, for a private location's key, whose key. */
export interface AgentIdentity {
  /** The location's name, or `slug@account` for a private location (routing.ts). */
  readonly queue: string;
  /** The location it names (a private location's slug). */
  readonly location: string;
  readonly privateLocation?: { readonly accountId: string; readonly id: string; readonly keyId: string };
}

/** A report refused, for the route to answer (409 or 400). */
export class ReportRefusal extends Error {
  override readonly name = 'ReportRefusal';
  constructor(
    readonly kind: 'conflict' | 'invalid',
    message: string,
  ) {
    super(message);
  }
}

export class AgentHub {
  readonly leaseMs: number;
  readonly #leases: AgentLeases;
  readonly #presence: AgentPresence;
  readonly #sightings: AgentSightings;
  readonly #now: () => number;
  readonly #log: (line: string) => void;
  /** Polls waiting for work, by queue. */
  readonly #waiters = new Map<string, Set<() => void>>();
  /** Open polls of agents holding a private location's key, by key id: ended when it is revoked. */
  readonly #pollsByKey = new Map<string, Set<AbortController>>();
  readonly #onRunStarted: ((dueMs: number, nowMs: number) => void) | undefined;
  #superseded = 0;
  /** The database's counts as the last sweep read them, and the runs queued here since it started reading. */
  #counted = { running: 0, waiting: 0 };
  #queuedSinceCount = 0;
  /** Moves whenever a queue's runs may have become claimable: a poll that claimed nothing looks again when it moved. */
  #generation = 0;
  /** Sweeps asked for and not finished: they run one after the other. */
  #sweeps: Promise<void> = Promise.resolve();
  #sweepsPending = 0;
  #record: RecordReport | undefined;
  #timer: NodeJS.Timeout | undefined;
  readonly #sweepEveryMs: number;
  /** Ends the subscription to runs queued through any replica; set while started. */
  #stopHearingQueued: (() => void) | undefined;
  #stopped = false;
  #prunedPresenceMs = Number.NEGATIVE_INFINITY;

  constructor(options: AgentHubOptions) {
    this.#leases = options.ports.agentLeases;
    this.#presence = options.ports.agentPresence;
    this.leaseMs = options.leaseMs ?? DEFAULT_AGENT_LEASE_MS;
    if (!Number.isInteger(this.leaseMs) || this.leaseMs < MIN_AGENT_LEASE_MS || this.leaseMs > MAX_AGENT_LEASE_MS) {
      throw new RangeError(`the agent lease must be from ${MIN_AGENT_LEASE_MS / 1000} s to ${MAX_AGENT_LEASE_MS / 1000} s, not ${this.leaseMs} ms`);
    }
    this.#now = options.now ?? Date.now;
    this.#log = options.log ?? ((line) => process.stderr.write(`${line}\n`));
    this.#onRunStarted = options.onRunStarted;
    this.#sweepEveryMs = options.sweepEveryMs ?? Math.max(50, Math.min(1000, Math.floor(this.leaseMs / 6)));
    if (!Number.isInteger(this.#sweepEveryMs) || this.#sweepEveryMs < 1) throw new RangeError(`the agent sweep period must be a whole number of milliseconds of at least 1, not ${this.#sweepEveryMs}`);
    this.#sightings = new AgentSightings(this.#presence, this.#log);
  }

  /** How long a poll waits for work: a third of a lease, so an agent renews its leases in time. */
  get pollMs(): number {
    return Math.min(MAX_POLL_MS, Math.max(100, Math.floor(this.leaseMs / 3)));
  }

  /** Starts recording reports and sweeping; before, reports are refused as not ready. */
  start(record: RecordReport): void {
    this.#record = record;
    this.#stopped = false;
    this.#sightings.start();
    this.#timer = setInterval(() => {
      // A sweep slower than the period (a database that answers slowly) is not queued behind again.
      if (this.#sweepsPending === 0) void this.sweep();
    }, this.#sweepEveryMs);
    this.#timer.unref();
    this.#stopHearingQueued?.();
    this.#stopHearingQueued = this.#leases.onQueued((event) => {
      if (this.#stopped) return;
      if (event.kind === 'queued') this.#wake(event.queue);
      // Queued behind a sweep under way even so: that one may have read the queues before the runs missed.
      else void this.sweep();
    });
  }

  /** Ends every open poll (they answer no jobs) and stops sweeping. */
  stop(): void {
    this.#stopped = true;
    this.#sightings.stop();
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
    this.#stopHearingQueued?.();
    this.#stopHearingQueued = undefined;
    for (const waiters of this.#waiters.values()) for (const wake of waiters) wake();
  }

  /**
   * Queues a claimed slot for its location's agents (the scheduler's hand-off point, which does not
   * wait): its agents are woken once it is stored; a failure to store it is logged, and the slot's
   * claim keeps it from running twice.
   */
  enqueue(job: RunJob): void {
    const wire = wireJobOfRun(job);
    const queue = agentQueueOf(wire);
    this.#queuedSinceCount += 1;
    this.#leases
      .enqueue(wire, queue, this.#now())
      .then(
        (result) => {
          this.#superseded += result.superseded;
        },
        (error: unknown) => this.#log(`vigil server: queuing run ${wire.key} for an agent failed: ${String((error as Error)?.stack ?? error)}`),
      )
      .finally(() => this.#wake(queue));
    // Also now: on SQLite the run is written already in the transaction that commits it, and a poll
    // woken now claims it in that same commit instead of a turn later. A poll that finds nothing yet
    // looks again when the store has committed it (the wake above).
    this.#wake(queue);
  }

  /** Polls of `queue` waiting here for a run now (a test waits for one before it queues the run). */
  waitingPolls(queue: string): number {
    return this.#waiters.get(queue)?.size ?? 0;
  }

  /** Runs replaced while waiting by the next slot of their check and location, since this process started. */
  get superseded(): number {
    return this.#superseded;
  }

  /**
   * Runs leased to an agent and runs waiting for one, for `GET /metrics`: as the last sweep counted
   * them in the database (every replica's), at most a sweep period ago, plus the runs queued here since.
   */
  counts(): { running: number; waiting: number } {
    return { running: this.#counted.running, waiting: this.#counted.waiting + this.#queuedSinceCount };
  }

  /**
   * An agent's poll: renews its leases, then hands out up to `capacity` runs of its location,
   * waiting up to `pollMs` for one to come. Resolves to no jobs when the wait ends empty-handed, the
   * hub stops, or `signal` aborts (the agent went away: nothing is leased to it then).
   */
  async poll(poll: AgentPoll, identity: AgentIdentity, signal?: AbortSignal): Promise<LeasedRun[]> {
    const ended = new AbortController();
    const end = () => ended.abort();
    signal?.addEventListener('abort', end, { once: true });
    if (signal?.aborted) ended.abort();
    const keyId = identity.privateLocation?.keyId;
    if (keyId !== undefined) {
      let polls = this.#pollsByKey.get(keyId);
      if (!polls) this.#pollsByKey.set(keyId, (polls = new Set()));
      polls.add(ended);
    }
    try {
      // Stored before the poll waits, when it has to be at once (agent-ports.ts): then every replica knows the agent.
      await this.#sightings.polled(sightingOf(poll, identity, this.#now()));
      if (poll.leases.length > 0) await this.#leases.renew(poll.agentId, poll.leases, this.#now(), this.leaseMs);
      const deadline = this.#now() + this.pollMs;
      for (;;) {
        if (this.#stopped || ended.signal.aborted) return [];
        const generation = this.#generation;
        const jobs = poll.capacity > 0 ? await this.#claim(poll, identity.queue) : [];
        if (jobs.length > 0) return jobs;
        const left = deadline - this.#now();
        if (left <= 0) return [];
        // A run stored while the claim was under way woke nobody: look again rather than wait.
        if (generation !== this.#generation) continue;
        // A lease of the queue that runs out frees its run without a write anyone could tell of (its
        // agent went away through whichever replica): the poll looks again at that moment itself.
        const leaseEnd = poll.capacity > 0 ? await this.#leases.nextLeaseEnd(identity.queue, this.#now()) : undefined;
        const untilLeaseEnd = leaseEnd === undefined ? left : leaseEnd - this.#now();
        if (generation !== this.#generation || untilLeaseEnd <= 0) continue;
        // A wait that ran out answers no runs: a run stored meanwhile woke it (queued here, or queued
        // or released through another replica and told by the store, or found by the sweep); one
        // whose word was lost is the agent's next poll's, which claims before it waits.
        if ((await this.#waitFor(identity.queue, Math.min(left, untilLeaseEnd), ended.signal)) === 'ran-out' && untilLeaseEnd >= left) return [];
      }
    } finally {
      signal?.removeEventListener('abort', end);
      if (keyId !== undefined) {
        const polls = this.#pollsByKey.get(keyId);
        polls?.delete(ended);
        if (polls?.size === 0) this.#pollsByKey.delete(keyId);
      }
      this.#sightings.pollEnded(identity.queue, poll.agentId, this.#now());
    }
  }

  async #claim(poll: AgentPoll, queue: string): Promise<LeasedRun[]> {
    const now = this.#now();
    const leased = await this.#leases.claim(queue, poll.agentId, poll.capacity, now, this.leaseMs);
    for (const run of leased) if (run.first) this.#onRunStarted?.(run.job.dueMs, now);
    return leased;
  }

  /**
   * A private location's key was revoked (its deletion committed): the polls of its agents here end
   * now (their route answers 401), and the runs its agents held, through any replica, go to the
   * location's other agents without waiting for the leases to expire (a report of a revoked agent is
   * refused by its key anyway). The agents are gone on every replica from the commit on, since an
   * agent counts as live only while its key exists (agent-ports.ts).
   */
  revokeKey(keyId: string): void {
    for (const ended of this.#pollsByKey.get(keyId) ?? []) ended.abort();
    this.#pollsByKey.delete(keyId);
    this.#sightings.revoked(keyId);
    void this.#releaseHoldersOf(keyId);
  }

  async #releaseHoldersOf(keyId: string): Promise<void> {
    let holders = this.#sightings.holdersOfKey(keyId);
    try {
      holders = [...holders, ...(await this.#presence.holdersOfKey(keyId))];
    } catch (error) {
      this.#log(`vigil server: looking up the agents of a revoked key failed: ${String((error as Error)?.stack ?? error)}`);
    }
    if (holders.length === 0) return;
    await this.releaseLeases([...new Set(holders.map((holder) => holder.agentId))]);
    for (const queue of new Set(holders.map((holder) => holder.queue))) this.#wake(queue);
  }

  /**
   * Ends the live leases of these agents now (their key was refused after their poll was answered);
   * a failure is logged, and the leases then end when they expire.
   */
  async releaseLeases(agentIds: readonly string[]): Promise<void> {
    try {
      await this.#leases.release(agentIds, this.#now());
    } catch (error) {
      this.#log(`vigil server: releasing the leases of a revoked agent failed: ${String((error as Error)?.stack ?? error)}`);
    }
  }

  /**
   * Records an agent's report under its lease: refused (ReportRefusal) unless the lease is the
   * run's current one and the run has no result yet. The results are stored, the status updated
   * and the alert state moved exactly as for a run in this process.
   */
  async report(agentId: string, identity: AgentIdentity, leaseId: string, report: RunReport): Promise<void> {
    const record = this.#record;
    if (!record) throw new ReportRefusal('conflict', 'the service is not running its scheduler yet; report again later');
    this.#sightings.reported(identity.queue, agentId, this.#now());
    const held = await this.#leases.leased(leaseId);
    if (!held) throw new ReportRefusal('conflict', `lease ${leaseId} is not held: its run was handed to another agent after the lease expired, or it never existed; this result is not recorded`);
    const { job: wire, queue } = held;
    if (queue !== identity.queue) throw new ReportRefusal('conflict', `lease ${leaseId} is for ${describeQueue(queue)}, not ${describeQueue(identity.queue).replace(/^location /, '')}`);
    const job = runJobOfWire(wire);
    // Checked again inside the transaction that stores the results, so two reports racing for one run record one.
    const guard = async (tx: TransactionPorts) => {
      const outcome = await tx.agentLeases.complete(leaseId, report.key, this.#now());
      if (outcome.kind === 'completed') return;
      if (outcome.kind === 'other-run') throw new ReportRefusal('invalid', `lease ${leaseId} is for run ${outcome.key}, not ${report.key}`);
      if (outcome.kind === 'already-finished') {
        throw new ReportRefusal('conflict', outcome.outcome === 'reported' ? `run ${outcome.key} already has its result; this one is not recorded` : `run ${outcome.key} was recorded as ${outcome.outcome}; this result is not recorded`);
      }
      throw new ReportRefusal('conflict', `lease ${leaseId} is not held: its run was handed to another agent after the lease expired; this result is not recorded`);
    };
    // The run's identity comes from the lease, whatever the agent wrote into its tries.
    const stamp = <T extends object>(result: T): T => ({ ...result, runLocation: job.slot.location, checkId: job.slot.checkId });
    await record(job, { ...report, attempts: report.attempts.map(stamp), final: stamp(report.final) } as RunnerReport, { guard });
  }

  /** Logs a failure answered to an agent without its details (one report of several failed to store). */
  logFailure(what: string, error: unknown): void {
    this.#log(`vigil server: ${what} failed: ${String((error as Error)?.stack ?? error)}`);
  }

  /**
   * Every agent the database knows, heard through any replica, live or gone (gone: silent for two
   * lease periods, or its private location's key revoked): those of public locations, and with
   * `accountId` that account's private locations' agents. What this replica heard and has not
   * written yet (at most a second of it) is taken over the database's older word.
   */
  async agents(accountId?: string): Promise<AgentInfo[]> {
    const now = this.#now();
    return this.#sightings
      .over(await this.#presence.list(accountId), accountId)
      .map((agent) => ({
        agentId: agent.agentId,
        location: agent.location,
        agentVersion: agent.agentVersion,
        wireVersion: agent.wireVersion,
        lastSeenAt: new Date(agent.lastSeenMs).toISOString(),
        runsInFlight: agent.runsInFlight,
        state: this.#live(agent, now) ? ('live' as const) : ('gone' as const),
        ...(agent.privateLocation ? { privateLocationId: agent.privateLocation.id } : {}),
      }))
      .sort((a, b) => a.location.localeCompare(b.location) || a.agentId.localeCompare(b.agentId));
  }

  /** The agents of one private location, live or gone, with whether each is live. */
  async agentsOfPrivateLocation(accountId: string, privateLocationId: string): Promise<Array<AgentInfo & { live: boolean }>> {
    return (await this.agents(accountId))
      .filter((agent) => agent.privateLocationId === privateLocationId)
      .map((agent) => ({ ...agent, live: agent.state === 'live' }));
  }

  /**
   * Records as not executed the runs that waited a lease period or more in a location with no live
   * agent; wakes the polls of locations whose runs became claimable (an expired lease); counts the
   * runs for the gauges; prunes. Sweeps run one after the other, each as of the moment it was asked
   * for; the Promise settles when this one ended, its runs recorded (a failure is logged). Public so
   * tests can drive it.
   */
  sweep(): Promise<void> {
    const now = this.#now();
    this.#sweepsPending += 1;
    this.#sweeps = this.#sweeps
      .then(() => this.#sweepAt(now))
      .catch((error: unknown) => {
        // Once stopped, the service is closing its database under the sweep: that failure says nothing.
        if (!this.#stopped) this.#log(`vigil server: sweeping agent runs failed: ${String((error as Error)?.stack ?? error)}`);
      })
      .finally(() => {
        this.#sweepsPending -= 1;
      });
    return this.#sweeps;
  }

  async #sweepAt(now: number): Promise<void> {
    const record = this.#record;
    const open = await this.#leases.openQueues();
    // Live on any replica: an agent of the queue heard from within two lease periods, its key held.
    const live = new Set(await this.#presence.liveQueues(open, now - 2 * this.leaseMs));
    const recording: Array<Promise<void>> = [];
    for (const queue of open) {
      if (live.has(queue)) {
        this.#wake(queue);
        continue;
      }
      // Stopped meanwhile: the service is closing its database.
      if (!record || this.#stopped) continue;
      const where = describeQueue(queue);
      for (const run of await this.#leases.waiting(queue, now - this.leaseMs, now, WAITING_BATCH)) {
        const job = runJobOfWire(run.job);
        const reason =
          run.handouts > 0 ? `its agent went away and no other agent of ${where} is connected`
          : where.startsWith('private') ? `no agent of ${where} is connected`
          : `no agent of ${where} is connected and the location is not run by the service itself`;
        const recorded = record(job, notExecutedReport(job, reason, now), {
          alert: false,
          guard: async (tx) => {
            if (!(await tx.agentLeases.giveUp(run.accountId, run.key, now))) throw new ReportRefusal('conflict', 'finished meanwhile');
          },
        }).catch((error: unknown) => {
          if (!(error instanceof ReportRefusal)) this.#log(`vigil server: recording run ${run.key} as not executed failed: ${String((error as Error)?.stack ?? error)}`);
        });
        recording.push(recorded);
      }
    }
    // Recorded together, and the sweep ends once they are: the next one finds them finished.
    await Promise.all(recording);
    const queuedBefore = this.#queuedSinceCount;
    this.#counted = await this.#leases.counts(now);
    this.#queuedSinceCount -= queuedBefore;
    await this.#leases.prune(now);
    if (now - this.#prunedPresenceMs >= PRESENCE_PRUNE_EVERY_MS && !this.#stopped) {
      this.#prunedPresenceMs = now;
      await this.#presence.prune(now - AGENT_PRESENCE_RETENTION_MS);
      this.#sightings.forget(now - AGENT_PRESENCE_RETENTION_MS);
    }
  }

  #live(agent: AgentPresenceRecord, now: number): boolean {
    return agent.keyHeld && now - agent.lastSeenMs < 2 * this.leaseMs;
  }

  #wake(location: string): void {
    this.#generation += 1;
    const waiters = this.#waiters.get(location);
    if (!waiters) return;
    this.#waiters.delete(location);
    for (const wake of waiters) wake();
  }

  #waitFor(location: string, ms: number, signal: AbortSignal | undefined): Promise<'woken' | 'ran-out'> {
    return new Promise((resolve) => {
      let waiters = this.#waiters.get(location);
      if (!waiters) this.#waiters.set(location, (waiters = new Set()));
      const done = (how: 'woken' | 'ran-out') => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', woken);
        this.#waiters.get(location)?.delete(woken);
        resolve(how);
      };
      const woken = () => done('woken');
      const timer = setTimeout(() => done('ran-out'), ms);
      // Aborted counts as woken: the poll's loop sees the signal and ends.
      signal?.addEventListener('abort', woken, { once: true });
      waiters.add(woken);
    });
  }
}

