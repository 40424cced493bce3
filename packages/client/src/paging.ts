/** The largest page the service serves; `listAll()` always asks for it to minimise round trips. */
export const MAX_PAGE_SIZE = 100;

/** `content-range: 0-99/250` (also `items 0-99/250`, `*\/0`, `0-99/*`). */
export interface ContentRange {
  start: number | undefined;
  end: number | undefined;
  total: number | undefined;
}

export function parseContentRange(value: string | null | undefined): ContentRange | undefined {
  if (!value) return undefined;
  const match = /^\s*(?:[a-z]+\s+)?(?:(\d+)-(\d+)|\*)\/(\d+|\*)\s*$/i.exec(value);
  if (!match) return undefined;
  const [, start, end, total] = match;
  return {
    start: start === undefined ? undefined : Number(start),
    end: end === undefined ? undefined : Number(end),
    total: total === undefined || total === '*' ? undefined : Number(total),
  };
}

/** RFC 8288 `link` header → URL per relation (`next`, `last`, ...). Unquoted and multi-rel values included. */
export function parseLinkHeader(value: string | null | undefined): Map<string, string> {
  const links = new Map<string, string>();
  if (!value) return links;
  for (const match of value.matchAll(/<([^>]*)>((?:\s*;\s*[^;,]+)*)/g)) {
    const [, url = '', params = ''] = match;
    const rel = /;\s*rel\s*=\s*"?([^";]+)"?/i.exec(params)?.[1];
    if (!rel) continue;
    for (const name of rel.trim().split(/\s+/)) links.set(name.toLowerCase(), url);
  }
  return links;
}

function pageParam(url: string): number | undefined {
  const query = url.includes('?') ? url.slice(url.indexOf('?') + 1) : '';
  const page = new URLSearchParams(query).get('page');
  return page !== null && /^\d+$/.test(page) ? Number(page) : undefined;
}

/**
 * The page to fetch after `page`, or undefined when the list is exhausted. Trusts `link rel="next"`
 * first, then `content-range`, and only without either header assumes a full page means more.
 */
export function nextPage(current: {
  page: number;
  limit: number;
  itemCount: number;
  headers: { get(name: string): string | null };
}): number | undefined {
  if (current.itemCount === 0) return undefined;
  const linkHeader = current.headers.get('link');
  if (linkHeader) {
    const next = parseLinkHeader(linkHeader).get('next');
    if (next === undefined) return undefined;
    const page = pageParam(next);
    // A `next` that does not move forward would loop forever; treat it as the end.
    return page !== undefined && page > current.page ? page : undefined;
  }
  const range = parseContentRange(current.headers.get('content-range'));
  if (range?.end !== undefined && range.total !== undefined) return range.end + 1 < range.total ? current.page + 1 : undefined;
  return current.itemCount >= current.limit ? current.page + 1 : undefined;
}

/** One fetched page: its items and the response headers that say whether more follow. */
export interface Page<T> {
  items: T[];
  headers: { get(name: string): string | null };
}

/** How `paginate` fetches: page size, and how many later pages to request while one is consumed. */
export interface PageOptions {
  pageSize?: number;
  /**
   * Pages requested ahead, concurrently, once the first page's `content-range` tells how many there
   * are. For a caller that reads the whole list (a refresh reads 100 pages for 10,000 checks): the
   * round trips overlap instead of queueing. 0 (the default) fetches only the page being asked for,
   * so a caller that stops early wastes no call.
   */
  readAhead?: number;
}

/**
 * Yields every item of a paged list in service order. Pages hold `MAX_PAGE_SIZE` items unless the
 * endpoint caps them lower (heartbeat events: 10). Whether another page follows is always decided
 * from the page before it (`nextPage`); read-ahead only starts the requests earlier.
 */
export async function* paginate<T>(
  fetchPage: (query: { page: number; limit: number }) => Promise<Page<T>>,
  options: PageOptions = {},
): AsyncGenerator<T, void, undefined> {
  const limit = options.pageSize ?? MAX_PAGE_SIZE;
  const readAhead = options.readAhead ?? 0;
  const requested = new Map<number, Promise<Page<T>>>();
  const request = (page: number): Promise<Page<T>> => {
    let pending = requested.get(page);
    if (!pending) {
      pending = fetchPage({ page, limit });
      // Awaited in turn below; until then a failure must not count as unhandled.
      pending.catch(() => undefined);
      requested.set(page, pending);
    }
    return pending;
  };
  let lastPage: number | undefined;
  let page: number | undefined = 1;
  while (page !== undefined) {
    const result: Page<T> = await request(page);
    requested.delete(page);
    if (readAhead > 0) {
      const total = parseContentRange(result.headers.get('content-range'))?.total;
      if (total !== undefined) lastPage = Math.ceil(total / limit);
      if (lastPage !== undefined) for (let ahead = page + 1; ahead <= Math.min(lastPage, page + readAhead); ahead++) request(ahead);
    }
    yield* result.items;
    page = nextPage({ page, limit, itemCount: result.items.length, headers: result.headers });
  }
}
