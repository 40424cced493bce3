import { realClock, type RetryClock } from './retry.js';
import { ServiceBudget } from './service-budget.js';

/** A request budget: at most `requests` per `windowSeconds`, as the service's rate limit states it. */
export interface PacingOptions {
  requests: number;
  windowSeconds: number;
}

export const DEFAULT_PACING: PacingOptions = { requests: 600, windowSeconds: 60 };

/** The token bucket's shape for a budget: how many calls may leave at once, then how far apart. */
export interface BucketShape {
  burst: number;
  intervalMs: number;
}

/**
 * Derives a token bucket that stays under the budget in ANY window of `windowSeconds`, whether the
 * service counts in fixed windows, sliding windows or its own bucket: a bucket of `burst` tokens
 * refilled every `intervalMs` sends at most `burst + window / interval` calls per window.
 *
 * The burst (1 % of the budget) lets a short run of calls leave at once. A further 1 % is held in
 * reserve, because the service counts arrivals, not departures: a fixed window opens when the first
 * call ARRIVES, and a slow first call (a cold service, a loaded box) shifts every later window
 * against the client's clock. The reserve absorbs ~1 % of a window of such skew; without it, a
 * long paced run met a few 429s at a window edge. The steady pace is then 98 % of the budget:
 * 1,000 calls at 600 / 60 s take ~101 s against the 100 s bound.
 */
export function bucketShape(pacing: PacingOptions): BucketShape {
  if (!(pacing.requests >= 1) || !(pacing.windowSeconds > 0)) {
    throw new RangeError(`pacing needs requests >= 1 and windowSeconds > 0, got ${pacing.requests}/${pacing.windowSeconds}`);
  }
  const onePercent = Math.max(1, Math.floor(pacing.requests / 100));
  const burst = onePercent;
  const reserve = pacing.requests >= 10 ? onePercent : 0;
  const intervalMs = (pacing.windowSeconds * 1000) / Math.max(1, pacing.requests - burst - reserve);
  return { burst, intervalMs };
}

/**
 * A token bucket written as GCRA (the "virtual scheduling" form): instead of counting tokens it keeps
 * the theoretical time of the next free slot, so waiting callers are served strictly in arrival order
 * with one timer each and no polling.
 */
export class TokenBucket {
  private nextSlotAt = Number.NEGATIVE_INFINITY;
  private readonly toleranceMs: number;

  constructor(
    private readonly shape: BucketShape,
    private readonly clock: RetryClock = realClock,
  ) {
    this.toleranceMs = (shape.burst - 1) * shape.intervalMs;
  }

  /** Resolves when the caller may send one request. */
  async take(): Promise<void> {
    const now = this.clock.now();
    const slot = Math.max(this.nextSlotAt, now);
    const allowedAt = slot - this.toleranceMs;
    this.nextSlotAt = slot + this.shape.intervalMs;
    // Rounded up: timers truncate fractions, and a call must never leave before its slot.
    if (allowedAt > now) await this.clock.sleep(Math.ceil(allowedAt - now));
  }
}

/** Caps how many requests are in flight at once; waiters are admitted in arrival order. */
export class ConcurrencyLimiter {
  private active = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(readonly limit: number) {
    if (!(limit >= 1)) throw new RangeError(`concurrency must be >= 1, got ${limit}`);
  }

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.active >= this.limit) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.active++;
    try {
      return await task();
    } finally {
      const next = this.waiting.shift();
      // The slot passes straight to the next waiter, so `active` never dips and a newcomer cannot jump the queue.
      if (next) next();
      else this.active--;
    }
  }
}

/** The service's separate, tighter budget for `/v1/analytics/*`. */
export const DEFAULT_ANALYTICS_PACING: PacingOptions = { requests: 30, windowSeconds: 60 };

const ANALYTICS_PREFIX = '/v1/analytics/';

/**
 * Every attempt of every call goes through here: a concurrency slot, then a token, then the send.
 * The token comes last so a call leaves the moment its token allows: a call that took its token and
 * then queued for a slot would leave late, in a clump with others, and a clump after a slow spell of
 * the service can break the budget. The service counts analytics calls in their own budget and not in
 * the general one, so they take a token from their own bucket only (and may hold a slot while they
 * wait for it; vigil's plan and apply never call analytics). A retry waits for its backoff outside
 * the pacer, so a sleeping call holds neither.
 */
export class Pacer {
  private readonly bucket: TokenBucket | undefined;
  private readonly analyticsBucket: TokenBucket | undefined;
  private readonly budget: ServiceBudget | undefined;
  private readonly analyticsBudget: ServiceBudget | undefined;
  private readonly limiter: ConcurrencyLimiter;

  constructor(options: { pacing: PacingOptions | false; analyticsPacing?: PacingOptions | false; concurrency: number; clock?: RetryClock }) {
    this.bucket = options.pacing === false ? undefined : new TokenBucket(bucketShape(options.pacing), options.clock);
    this.budget = options.pacing === false ? undefined : new ServiceBudget(reserveOf(options.pacing), options.clock);
    const analytics = options.analyticsPacing ?? (options.pacing === false ? false : DEFAULT_ANALYTICS_PACING);
    this.analyticsBucket = analytics === false ? undefined : new TokenBucket(bucketShape(analytics), options.clock);
    this.analyticsBudget = analytics === false ? undefined : new ServiceBudget(reserveOf(analytics), options.clock);
    this.limiter = new ConcurrencyLimiter(options.concurrency);
  }

  /**
   * Runs `send` when the budget allows. `send` reports every response's headers through `observe`
   * (rate-limited responses too), so the service's own count of the budget steers later calls.
   */
  run<T>(path: string, send: (observe: (headers: Headers) => void) => Promise<T>): Promise<T> {
    const analytics = path.startsWith(ANALYTICS_PREFIX);
    const bucket = analytics ? this.analyticsBucket : this.bucket;
    const budget = analytics ? this.analyticsBudget : this.budget;
    // Unpaced calls skip the async wrapper: each layer is a few microtask turns on every call.
    if (!budget) return this.limiter.run(() => send(ignoreHeaders));
    return this.limiter.run(async () => {
      const ticket = await budget.admit(bucket ? () => bucket.take() : undefined);
      try {
        return await send((headers) => ticket.observe(headers));
      } finally {
        ticket.release();
      }
    });
  }
}

const ignoreHeaders = (): void => undefined;

/** Calls kept back from a reported budget: 1 % of it, as the token bucket keeps (see bucketShape). */
function reserveOf(pacing: PacingOptions): number {
  return pacing.requests >= 10 ? Math.max(1, Math.floor(pacing.requests / 100)) : 0;
}
