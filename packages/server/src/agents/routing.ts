/**
 * The scheduler's hand-off point when agents run some locations: a claimed slot of a location run
 * in this process goes to the in-process queue, any other (and every private location's) to the
 * agents' queue (hub.ts).
 */
import type { RunJob, RunQueue } from '../scheduler/queue.js';
import type { AgentHub } from './hub.js';

/**
 * The private locations a run's check names (its group's when it names none, as for `locations`).
 * Slugs never look like a data-center location (the slug pattern refuses them), so a slot whose
 * location is one of these is a private location's run.
 */
export function privateLocationsOf(check: Record<string, unknown>, group: Record<string, unknown> | undefined): string[] {
  const strings = (value: unknown) => (Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : []);
  const own = strings(check['privateLocations']);
  const ownPublic = strings(check['locations']);
  return own.length > 0 || ownPublic.length > 0 ? own : strings(group?.['privateLocations']);
}

interface QueuedRun {
  readonly accountId: string;
  readonly location: string;
  readonly check: Record<string, unknown>;
  readonly group?: Record<string, unknown> | null | undefined;
}

export function isPrivateRun(job: QueuedRun): boolean {
  return privateLocationsOf(job.check, job.group ?? undefined).includes(job.location);
}

/**
 * The agents' queue a run waits in: its location's name for a public location (one queue for the
 * whole service), `slug@account` for a private one, since two accounts may both have a private
 * location `dc-1` and each must only ever get its own runs. A public location never holds `@`.
 */
export function agentQueueOf(job: QueuedRun): string {
  return isPrivateRun(job) ? privateQueue(job.accountId, job.location) : job.location;
}

export function privateQueue(accountId: string, slug: string): string {
  return `${slug}@${accountId}`;
}

/** How a queue is named to people: `location eu-west-1`, `private location dc-1`. */
export function describeQueue(queue: string): string {
  const at = queue.indexOf('@');
  return at < 0 ? `location ${queue}` : `private location ${queue.slice(0, at)}`;
}

/**
 * Which locations this process runs itself: those listed (`--local-locations`), or every location
 * but those listed (by default, the locations that have agent keys).
 */
export type LocalLocations = { readonly only: ReadonlySet<string> } | { readonly except: ReadonlySet<string> };

export function isLocal(locations: LocalLocations, location: string): boolean {
  return 'only' in locations ? locations.only.has(location) : !locations.except.has(location);
}

/** The in-process queue as the routed queue reads it. */
export interface LocalRunQueue extends RunQueue {
  readonly running: number;
  readonly waiting: number;
  readonly superseded: number;
}

export class LocationRoutedQueue implements RunQueue {
  readonly #local: LocalRunQueue;
  readonly #hub: AgentHub;
  readonly #localLocations: LocalLocations;

  constructor(local: LocalRunQueue, hub: AgentHub, localLocations: LocalLocations) {
    this.#local = local;
    this.#hub = hub;
    this.#localLocations = localLocations;
  }

  submit(job: RunJob): void {
    // A private location's runs are its agents' alone: the service never runs them itself.
    const isPrivate = isPrivateRun({ accountId: job.slot.accountId, location: job.slot.location, check: job.check, group: job.group });
    if (!isPrivate && isLocal(this.#localLocations, job.slot.location)) this.#local.submit(job);
    else this.#hub.enqueue(job);
  }

  get pending(): number {
    return this.#local.pending;
  }

  /** Runs executing here or leased to an agent now (for `GET /metrics`, beside the in-process queue's). */
  get running(): number {
    return this.#local.running + this.#hub.counts().running;
  }

  /** Runs waiting here for a free run slot or for an agent. */
  get waiting(): number {
    return this.#local.waiting + this.#hub.counts().waiting;
  }

  get superseded(): number {
    return this.#local.superseded + this.#hub.superseded;
  }

  drain(): Promise<void> {
    return this.#local.drain();
  }
}
