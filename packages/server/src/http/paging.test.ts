import { describe, expect, it } from 'vitest';
import { pagingHeaders } from './paging.js';

const url = 'http://127.0.0.1:1234/v1/checks?tag=prod&limit=10&page=1';
const link = (page: number, rel: string, limit = 10): string =>
  `<http://127.0.0.1:1234/v1/checks?tag=prod&limit=${limit}&page=${page}>; rel="${rel}"`;

describe('pagingHeaders', () => {
  it.each([
    { name: 'first of three pages', page: 1, limit: 10, total: 25, count: 10, range: '0-9/25', links: [link(2, 'next'), link(3, 'last')] },
    { name: 'middle page', page: 2, limit: 10, total: 25, count: 10, range: '10-19/25', links: [link(3, 'next'), link(3, 'last')] },
    { name: 'last, partial page', page: 3, limit: 10, total: 25, count: 5, range: '20-24/25', links: [link(3, 'last')] },
    { name: 'page past the end', page: 9, limit: 10, total: 25, count: 0, range: '*/25', links: [link(3, 'last')] },
    { name: 'empty collection', page: 1, limit: 10, total: 0, count: 0, range: '*/0', links: [link(1, 'last')] },
    { name: 'exact multiple', page: 1, limit: 5, total: 5, count: 5, range: '0-4/5', links: [link(1, 'last', 5)] },
  ])('$name: content-range $range', ({ page, limit, total, count, range, links }) => {
    expect(pagingHeaders(url, { page, limit, total, count })).toEqual({ 'content-range': range, link: links.join(', ') });
  });
});

describe('pagingHeaders links', () => {
  it('keep every other parameter in place, set limit and page where they first appear, and drop repeats of them', () => {
    const headers = pagingHeaders('http://127.0.0.1:1234/v1/checks?page=2&tag=a%20b&tag=%C3%A9&page=7&limit=5&checkType=API', {
      page: 2,
      limit: 5,
      total: 30,
      count: 5,
    });
    const query = (page: number): string => `page=${page}&tag=a+b&tag=%C3%A9&limit=5&checkType=API`;
    expect(headers.link).toBe(`<http://127.0.0.1:1234/v1/checks?${query(3)}>; rel="next", <http://127.0.0.1:1234/v1/checks?${query(6)}>; rel="last"`);
  });

  it('append limit and page when the request had neither', () => {
    expect(pagingHeaders('http://127.0.0.1:1234/v1/checks', { page: 1, limit: 10, total: 5, count: 5 }).link).toBe(
      '<http://127.0.0.1:1234/v1/checks?limit=10&page=1>; rel="last"',
    );
  });
});
