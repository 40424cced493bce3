/**
 * Rendered public status pages, kept a few seconds. A status page is busiest during an outage,
 * when every visitor reloads it at once; rendering one (90-day bars of every service from the daily
 * totals, states, incidents, escaping) costs ~5 ms of the event loop the API and the scheduler also
 * need, and its gzip ~1 ms more. A kept page is answered without either.
 *
 * What a person edits shows at once: a kept page is dropped when the page, an incident, a service,
 * a maintenance window, a check or a group was written since it was rendered (the revisions in
 * `fingerprint`). What runs produce (a check's state, today's bar) is at most MAX_AGE_MS old:
 * results arrive all the time, and re-rendering on each would keep nothing during an outage.
 */
import { BoundedMap } from '../bounded-map.js';
import { gzipBody } from './compression.js';

/** How long a rendered page answers for the state of its checks. */
export const MAX_AGE_MS = 5_000;
/** Pages kept at once: each is ~200 KB of HTML plus its gzip; the busy pages are few. */
const MAX_PAGES = 32;

export interface RenderedPage {
  readonly html: string;
  /** Its Content-Security-Policy, which names the hosts of the page's logo and favicon. */
  readonly policy: string;
  /** The same page gzipped, made on the first visitor who accepts gzip; null when too small to gain. */
  gzipped?: Uint8Array<ArrayBuffer> | null;
}

interface Kept {
  readonly page: RenderedPage;
  readonly renderedMs: number;
  readonly fingerprint: string;
}

export class RenderedPageCache {
  readonly #kept = new BoundedMap<string, Kept>(MAX_PAGES);
  readonly #fingerprint: () => string;
  readonly #now: () => number;

  /** `fingerprint` changes whenever something a page shows was written (revisions of the stores it reads). */
  constructor(fingerprint: () => string, now: () => number = Date.now) {
    this.#fingerprint = fingerprint;
    this.#now = now;
  }

  /**
   * The kept rendering of `key`, or a new one from `render` (then kept). `fingerprint`, when given, is
   * the one read before what `render` shows was read (a caller that reads asynchronously): a write
   * after it renders the page again.
   */
  get(key: string, render: () => Pick<RenderedPage, 'html' | 'policy'>, fingerprint = this.#fingerprint()): RenderedPage {
    const kept = this.kept(key, fingerprint);
    if (kept) return kept;
    const now = this.#now();
    const page: RenderedPage = { ...render() };
    this.#kept.set(key, { page, renderedMs: now, fingerprint });
    return page;
  }

  /** What the kept pages are checked against now (the constructor's `fingerprint`). */
  fingerprint(): string {
    return this.#fingerprint();
  }

  /** The kept rendering of `key` while it is current for `fingerprint`, else undefined. */
  kept(key: string, fingerprint = this.#fingerprint()): RenderedPage | undefined {
    const now = this.#now();
    const kept = this.#kept.get(key);
    return kept && kept.fingerprint === fingerprint && now - kept.renderedMs < MAX_AGE_MS && now >= kept.renderedMs ? kept.page : undefined;
  }

  /** The page's gzip, made once per rendering. */
  static gzipped(page: RenderedPage): Uint8Array<ArrayBuffer> | null {
    if (page.gzipped === undefined) {
      const zipped = gzipBody(Buffer.from(page.html));
      // Copied once into an ArrayBuffer of its own: a response body may not be a view on zlib's pool.
      page.gzipped = zipped === null ? null : new Uint8Array(zipped);
    }
    return page.gzipped;
  }
}
