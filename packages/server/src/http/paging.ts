/**
 * List paging headers. `content-range: <start>-<end>/<total>` with zero-based, inclusive
 * item positions (`0-9/25` for the first page of 10); a page past the end reads `*\/<total>`.
 * `link` carries `rel="next"` while more pages follow and `rel="last"` always, both as absolute URLs
 * that keep every other query parameter of the request.
 */
export interface PagingHeaders {
  readonly 'content-range': string;
  readonly link: string;
}

export function pagingHeaders(requestUrl: string, options: { page: number; limit: number; total: number; count: number }): PagingHeaders {
  const { page, limit, total, count } = options;
  const start = (page - 1) * limit;
  const range = count > 0 ? `${start}-${start + count - 1}/${total}` : `*/${total}`;
  const lastPage = Math.max(1, Math.ceil(total / limit));
  // The request URL is parsed and serialised once; both links differ only in the `page` pair.
  const url = new URL(requestUrl);
  url.searchParams.set('limit', String(limit));
  url.searchParams.set('page', '1');
  // Serialised pairs never contain a raw `&`, so they line up with the parameters.
  const pairs = url.search.slice(1).split('&');
  const pageAt = [...url.searchParams.keys()].indexOf('page');
  const base = `${url.origin}${url.pathname}`;
  const last = linkTo(base, pairs, pageAt, lastPage, 'last');
  return { 'content-range': range, link: page < lastPage ? `${linkTo(base, pairs, pageAt, page + 1, 'next')}, ${last}` : last };
}

function linkTo(base: string, pairs: string[], pageAt: number, target: number, rel: string): string {
  pairs[pageAt] = `page=${target}`;
  return `<${base}?${pairs.join('&')}>; rel="${rel}"`;
}
