/**
 * Rendered public status pages, kept a few seconds. A status page is busiest during an outage,
 * when every visitor reloads it at once; rendering one (90-day bars of every service from the daily
 * totals, states, incidents, escaping) costs ~5 ms of the event loop the API and the scheduler also
 * need, and its gzip ~1 ms more. A kept page is answered without either.
 *
 * What a person edits shows at once: a kept page is dropped when the page, an incident, a service,
 * a maintenance window, a check or a group was written since it was rendered, by any replica (the
 * caller's fingerprint: the database's revisions, public-pages/routes.ts). What runs produce (a
 * check's state, today's bar) is at most MAX_AGE_MS old: results arrive all the time, and
 * re-rendering on each would keep nothing during an outage.
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
  readonly #now: () => number;

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  /**
   * The kept rendering of `key` while it is current: rendered under `fingerprint` (what was written,
   * read before what the page shows was read, so a write after that renders it again) and younger
   * than MAX_AGE_MS. Undefined otherwise.
   */
  kept(key: string, fingerprint: string): RenderedPage | undefined {
    const now = this.#now();
    const kept = this.#kept.get(key);
    return kept && kept.fingerprint === fingerprint && now - kept.renderedMs < MAX_AGE_MS && now >= kept.renderedMs ? kept.page : undefined;
  }

  /** Keeps a rendering of `key` made under `fingerprint`, and returns it. */
  keep(key: string, fingerprint: string, rendered: Pick<RenderedPage, 'html' | 'policy'>): RenderedPage {
    const page: RenderedPage = { ...rendered };
    this.#kept.set(key, { page, renderedMs: this.#now(), fingerprint });
    return page;
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
