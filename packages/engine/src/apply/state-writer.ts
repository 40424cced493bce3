/**
 * Group commit for the state document. Every apply step must be durable before the call it guards
 * (the journal entry) and right after it (the outcome). Steps that arrive while a write is in flight
 * are folded into the next single write; each caller still waits until a write containing its change
 * is done.
 *
 * With a backend that logs steps (`StateLock.appendSteps`), a write appends just the new steps, so a
 * step costs the same in a 10,000-resource project as in a 10-resource one; rewriting the whole
 * document per write made a 10,000-create apply quadratic (11 minutes). `checkpoint()` writes the
 * whole document once the apply is done. Other changes (`update`) are written whole.
 */
import { applyJournalStep } from '../state/index.js';
import type { Address, JournalEntry, JournalStep, StateDocument, StateLock, StateResource } from '../state/index.js';

export class StateWriter {
  #document: StateDocument;
  readonly #lock: StateLock;
  #inFlight: Promise<void> | undefined;
  #queued: Promise<void> | undefined;
  #failure: unknown;
  /** Steps made since the last write started; what the next append carries. */
  #steps: JournalStep[] = [];
  /** Set by `update()`: the next write must be whole, as its change is not a journal step. */
  #wholeWriteDue = false;
  /** Steps are on disk only as appended steps, not yet in a whole document. */
  #appendedSinceWholeWrite = false;

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
    await this.#step({ type: 'begin', entry });
  }

  /** Resolves a pending operation, recording its outcome (`undefined` removes the resource). */
  async complete(id: string, outcome?: { address: Address; resource: StateResource | undefined }): Promise<void> {
    await this.#step(outcome ? { type: 'complete', id, address: outcome.address, resource: outcome.resource ?? null } : { type: 'complete', id });
  }

  get document(): StateDocument {
    return this.#document;
  }

  /** Applies `change` now and resolves once a write that includes it is on disk. */
  async update(change: (document: StateDocument) => StateDocument): Promise<void> {
    if (this.#failure !== undefined) throw this.#failure;
    this.#document = change(this.#document);
    this.#wholeWriteDue = true;
    await this.#flush();
  }

  /**
   * Writes the whole document if steps were only appended since the last whole write, so the state
   * file reads complete on its own again. Skipping it loses nothing (the backend replays its log).
   */
  async checkpoint(): Promise<void> {
    if (this.#failure !== undefined) throw this.#failure;
    await Promise.all([this.#inFlight, this.#queued]);
    if (!this.#appendedSinceWholeWrite) return;
    this.#wholeWriteDue = true;
    await this.#flush();
  }

  async #step(step: JournalStep): Promise<void> {
    if (this.#failure !== undefined) throw this.#failure;
    try {
      applyJournalStep(this.#document, step);
    } catch (error) {
      throw new Error(`this is a bug in vigil: ${(error as Error).message}`, { cause: error });
    }
    this.#steps.push(step);
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
    const steps = this.#steps;
    const whole = this.#wholeWriteDue || !this.#lock.appendSteps || this.#lock.canAppendSteps !== true;
    // Frozen now, together with taking the steps: the document is edited in place while the write
    // waits, and a checkpoint holding steps that the next append logs again would replay them twice.
    // (Entries are replaced, never edited, so copying the two containers freezes it.)
    const snapshot = whole ? { ...this.#document, resources: { ...this.#document.resources }, journal: [...this.#document.journal] } : undefined;
    this.#steps = [];
    this.#wholeWriteDue = false;
    try {
      if (snapshot) await this.#lock.write(snapshot);
      else await this.#lock.appendSteps!(steps);
      this.#appendedSinceWholeWrite = !whole;
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
