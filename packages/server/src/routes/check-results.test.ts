import { CheckResult } from '@vigil/schema';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IDS, SEED, T0, T0_PLUS_HOUR } from '../readside/fixtures/seed-fixture.js';
import { OTHER_API_KEY, apiFor, startTestServer, type TestApi } from '../test-support.js';

let api: TestApi;
beforeAll(async () => {
  api = await startTestServer({ seed: SEED });
});
afterAll(() => api.close());

const path = (query: string, checkId: string = IDS.apiCheck) => `/v1/check-results/${checkId}?${query}`;
const window = `from=${T0}&to=${T0_PLUS_HOUR}`;
const ids = (body: Array<{ id: string }>) => body.map((result) => result.id);
const nowSeconds = () => Math.floor(Date.now() / 1000);

describe('GET /v1/check-results/{checkId}', () => {
  it('lists the FINAL results of the window oldest first, in the full check-result shape', async () => {
    const reply = await api.get(path(window));
    expect(reply.status).toBe(200);
    expect(ids(reply.body)).toEqual(['r1', 'r2', 'r3', 'r4', 'r5']);
    for (const result of reply.body) expect(CheckResult.safeParse(result).success).toBe(true);
    // The real document requires traceId (nullable); the runner records no traces.
    for (const result of reply.body) expect(result).toHaveProperty('traceId', null);
    expect(reply.body[0]).toMatchObject({
      name: 'Homepage API',
      checkId: IDS.apiCheck,
      runLocation: 'eu-west-1',
      startedAt: '2026-01-05T10:00:00.000Z',
      stoppedAt: '2026-01-05T10:00:00.100Z',
      isDegraded: false,
      apiCheckResult: { response: { status: 200, timingPhases: { dns: 10 } } },
    });
    expect(reply.headers.get('content-range')).toBe('0-4/5');
  });

  it.each([
    ['resultType=ATTEMPT', ['a1']],
    ['resultType=ALL', ['r1', 'r2', 'a1', 'r3', 'r4', 'r5']],
    ['resultType=FINAL', ['r1', 'r2', 'r3', 'r4', 'r5']],
    ['location=us-east-1', ['r2', 'r4']],
    ['location=ap-south-1', []],
    ['hasFailures=true', ['r3', 'r5']],
    ['hasFailures=false', ['r1', 'r2', 'r4']],
    ['hasFailures=true&resultType=ALL&location=eu-west-1', ['a1', 'r3', 'r5']],
    ['checkType=API', ['r1', 'r2', 'r3', 'r4', 'r5']],
    ['checkType=TCP', []],
  ])('filters with %s', async (filter, expected) => {
    const reply = await api.get(path(`${window}&${filter}`));
    expect(reply.status).toBe(200);
    expect(ids(reply.body)).toEqual(expected);
  });

  it('includes `from` and excludes `to`', async () => {
    const startsAtR2 = T0 + 5 * 60;
    const endsAtR4 = T0 + 15 * 60;
    expect(ids((await api.get(path(`from=${startsAtR2}&to=${endsAtR4}`))).body)).toEqual(['r2', 'r3']);
  });

  it('pages with limit and page, with content-range and link headers', async () => {
    const reply = await api.get(path(`${window}&limit=2&page=2`));
    expect(ids(reply.body)).toEqual(['r3', 'r4']);
    expect(reply.headers.get('content-range')).toBe('2-3/5');
    const link = reply.headers.get('link') ?? '';
    expect(link).toContain('limit=2&page=3>; rel="next"');
    expect(link).toContain('limit=2&page=3>; rel="last"');
    const last = await api.get(path(`${window}&limit=2&page=3`));
    expect(ids(last.body)).toEqual(['r5']);
    const beyond = await api.get(path(`${window}&limit=2&page=4`));
    expect([beyond.body, beyond.headers.get('content-range')]).toEqual([[], '*/5']);
  });

  it('defaults the page size to 10', async () => {
    const reply = await api.get(path(`${window}&resultType=ALL`));
    expect(reply.headers.get('link')).toContain('limit=10&page=1>; rel="last"');
  });

  describe('window defaults (relative fixture results at now-1h, now-5h, now-7h, now-13h)', () => {
    it('covers the six hours before now without from and to', async () => {
      expect(ids((await api.get(path(''))).body)).toEqual(['rel2', 'rel1']);
    });
    it('ends six hours after a lone from', async () => {
      expect(ids((await api.get(path(`from=${nowSeconds() - 8 * 3600}`))).body)).toEqual(['rel3', 'rel2']);
    });
    it('starts six hours before a lone to', async () => {
      expect(ids((await api.get(path(`to=${nowSeconds() - 6 * 3600}`))).body)).toEqual(['rel3']);
    });
    it('answers a window reaching before 1970 (a lone to in its first six hours) with what it holds: nothing', async () => {
      const reply = await api.get(path('to=60'));
      expect([reply.status, reply.body, reply.headers.get('content-range')]).toEqual([200, [], '*/0']);
    });
  });

  it.each([
    ['limit=0', ['limit']],
    ['limit=101', ['limit']],
    ['page=0', ['page']],
    ['from=yesterday', ['from']],
    ['to=-5', ['to']],
    ['location=mars-1', ['location']],
    ['checkType=SMOKE', ['checkType']],
    ['hasFailures=maybe', ['hasFailures']],
    ['resultType=SOME', ['resultType']],
    [`from=${T0_PLUS_HOUR}&to=${T0}`, ['to']],
    [`from=${T0}&to=${T0}`, ['to']],
  ])('rejects %s with 400 naming %j', async (query, keys) => {
    const reply = await api.get(path(query));
    expect(reply.status).toBe(400);
    expect(reply.body).toMatchObject({ statusCode: 400, error: 'Bad Request', validation: { source: 'query', keys } });
  });

  it.each([['limit=1'], ['limit=100'], ['page=1']])('accepts the edge %s', async (query) => {
    expect((await api.get(path(query))).status).toBe(200);
  });

  it('answers 404 for another tenant’s check and for an unknown one', async () => {
    expect((await api.get(path(window, IDS.otherTenantCheck))).status).toBe(404);
    expect((await api.get(path(window, 'no-such-check'))).status).toBe(404);
    const other = apiFor(api.server, OTHER_API_KEY);
    const own = await other.get(path('', IDS.otherTenantCheck));
    expect([own.status, ids(own.body)]).toEqual([200, [expect.any(String)]]);
    expect((await other.get(path(window))).status).toBe(404);
  });

  it('answers 404 for an unknown check before refusing its inverted window, and for a type filter the check is not, its type wins over the page', async () => {
    const unknown = await api.get(path(`from=${T0_PLUS_HOUR}&to=${T0}`, 'no-such-check'));
    expect([unknown.status, unknown.body]).toEqual([404, expect.objectContaining({ statusCode: 404, message: 'Check no-such-check not found' })]);
    const otherType = await api.get(path(`${window}&checkType=BROWSER`));
    expect([otherType.status, otherType.body, otherType.headers.get('content-range')]).toEqual([200, [], '*/0']);
  });
});
