import { realClock, type RetryClock } from './retry.js';

/**
 * The rate-limit budget as the service itself reports it, for services that report it:
 * `x-ratelimit-remaining` (calls it will still accept in the current window) and `x-ratelimit-reset`
 * (seconds until that window ends) on every response, 429s included. `vigil server` sends them; the
 * spec leaves rate-limit headers out, so a service that sends none is paced by the token bucket alone.
 *
 * Why trust the service over the token bucket: the bucket has to assume the worst (any window, any
 * other caller), so it spreads 600 calls over a whole minute even when the service would take them
 * now. A 101-page refresh of 10,000 resources then costs ~10 s of waiting against a budget that was
 * never in danger. The service's own count is exact, and it also sees calls made with the same key by
 * other tools, which no client-side bucket can.
 *
 * The estimate is a lower bound on what the service will still accept from us: a report counts the
 * calls that reached the service before it, so every call sent after the reported one, and every
 * call still in flight, is subtracted again (some twice — erring low is the safe side). A report is
 * used only if it is fresher than the one the estimate rests on, since responses on different
 * connections can arrive out of order. Calls then leave at once while the estimate stays above
 * `reserve`; below it they wait for the reset, after which the token bucket paces until a new report
 * arrives.
 */
export class ServiceBudget {
  #remaining: number | undefined;
  #resetAt = 0;
  /** Send index of the call whose response the estimate rests on. */
  #basis = -1;
  #sent = 0;
  #inFlight = 0;

  constructor(
    private readonly reserve: number,
    private readonly clock: RetryClock = realClock,
  ) {}

  /**
   * Resolves when one call may leave, with the ticket the caller reports its response on and
   * releases when the call is over. While the service has not reported a budget, `fallback` (the
   * token bucket) decides.
   */
  async admit(fallback: (() => Promise<void>) | undefined): Promise<BudgetTicket> {
    for (;;) {
      if (this.#remaining === undefined) {
        await fallback?.();
        // A report that arrived while this call queued in the bucket governs it too.
        if (this.#remaining === undefined) break;
        continue;
      }
      if (this.#remaining > this.reserve) {
        this.#remaining -= 1;
        break;
      }
      const now = this.clock.now();
      if (now >= this.#resetAt) {
        // A new window: nothing is known of it until its first response.
        this.#remaining = undefined;
        continue;
      }
      await this.clock.sleep(Math.ceil(this.#resetAt - now));
    }
    const index = this.#sent++;
    this.#inFlight++;
    let released = false;
    return {
      observe: (headers) => this.#observe(index, headers),
      release: () => {
        if (released) return;
        released = true;
        this.#inFlight--;
      },
    };
  }

  #observe(index: number, headers: Headers): void {
    const remaining = headerNumber(headers, 'x-ratelimit-remaining');
    const reset = headerNumber(headers, 'x-ratelimit-reset');
    if (remaining === undefined || reset === undefined || index <= this.#basis) return;
    const sentSince = this.#sent - index - 1;
    const othersInFlight = this.#inFlight - 1;
    this.#remaining = Math.max(0, remaining - sentSince - othersInFlight);
    this.#resetAt = this.clock.now() + resetDelayMs(reset, this.clock.now());
    this.#basis = index;
  }
}

export interface BudgetTicket {
  /** Reports a response's headers (any status); ignored unless it carries both rate-limit headers. */
  observe(headers: Headers): void;
  /** The call is over (answered, failed or abandoned); safe to call more than once. */
  release(): void;
}

function headerNumber(headers: Headers, name: string): number | undefined {
  const text = headers.get(name);
  if (text === null || text.trim() === '') return undefined;
  const value = Number(text);
  return Number.isFinite(value) && value >= 0 ? value : undefined;
}

/**
 * Services disagree on what the reset header holds: seconds until the reset (as `vigil server` and
 * the IETF RateLimit draft send it) or the reset's Unix time in seconds (as GitHub sends it). A value
 * past a year of seconds can only be the latter.
 */
function resetDelayMs(reset: number, nowMs: number): number {
  const YEAR_SECONDS = 365 * 24 * 3600;
  return reset > YEAR_SECONDS ? Math.max(0, reset * 1000 - nowMs) : reset * 1000;
}
