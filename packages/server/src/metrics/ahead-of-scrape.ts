/**
 * When `GET /metrics` writes its changed pieces ahead of the next scrape (checks.ts): once per
 * scrape interval, a while before the next scrape is due, and once more after (the top-up, below),
 * so that the scrape finds most blocks written already and writes only what changed since.
 *
 * Once per interval, not as results come: checks store results all through the interval, so a
 * block written again at each change (or each second) would cost many times the one write a
 * scrape needs; the top-up adds at most one more write of a block. The interval is the shortest of the last INTERVALS_KEPT times between two scrapes'
 * starts: one long one (a scrape Prometheus missed, or a first scrape slow on a cold service) must
 * not put the pass after the next scrape, which then writes every change itself. A pass is due at
 * AHEAD_AT of the time from the last scrape's end to the next one's expected start: a scrape that
 * waited for a core long enough to end past AHEAD_AT of the interval would otherwise have its pass
 * run while it was still being sent, before the interval's results, and leave them all to the
 * next scrape, which then took as long, and so on.
 *
 * Once a pass is done, one more (the top-up) writes at TOP_UP_AT what changed after it: results
 * keep coming through the interval's last part too, and each block holding one of them (with
 * results spread over all checks, nearly every block) was the scrape's to write again, lines and
 * copies, on the request. The top-up writes those off the request; the scrape is left with the
 * last twentieth of the interval's results instead of its last sixth or so. Only a scrape schedules
 * passes, so a service nobody scrapes does at most the pass and its top-up after its last scrape,
 * and a scrape that comes first cancels them.
 *
 * The pass runs in slices, one per turn of the event loop (setImmediate), so a request waits
 * behind one slice at most, never behind the whole pass. Before its slices it may read what changed
 * (the storage ports answer asynchronously); a scrape that comes meanwhile cancels the slices.
 */

/** Where in the interval, from the last scrape, the pass is due: late enough that most of the interval's results are in, early enough to be done before the next scrape. */
export const AHEAD_AT = 0.85;

/** Where in the same span the top-up after the pass is due: a while before the scrape, so that it is done by then. */
export const TOP_UP_AT = 0.95;

/** Below this, scrapes come too close for a pass in between to be worth a timer. */
const SHORTEST_INTERVAL_MS = 50;

/** Closer than this to the next scrape a top-up does not begin: it could not end before it. */
const LEAST_TIME_LEFT_FOR_TOP_UP_MS = 20;

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
  /** When the pending pass's top-up is due and the next scrape expected (`now()`'s clock); undefined when none is. */
  #topUp: { at: number; nextScrapeAt: number } | undefined;
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
    this.#schedule(now, interval);
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
    this.#schedule(now, left);
  }

  /** The pass at AHEAD_AT of the `span` from `from` to the next scrape, and its top-up at TOP_UP_AT of it. */
  #schedule(from: number, span: number): void {
    this.#topUp = { at: from + span * TOP_UP_AT, nextScrapeAt: from + span };
    this.#timeBegin(span * AHEAD_AT);
  }

  /** Begins a pass in `inMs`, unless its timer fires after `latest` (a busy event loop fires it late, into the scrape). */
  #timeBegin(inMs: number, latest = Number.POSITIVE_INFINITY): void {
    const generation = this.#generation;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      if (this.#now() > latest) return;
      this.#passing = true;
      const begun = this.#start();
      if (!(begun instanceof Promise)) {
        if (begun) this.#run(begun);
        else this.#ended(false);
        return;
      }
      begun.then(
        (pass) => {
          if (generation !== this.#generation) return;
          if (pass) this.#run(pass);
          else this.#ended(false);
        },
        // A pass that could not read what changed is skipped: the scrape reads it, and reports a failure.
        () => {
          if (generation === this.#generation) this.#ended(false);
        },
      );
    }, inMs);
    // A pass due is never a reason to keep the process alive.
    this.#timer.unref();
  }

  /** A pass ended; `wrote`: it had slices to run (one with nothing to do has no top-up either). */
  #ended(wrote: boolean): void {
    this.#passing = false;
    const topUp = this.#topUp;
    this.#topUp = undefined;
    if (!wrote || topUp === undefined) return;
    const now = this.#now();
    const latest = topUp.nextScrapeAt - LEAST_TIME_LEFT_FOR_TOP_UP_MS;
    if (now > latest) return;
    this.#timeBegin(Math.max(0, topUp.at - now), latest);
  }

  stop(): void {
    this.#generation++;
    this.#interval = undefined;
    this.#passing = false;
    this.#topUp = undefined;
    if (this.#timer) clearTimeout(this.#timer);
    if (this.#slice) clearImmediate(this.#slice);
    this.#timer = undefined;
    this.#slice = undefined;
  }

  #run(pass: Pass): void {
    this.#slice = setImmediate(() => {
      this.#slice = undefined;
      if (pass()) this.#run(pass);
      else this.#ended(true);
    });
    // Not unref'd: with only unref'd immediates left, the event loop waits in its poll for the next
    // timer or socket before it runs them, so each slice waited for unrelated work to wake the
    // loop (about 60 ms a slice when that came every 50 ms; a pass of 40 slices never finished
    // within 75 ms, and on an idle service it would wait for the next request). A started pass
    // keeps the process for its few milliseconds of slices.
  }
}
