import { describe, expect, it } from 'vitest';
import { nextPage, paginate, parseContentRange, parseLinkHeader, type Page } from './paging.js';

function headers(values: Record<string, string>) {
  return new Headers(values);
}

describe('parseContentRange', () => {
  it.each([
    ['0-99/250', { start: 0, end: 99, total: 250 }],
    ['items 100-199/250', { start: 100, end: 199, total: 250 }],
    ['*/0', { start: undefined, end: undefined, total: 0 }],
    ['0-9/*', { start: 0, end: 9, total: undefined }],
    ['garbage', undefined],
    [null, undefined],
  ])('reads %j', (value, want) => {
    expect(parseContentRange(value)).toEqual(want);
  });
});

describe('parseLinkHeader', () => {
  it('maps each relation to its URL', () => {
    const links = parseLinkHeader('<http://h/v1/checks?limit=100&page=2>; rel="next", <http://h/v1/checks?limit=100&page=3>; rel="last"');
    expect(Object.fromEntries(links)).toEqual({ next: 'http://h/v1/checks?limit=100&page=2', last: 'http://h/v1/checks?limit=100&page=3' });
  });

  it('accepts unquoted and space-separated relations', () => {
    const links = parseLinkHeader('</v1/x?page=4>; rel=next, </v1/x?page=9>; title="t"; rel="last end"');
    expect(Object.fromEntries(links)).toEqual({ next: '/v1/x?page=4', last: '/v1/x?page=9', end: '/v1/x?page=9' });
  });

  it('returns nothing for an absent header', () => {
    expect(parseLinkHeader(null).size).toBe(0);
  });
});

describe('nextPage', () => {
  it.each([
    ['follows link rel=next', 1, 100, headers({ link: '</v1/checks?page=2&limit=100>; rel="next"' }), 2],
    ['stops when link has no next', 3, 100, headers({ link: '</v1/checks?page=3&limit=100>; rel="last"' }), undefined],
    ['ignores a next that points backwards', 3, 100, headers({ link: '</v1/checks?page=1>; rel="next"' }), undefined],
    ['continues while content-range has more', 1, 100, headers({ 'content-range': '0-99/250' }), 2],
    ['stops at the last content-range', 3, 50, headers({ 'content-range': '200-249/250' }), undefined],
    ['continues after a full page without headers', 1, 100, headers({}), 2],
    ['stops after a short page without headers', 2, 40, headers({}), undefined],
    ['stops on an empty page whatever the headers say', 2, 0, headers({ 'content-range': '0-99/250' }), undefined],
  ])('%s', (_name, page, itemCount, pageHeaders, want) => {
    expect(nextPage({ page, limit: 100, itemCount, headers: pageHeaders })).toBe(want);
  });
});

describe('paginate', () => {
  it('fetches pages of 100 until content-range says the list is complete', async () => {
    const all = Array.from({ length: 250 }, (_, index) => index);
    const requested: Array<{ page: number; limit: number }> = [];
    const fetchPage = async (query: { page: number; limit: number }): Promise<Page<number>> => {
      requested.push(query);
      const start = (query.page - 1) * query.limit;
      const items = all.slice(start, start + query.limit);
      return { items, headers: headers({ 'content-range': `${start}-${start + items.length - 1}/${all.length}` }) };
    };
    const seen: number[] = [];
    for await (const item of paginate(fetchPage)) seen.push(item);
    expect(seen).toEqual(all);
    expect(requested).toEqual([
      { page: 1, limit: 100 },
      { page: 2, limit: 100 },
      { page: 3, limit: 100 },
    ]);
  });

  it('with read-ahead, requests the next pages while the current one is consumed, yielding in order', async () => {
    const all = Array.from({ length: 450 }, (_, index) => index);
    const started: number[] = [];
    const release = new Map<number, () => void>();
    const fetchPage = (query: { page: number; limit: number }): Promise<Page<number>> => {
      started.push(query.page);
      const start = (query.page - 1) * query.limit;
      const items = all.slice(start, start + query.limit);
      const page = { items, headers: headers({ 'content-range': `${start}-${start + items.length - 1}/${all.length}` }) };
      // Page 1 answers at once; later pages only when the test lets them.
      return query.page === 1 ? Promise.resolve(page) : new Promise((resolve) => release.set(query.page, () => resolve(page)));
    };
    const iterator = paginate(fetchPage, { readAhead: 2 });
    const seen: number[] = [];
    seen.push((await iterator.next()).value as number);
    // Page 1 told of 5 pages: pages 2 and 3 are on their way before anything else is read.
    expect(started).toEqual([1, 2, 3]);
    const rest = (async () => {
      for await (const item of iterator) seen.push(item);
    })();
    for (const page of [3, 2, 5, 4]) {
      await new Promise((resolve) => setTimeout(resolve, 5));
      release.get(page)?.();
    }
    await new Promise((resolve) => setTimeout(resolve, 5));
    release.get(4)?.();
    release.get(5)?.();
    await rest;
    expect(seen).toEqual(all);
    expect([...started].sort()).toEqual([1, 2, 3, 4, 5]);
  });

  it('fetches no further page when the consumer stops early', async () => {
    let fetched = 0;
    const fetchPage = async (): Promise<Page<number>> => {
      fetched++;
      return { items: [1, 2, 3], headers: headers({ link: '</x?page=99>; rel="next"' }) };
    };
    for await (const item of paginate(fetchPage)) if (item === 2) break;
    expect(fetched).toBe(1);
  });
});
