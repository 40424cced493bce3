/**
 * Group commit for the state document. Every apply step must be durable before the call it guards
 * (the journal entry) and right after it (the outcome), but writing a multi-megabyte document once
 * per step would dominate a large apply. Steps that arrive while a write is in flight are folded
 * into the next single write; each caller still waits until a write containing its change is done.
 */
import type { Address, JournalEntry, StateDocument, StateLock, StateResource } from '../state/index.js';

export class StateWriter {
  #document: StateDocument;
  readonly #lock: StateLock;
  #inFlight: Promise<void> | undefined;
  #queued: Promise<void> | undefined;
  #failure: unknown;

  /** Takes ownership of `document`: the journal steps below edit it in place. */
  constructor(lock: StateLock, document: StateDocument) {
    this.#lock = lock;
    this.#document = { ...document, resources: { ...document.resources }, journal: [...document.journal] };
  }

  /**
   * Records a pending operation and waits until it is on disk. Edits in place rather than through
   * the pure journal helpers: copying 10,000 resources for each of 10,000 steps is quadratic, and
   * serialisation is synchronous, so a write never sees a half-made edit.
   */
  async begin(entry: JournalEntry): Promise<void> {
    if (this.#failure !== undefined) throw this.#failure;
    const clash = this.#document.journal.find((pending) => pending.address === entry.address || pending.id === entry.id);
    if (clash) throw new Error(`this is a bug in vigil: ${entry.operation} of ${entry.address} started while ${clash.operation} ${clash.id} is pending`);
    this.#document.journal.push(entry);
    await this.#flush();
  }

  /** Resolves a pending operation, recording its outcome (`undefined` removes the resource). */
  async complete(id: string, outcome?: { address: Address; resource: StateResource | undefined }): Promise<void> {
    if (this.#failure !== undefined) throw this.#failure;
    const index = this.#document.journal.findIndex((pending) => pending.id === id);
    if (index < 0) throw new Error(`this is a bug in vigil: no pending journal entry ${id}`);
    this.#document.journal.splice(index, 1);
    if (outcome) {
      if (outcome.resource) this.#document.resources[outcome.address] = outcome.resource;
      else delete this.#document.resources[outcome.address];
    }
    await this.#flush();
  }

  get document(): StateDocument {
    return this.#document;
  }

  /** Applies `change` now and resolves once a write that includes it is on disk. */
  async update(change: (document: StateDocument) => StateDocument): Promise<void> {
    if (this.#failure !== undefined) throw this.#failure;
    this.#document = change(this.#document);
    await this.#flush();
  }

  #flush(): Promise<void> {
    if (!this.#inFlight) {
      this.#inFlight = this.#write();
      return this.#inFlight;
    }
    // A write is running with an older document: queue exactly one follow-up for everyone waiting.
    if (!this.#queued) {
      this.#queued = this.#inFlight.then(
        () => this.#afterInFlight(),
        () => this.#afterInFlight(),
      );
    }
    return this.#queued;
  }

  #afterInFlight(): Promise<void> {
    this.#queued = undefined;
    this.#inFlight = this.#write();
    return this.#inFlight;
  }

  async #write(): Promise<void> {
    const snapshot = this.#document;
    try {
      await this.#lock.write(snapshot);
      // The stored copy got the next serial; keep ours in step so a later plan compares alike.
      this.#document = { ...this.#document, serial: this.#lock.serial };
    } catch (error) {
      this.#failure = error;
      throw error;
    } finally {
      if (this.#inFlight && !this.#queued) this.#inFlight = undefined;
    }
  }
}
