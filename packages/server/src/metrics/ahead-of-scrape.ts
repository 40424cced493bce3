/**
 * When `GET /metrics` writes its changed pieces ahead of the next scrape (checks.ts): once per
 * scrape interval, a while before the next scrape is due, so that the scrape finds most blocks
 * written already and writes only what changed since.
 *
 * Once per interval, not as results come: checks store results all through the interval, so a
 * block written again at each change (or each second) would cost many times the one write a
 * scrape needs. The interval is the shortest of the last INTERVALS_KEPT times between two scrapes'
 * starts: one long one (a scrape Prometheus missed, or a first scrape slow on a cold service) must
 * not put the pass after the next scrape, which then writes every change itself. A pass is due at
 * AHEAD_AT of the time from the last scrape's end to the next one's expected start: a scrape that
 * waited for a core long enough to end past AHEAD_AT of the interval would otherwise have its pass
 * run while it was still being sent, before the interval's results, and leave them all to the
 * next scrape, which then took as long, and so on. Only a scrape schedules a pass, so a service
 * nobody scrapes does at most one after its last scrape, and a scrape that comes first cancels it.
 *
 * The pass runs in slices, one per turn of the event loop (setImmediate), so a request waits
 * behind one slice at most, never behind the whole pass. Before its slices it may read what changed
 * (the storage ports answer asynchronously); a scrape that comes meanwhile cancels the slices.
 */

/** Where in the interval, from the last scrape, the pass is due: late enough that most of the interval's results are in, early enough to be done before the next scrape. */
export const AHEAD_AT = 0.85;

/** Below this, scrapes come too close for a pass in between to be worth a timer. */
const SHORTEST_INTERVAL_MS = 50;

/** How many of the last intervals the shortest is taken of. */
const INTERVALS_KEPT = 3;

/** A pass: each call writes one slice and says whether more is left. */
export type Pass = () => boolean;

export class AheadOfScrape {
  readonly #start: () => Pass | undefined | Promise<Pass | undefined>;
  readonly #now: () => number;
  #lastScrapeAt: number | undefined;
  /** The last intervals between two scrapes' starts, oldest first. */
  readonly #intervals: number[] = [];
  /** The interval the pending pass was timed with; undefined when no pass is due. */
  #interval: number | undefined;
  #timer: NodeJS.Timeout | undefined;
  #slice: NodeJS.Immediate | undefined;
  /** Whether a pass began (its timer fired) and has not ended. */
  #passing = false;
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
    if (this.#lastScrapeAt !== undefined) {
      this.#intervals.push(now - this.#lastScrapeAt);
      if (this.#intervals.length > INTERVALS_KEPT) this.#intervals.shift();
    }
    this.#lastScrapeAt = now;
    const interval = this.#intervals.length === 0 ? undefined : Math.min(...this.#intervals);
    if (interval === undefined || interval < SHORTEST_INTERVAL_MS) return;
    this.#interval = interval;
    this.#schedule(interval * AHEAD_AT);
  }

  /**
   * The last scrape is sent: its pass is due at AHEAD_AT of the time left to the next scrape,
   * later than timed at its start by a share of how long it took. A pass that ran while the scrape
   * was sent found little to write (the interval's results come after): another is timed then.
   */
  sent(): void {
    if (this.#lastScrapeAt === undefined || this.#interval === undefined || this.#passing) return;
    const now = this.#now();
    const left = this.#lastScrapeAt + this.#interval - now;
    if (left < SHORTEST_INTERVAL_MS) return;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#schedule(left * AHEAD_AT);
  }

  #schedule(inMs: number): void {
    const generation = this.#generation;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#passing = true;
      const begun = this.#start();
      if (!(begun instanceof Promise)) {
        if (begun) this.#run(begun);
        else this.#passing = false;
        return;
      }
      begun.then(
        (pass) => {
          if (generation !== this.#generation) return;
          if (pass) this.#run(pass);
          else this.#passing = false;
        },
        // A pass that could not read what changed is skipped: the scrape reads it, and reports a failure.
        () => {
          if (generation === this.#generation) this.#passing = false;
        },
      );
    }, inMs);
    // A pass due is never a reason to keep the process alive.
    this.#timer.unref();
  }

  stop(): void {
    this.#generation++;
    this.#interval = undefined;
    this.#passing = false;
    if (this.#timer) clearTimeout(this.#timer);
    if (this.#slice) clearImmediate(this.#slice);
    this.#timer = undefined;
    this.#slice = undefined;
  }

  #run(pass: Pass): void {
    this.#slice = setImmediate(() => {
      this.#slice = undefined;
      if (pass()) this.#run(pass);
      else this.#passing = false;
    });
    // Not unref'd: with only unref'd immediates left, the event loop waits in its poll for the next
    // timer or socket before it runs them, so each slice waited for unrelated work to wake the
    // loop (about 60 ms a slice when that came every 50 ms; a pass of 40 slices never finished
    // within 75 ms, and on an idle service it would wait for the next request). A started pass
    // keeps the process for its few milliseconds of slices.
  }
}
