import type { AttemptSignal } from './attempt-signal.js';

/**
 * The per-attempt timeout of one transport, kept with a single timer.
 *
 * A timer per attempt (setTimeout, then clearTimeout when the response is in) was a few µs of every
 * call: a `Timeout` object, and in a sequential loop its timer list created, queued, scheduled with
 * libuv and removed again each time. Every attempt of a transport has the same timeout, so deadlines
 * come due in the order the attempts start: a queue in start order and one timer set for its oldest
 * entry do the same job. The timer is left armed when the queue empties, unreferenced so it keeps no
 * process alive, and is referenced again by the next attempt; when it fires it aborts what is due and
 * re-arms for the next deadline. An attempt thus costs a clock read and two array writes.
 */
export class Deadlines {
  // Parallel arrays in start order; an entry whose attempt settled has its signal cleared.
  readonly #signals: Array<AttemptSignal | undefined> = [];
  readonly #deadlines: number[] = [];
  /** Index of the oldest entry that may still be pending. */
  #head = 0;
  /** Entries dropped from the front of the arrays so far: a handle minus this is an index. */
  #dropped = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly timeoutMs: number,
    private readonly onTimeout: (signal: AttemptSignal) => void,
  ) {}

  /** Aborts `signal` (through `onTimeout`) once `timeoutMs` have passed, unless settled first. Returns the handle for `settle`. */
  start(signal: AttemptSignal): number {
    const handle = this.#dropped + this.#signals.length;
    this.#signals.push(signal);
    this.#deadlines.push(performance.now() + this.timeoutMs);
    if (this.#timer === undefined) this.#timer = setTimeout(fire, Math.min(MAX_TIMER_DELAY, this.timeoutMs), this);
    // An attempt in flight keeps the process alive until it is answered or times out, as a timer of its own would.
    else if (!this.#timer.hasRef()) this.#timer.ref();
    return handle;
  }

  /** The attempt is over; its deadline no longer applies. */
  settle(handle: number): void {
    const index = handle - this.#dropped;
    if (index < this.#head || index >= this.#signals.length) return;
    this.#signals[index] = undefined;
    if (index === this.#head) this.#skipSettled();
  }

  /** Entries held, settled ones behind the oldest pending one included; for tests. */
  get size(): number {
    return this.#signals.length;
  }

  /** Attempts not yet settled nor timed out; for tests. */
  get pending(): number {
    let count = 0;
    for (let index = this.#head; index < this.#signals.length; index++) if (this.#signals[index] !== undefined) count++;
    return count;
  }

  /** The timer's callback: aborts every attempt that is due, then waits for the next deadline. */
  expire(): void {
    this.#timer = undefined;
    const now = performance.now();
    while (this.#head < this.#signals.length && this.#deadlines[this.#head]! <= now) {
      const signal = this.#signals[this.#head];
      this.#signals[this.#head++] = undefined;
      if (signal !== undefined) this.onTimeout(signal);
    }
    this.#skipSettled();
    // An abort settles its attempt later, in a promise job; should one ever start an attempt
    // synchronously, the timer that start set is replaced by one for the oldest deadline.
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#head < this.#signals.length) {
      // Rounded up, so it never fires before the deadline; capped at what setTimeout accepts (a longer
      // delay would fire at once), firing early then only re-arms.
      const delay = Math.min(MAX_TIMER_DELAY, Math.max(1, Math.ceil(this.#deadlines[this.#head]! - now)));
      this.#timer = setTimeout(fire, delay, this);
    }
  }

  #skipSettled(): void {
    const signals = this.#signals;
    while (this.#head < signals.length && signals[this.#head] === undefined) this.#head++;
    if (this.#head === signals.length) {
      this.#dropped += signals.length;
      signals.length = 0;
      this.#deadlines.length = 0;
      this.#head = 0;
      this.#timer?.unref();
    } else if (this.#head > 1024 && this.#head * 2 > signals.length) {
      // Under steady concurrent load the queue may never empty: drop the entries behind the head now and then.
      this.#dropped += this.#head;
      signals.splice(0, this.#head);
      this.#deadlines.splice(0, this.#head);
      this.#head = 0;
    }
  }
}

/** setTimeout's largest delay; a longer one fires after 1 ms. */
const MAX_TIMER_DELAY = 2 ** 31 - 1;

function fire(deadlines: Deadlines): void {
  deadlines.expire();
}
