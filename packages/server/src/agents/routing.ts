/**
 * The scheduler's hand-off point when agents run some locations: a claimed slot of a location run
 * in this process goes to the in-process queue, any other to the agents' queue (hub.ts).
 */
import type { RunJob, RunQueue } from '../scheduler/queue.js';
import type { AgentHub } from './hub.js';

/**
 * Which locations this process runs itself: those listed (`--local-locations`), or every location
 * but those listed (by default, the locations that have agent keys).
 */
export type LocalLocations = { readonly only: ReadonlySet<string> } | { readonly except: ReadonlySet<string> };

export function isLocal(locations: LocalLocations, location: string): boolean {
  return 'only' in locations ? locations.only.has(location) : !locations.except.has(location);
}

export class LocationRoutedQueue implements RunQueue {
  readonly #local: RunQueue;
  readonly #hub: AgentHub;
  readonly #localLocations: LocalLocations;

  constructor(local: RunQueue, hub: AgentHub, localLocations: LocalLocations) {
    this.#local = local;
    this.#hub = hub;
    this.#localLocations = localLocations;
  }

  submit(job: RunJob): void {
    if (isLocal(this.#localLocations, job.slot.location)) this.#local.submit(job);
    else this.#hub.enqueue(job);
  }

  get pending(): number {
    return this.#local.pending;
  }

  drain(): Promise<void> {
    return this.#local.drain();
  }
}
