/**
 * List paging headers (DESIGN §3.3). `content-range: <start>-<end>/<total>` with zero-based, inclusive
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
  const link = (target: number, rel: string): string => {
    const url = new URL(requestUrl);
    url.searchParams.set('limit', String(limit));
    url.searchParams.set('page', String(target));
    return `<${url.toString()}>; rel="${rel}"`;
  };
  const links = page < lastPage ? [link(page + 1, 'next'), link(lastPage, 'last')] : [link(lastPage, 'last')];
  return { 'content-range': range, link: links.join(', ') };
}
