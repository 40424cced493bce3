/**
 * Group commit for the state document. Every apply step must be durable before the call it guards
 * (the journal entry) and right after it (the outcome), but writing a multi-megabyte document once
 * per step would dominate a large apply. Steps that arrive while a write is in flight are folded
 * into the next single write; each caller still waits until a write containing its change is done.
 */
import type { StateDocument, StateLock } from '../state/index.js';

export class StateWriter {
  #document: StateDocument;
  readonly #lock: StateLock;
  #inFlight: Promise<void> | undefined;
  #queued: Promise<void> | undefined;
  #failure: unknown;

  constructor(lock: StateLock, document: StateDocument) {
    this.#lock = lock;
    this.#document = document;
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
