/**
 * The abort signal of one attempt: as much of `AbortSignal` as `fetch` reads, and no more.
 *
 * Why not an `AbortController`: Node's is costly to make (~5 µs, it is built as a transferable
 * object), and undici makes every request follow a real `EventTarget` signal through
 * `setMaxListeners` and a listener list. Together that was ~30 µs of client CPU per call in a loop
 * of GETs (CPU per call against raw `fetch`: +35 µs with a controller, +6 µs with this), the largest
 * part of the client's overhead. undici deliberately accepts any signal with a boolean `aborted` and
 * `addEventListener` ("third-party AbortControllers"), and follows it the same way: aborting this one
 * aborts the request, headers or body, with `reason` as the error.
 *
 * One signal serves one attempt; it is never reset. Listeners are called once, on abort, with the
 * signal as `this` (undici's reads `this.reason`), as an `EventTarget` would.
 */
export class AttemptSignal {
  aborted = false;
  reason: unknown = undefined;
  onabort: ((this: AttemptSignal, event: Event) => void) | null = null;
  #listeners: Array<(this: AttemptSignal, event: Event) => void> | undefined;

  /** Aborts whatever follows the signal; later calls do nothing, as with `AbortController.abort`. */
  abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    const listeners = this.#listeners ?? [];
    this.#listeners = undefined;
    const event = new Event('abort');
    this.onabort?.call(this, event);
    for (const listener of listeners) listener.call(this, event);
  }

  addEventListener(type: string, listener: ((this: AttemptSignal, event: Event) => void) | null): void {
    if (type !== 'abort' || typeof listener !== 'function' || this.aborted) return;
    (this.#listeners ??= []).push(listener);
  }

  removeEventListener(type: string, listener: ((this: AttemptSignal, event: Event) => void) | null): void {
    if (type !== 'abort' || this.#listeners === undefined) return;
    const index = this.#listeners.indexOf(listener as (this: AttemptSignal, event: Event) => void);
    if (index >= 0) this.#listeners.splice(index, 1);
  }

  throwIfAborted(): void {
    if (this.aborted) throw this.reason;
  }

  // undici raises the listener limit of every signal it follows through node:events, whose
  // getMaxListeners/setMaxListeners look for these methods on an object that is not an EventTarget
  // and otherwise throw an error (which undici catches, but building it costs). With one listener
  // there is no limit to raise.
  getMaxListeners(): number {
    return Number.POSITIVE_INFINITY;
  }

  setMaxListeners(): void {}

  /** The signal as `fetch`'s types name it. */
  asAbortSignal(): AbortSignal {
    return this as unknown as AbortSignal;
  }
}
