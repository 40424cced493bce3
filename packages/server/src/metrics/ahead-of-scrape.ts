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
 * behind one slice at most, never behind the whole pass.
 *
 * A pass that the next scrape cuts short leaves that scrape the rest to write; on a busy machine,
 * with short intervals or many checks, the slices of a pass can take longer than the time left at
 * AHEAD_AT. So where the pass is due follows how passes ended: a pass cut short starts the next
 * one EARLIER_BY of the interval sooner, down to EARLIEST_AT; a pass that ended puts the next one
 * where it would end by ENDS_BY, never later than AHEAD_AT.
 */

/** Where in the interval, from the last scrape, the pass is due: late enough that most of the interval's results are in, early enough to be done before the next scrape. */
export const AHEAD_AT = 0.85;
/** The earliest the pass is due, however slow passes were: half the interval's results still come after it. */
export const EARLIEST_AT = 0.5;
/** How much sooner in the interval the next pass starts after one was cut short. */
export const EARLIER_BY = 0.1;
/** Where in the interval a pass should have ended, leaving the rest for a slice late by the machine's load. */
const ENDS_BY = 0.95;

/** Below this, scrapes come too close for a pass in between to be worth a timer. */
const SHORTEST_INTERVAL_MS = 50;

/** A pass: each call writes one slice and says whether more is left. */
export type Pass = () => boolean;

export class AheadOfScrape {
  readonly #start: () => Pass | undefined;
  readonly #now: () => number;
  #lastScrapeAt: number | undefined;
  #timer: NodeJS.Timeout | undefined;
  #slice: NodeJS.Immediate | undefined;
  /** Where in the interval the next pass is due (AHEAD_AT until a pass was cut short). */
  #dueAt = AHEAD_AT;
  /** The interval the running pass was timed in, while one runs. */
  #passInterval: number | undefined;

  /** `start` begins a pass, or says there is nothing to do (undefined). */
  constructor(start: () => Pass | undefined, now: () => number = () => performance.now()) {
    this.#start = start;
    this.#now = now;
  }

  /** Where in the interval the next pass is due, from the last scrape (AHEAD_AT or sooner). */
  get dueAt(): number {
    return this.#dueAt;
  }

  /** A scrape began: any pass left is cancelled, and the next one is due within the interval measured. */
  scraped(): void {
    // Still running: cut short, so the next pass starts sooner.
    if (this.#slice) this.#dueAt = Math.max(EARLIEST_AT, this.#dueAt - EARLIER_BY);
    this.stop();
    const now = this.#now();
    const interval = this.#lastScrapeAt === undefined ? undefined : now - this.#lastScrapeAt;
    this.#lastScrapeAt = now;
    if (interval === undefined || interval < SHORTEST_INTERVAL_MS) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      const pass = this.#start();
      this.#passInterval = interval;
      if (pass) this.#run(pass);
    }, interval * this.#dueAt);
    // A pass due is never a reason to keep the process alive.
    this.#timer.unref();
  }

  stop(): void {
    if (this.#timer) clearTimeout(this.#timer);
    if (this.#slice) clearImmediate(this.#slice);
    this.#timer = undefined;
    this.#slice = undefined;
    this.#passInterval = undefined;
  }

  #run(pass: Pass): void {
    this.#slice = setImmediate(() => {
      this.#slice = undefined;
      if (pass()) this.#run(pass);
      else this.#ended();
    });
    // Not unref'd: with only unref'd immediates left, the event loop waits in its poll for the next
    // timer or socket before it runs them, so each slice waited for unrelated work to wake the
    // loop (about 60 ms a slice when that came every 50 ms; a pass of 40 slices never finished
    // within 75 ms, and on an idle service it would wait for the next request). A started pass
    // keeps the process for its few milliseconds of slices.
  }

  /** The pass wrote all it had: the next one is due where it would end by ENDS_BY, as this one took. */
  #ended(): void {
    const interval = this.#passInterval;
    this.#passInterval = undefined;
    if (interval === undefined || this.#lastScrapeAt === undefined) return;
    const endedAt = (this.#now() - this.#lastScrapeAt) / interval;
    this.#dueAt = Math.min(AHEAD_AT, Math.max(EARLIEST_AT, this.#dueAt + ENDS_BY - endedAt));
  }
}
