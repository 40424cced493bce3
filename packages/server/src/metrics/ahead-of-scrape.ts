/**
 * When `GET /metrics` writes its changed pieces ahead of the next scrape (checks.ts): once per
 * scrape interval, a while before the next scrape is due, so that the scrape finds most blocks
 * written already and writes only what changed since.
 *
 * Once per interval, not as results come: checks store results all through the interval, so a
 * block written again at each change (or each second) would cost many times the one write a
 * scrape needs. The interval is the time between the last two scrapes; a pass is due at
 * AHEAD_AT of it after the last scrape. Only a scrape schedules a pass, so a service nobody
 * scrapes does at most one after its last scrape, and a scrape that comes first cancels the pass.
 *
 * The pass runs in slices, one per turn of the event loop (setImmediate), so a request waits
 * behind one slice at most, never behind the whole pass. Before its slices it may read what changed
 * (the storage ports answer asynchronously); a scrape that comes meanwhile cancels the slices.
 */

/** Where in the interval, from the last scrape, the pass is due: late enough that most of the interval's results are in, early enough to be done before the next scrape. */
export const AHEAD_AT = 0.85;

/** Below this, scrapes come too close for a pass in between to be worth a timer. */
const SHORTEST_INTERVAL_MS = 50;

/** A pass: each call writes one slice and says whether more is left. */
export type Pass = () => boolean;

export class AheadOfScrape {
  readonly #start: () => Pass | undefined | Promise<Pass | undefined>;
  readonly #now: () => number;
  #lastScrapeAt: number | undefined;
  #timer: NodeJS.Timeout | undefined;
  #slice: NodeJS.Immediate | undefined;
  /** Counts the scrapes and stops: a pass whose start resolves after either has no slices. */
  #generation = 0;

  /** `start` begins a pass, or says there is nothing to do (undefined). */
  constructor(start: () => Pass | undefined | Promise<Pass | undefined>, now: () => number = () => performance.now()) {
    this.#start = start;
    this.#now = now;
  }

  /** A scrape began: any pass left is cancelled, and the next one is due within the interval measured. */
  scraped(): void {
    this.stop();
    const now = this.#now();
    const interval = this.#lastScrapeAt === undefined ? undefined : now - this.#lastScrapeAt;
    this.#lastScrapeAt = now;
    if (interval === undefined || interval < SHORTEST_INTERVAL_MS) return;
    const generation = this.#generation;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      const begun = this.#start();
      if (!(begun instanceof Promise)) {
        if (begun) this.#run(begun);
        return;
      }
      begun.then(
        (pass) => {
          if (pass && generation === this.#generation) this.#run(pass);
        },
        // A pass that could not read what changed is skipped: the scrape reads it, and reports a failure.
        () => undefined,
      );
    }, interval * AHEAD_AT);
    // A pass due is never a reason to keep the process alive.
    this.#timer.unref();
  }

  stop(): void {
    this.#generation++;
    if (this.#timer) clearTimeout(this.#timer);
    if (this.#slice) clearImmediate(this.#slice);
    this.#timer = undefined;
    this.#slice = undefined;
  }

  #run(pass: Pass): void {
    this.#slice = setImmediate(() => {
      this.#slice = undefined;
      if (pass()) this.#run(pass);
    });
    // Not unref'd: with only unref'd immediates left, the event loop waits in its poll for the next
    // timer or socket before it runs them, so each slice waited for unrelated work to wake the
    // loop (about 60 ms a slice when that came every 50 ms; a pass of 40 slices never finished
    // within 75 ms, and on an idle service it would wait for the next request). A started pass
    // keeps the process for its few milliseconds of slices.
  }
}
