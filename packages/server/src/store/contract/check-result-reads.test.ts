/** The check-results port's filtered reads (the API's result lists), the same assertions on every engine (see engines.ts). */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { CheckResultDocument, ResultFilter, StoragePorts } from '../ports.js';
import { enginesUnderTest, twoReplicas } from './engines.js';

const engines = enginesUnderTest();
const T0 = Date.UTC(2026, 10, 24, 8);
const MINUTE = 60_000;

function result(checkId: string, at: number, options: { failing?: boolean; attempt?: boolean; location?: string } = {}): CheckResultDocument {
  const failing = options.failing ?? false;
  return {
    id: randomUUID(), checkId, name: 'Homepage', hasFailures: failing, hasErrors: false, isDegraded: false,
    runLocation: options.location ?? 'eu-west-1', created_at: new Date(at).toISOString(), startedAt: new Date(at - 40).toISOString(),
    resultType: options.attempt ? 'ATTEMPT' : 'FINAL', attempts: 1, responseTime: 40,
    apiCheckResult: { response: { status: failing ? 500 : 200, body: failing ? 'oops' : '{"status":"ok"}' }, requestError: null },
  };
}

/**
 * Twelve runs a minute apart on `chk`: every third at us-east-1, every fourth failing after a failed
 * ATTEMPT 5 ms earlier, and a run of two tries in one millisecond at minute 20 (their ids tie on time).
 */
async function stored(ports: StoragePorts): Promise<CheckResultDocument[]> {
  const all: CheckResultDocument[] = [];
  for (let i = 0; i < 12; i++) {
    const at = T0 + i * MINUTE;
    const location = i % 3 === 0 ? 'us-east-1' : 'eu-west-1';
    const run = i % 4 === 3 ? [result('chk', at - 5, { attempt: true, failing: true, location }), result('chk', at, { failing: true, location })] : [result('chk', at, { location })];
    all.push(...(await ports.checkResults.appendRun('acct', run)));
  }
  all.push(...(await ports.checkResults.appendRun('acct', [result('chk', T0 + 20 * MINUTE, { attempt: true }), result('chk', T0 + 20 * MINUTE)])));
  await ports.checkResults.appendRun('acct', [result('other', T0)]);
  return all;
}

const byTimeThenId = (x: CheckResultDocument, y: CheckResultDocument): number => Date.parse(x.created_at) - Date.parse(y.created_at) || (x.id < y.id ? -1 : x.id > y.id ? 1 : 0);
const ids = (docs: readonly CheckResultDocument[]): string[] => docs.map((doc) => doc.id);

describe.each(engines)('check result reads on $name', (engine) => {
  it('pages the results meeting a filter oldest first, ties by id, with how many meet it on every page', async () => {
    const [a, b] = await twoReplicas(engine);
    const all = (await stored(a)).sort(byTimeThenId);
    const all20 = all.filter((doc) => Date.parse(doc.created_at) === T0 + 20 * MINUTE);
    expect(all20).toHaveLength(2);
    const walk = async (filter: ResultFilter) => {
      const seen: CheckResultDocument[] = [];
      const totals = new Set<number>();
      for (let page = 1; page <= 10; page++) {
        const found = await b.checkResults.oldestFirst('acct', 'chk', { ...filter, page, limit: 4 });
        totals.add(found.total);
        seen.push(...found.items);
      }
      return { seen, totals: [...totals] };
    };
    expect(await walk({})).toEqual({ seen: all, totals: [all.length] });
    const finalsAtUs = all.filter((doc) => doc['resultType'] === 'FINAL' && doc.runLocation === 'us-east-1');
    expect(finalsAtUs).toHaveLength(4);
    expect(await walk({ resultType: 'FINAL', location: 'us-east-1' })).toEqual({ seen: finalsAtUs, totals: [4] });
    const failedAttempts = all.filter((doc) => doc['resultType'] === 'ATTEMPT' && doc.hasFailures);
    expect(ids((await walk({ resultType: 'ATTEMPT', hasFailures: true })).seen)).toEqual(ids(failedAttempts));
    // The window is [fromMs, toMs): a result at toMs is out, one at fromMs in.
    const windowed = all.filter((doc) => Date.parse(doc.created_at) >= T0 + 3 * MINUTE && Date.parse(doc.created_at) < T0 + 6 * MINUTE);
    expect(ids((await walk({ fromMs: T0 + 3 * MINUTE, toMs: T0 + 6 * MINUTE })).seen)).toEqual(ids(windowed));
    expect(windowed.map((doc) => Date.parse(doc.created_at) - T0)).toEqual([3 * MINUTE, 4 * MINUTE, 5 * MINUTE]);
    expect(await b.checkResults.oldestFirst('acct', 'chk', { location: 'ap-south-1', page: 1, limit: 10 })).toEqual({ items: [], total: 0 });
    expect(await b.checkResults.oldestFirst('other-acct', 'chk', { page: 1, limit: 10 })).toEqual({ items: [], total: 0 });
    expect(await b.checkResults.oldestFirst('acct', 'chk', { hasFailures: false, page: 9, limit: 2 })).toEqual({ items: [], total: all.filter((doc) => !doc.hasFailures).length });
  });

  it('reads newest first only the results meeting a filter, in its window, from a cursor on', async () => {
    const [a, b] = await twoReplicas(engine);
    const newestFirst = (await stored(a)).sort(byTimeThenId).reverse();
    const expected = newestFirst.filter((doc) => doc['resultType'] === 'FINAL' && !doc.hasFailures && doc.runLocation === 'eu-west-1' && Date.parse(doc.created_at) < T0 + 20 * MINUTE);
    expect(expected.length).toBeGreaterThan(3);
    const pages: CheckResultDocument[][] = [];
    let before: { createdMs: number; id: string } | undefined;
    for (;;) {
      const page = await b.checkResults.newestFirst('acct', 'chk', { limit: 3, before, resultType: 'FINAL', hasFailures: false, location: 'eu-west-1', toMs: T0 + 20 * MINUTE });
      if (page.length === 0) break;
      pages.push(page);
      const last = page.at(-1)!;
      before = { createdMs: Date.parse(last.created_at), id: last.id };
    }
    expect(pages.flat()).toEqual(expected);
    expect(pages.slice(0, -1).every((page) => page.length === 3)).toBe(true);
    const fromFive = await b.checkResults.newestFirst('acct', 'chk', { limit: 100, fromMs: T0 + 5 * MINUTE, resultType: 'ATTEMPT' });
    expect(ids(fromFive)).toEqual(ids(newestFirst.filter((doc) => doc['resultType'] === 'ATTEMPT' && Date.parse(doc.created_at) >= T0 + 5 * MINUTE)));
  });

  it('reads newest first by page number: an offset leaves out that many of the results meeting the filter', async () => {
    const [a, b] = await twoReplicas(engine);
    const newestFirst = (await stored(a)).sort(byTimeThenId).reverse();
    const pageOf = async (page: number, filter: ResultFilter = {}) => b.checkResults.newestFirst('acct', 'chk', { ...filter, limit: 4, offset: (page - 1) * 4 });
    const pages: CheckResultDocument[] = [];
    for (let page = 1; page <= 5; page++) pages.push(...(await pageOf(page)));
    // Every result once, in order, across the ties on time at minute 20.
    expect(pages).toEqual(newestFirst);
    expect(await pageOf(6)).toEqual([]);
    const finals = newestFirst.filter((doc) => doc['resultType'] === 'FINAL');
    expect(ids(await pageOf(2, { resultType: 'FINAL' }))).toEqual(ids(finals.slice(4, 8)));
    // With a cursor, the offset counts from the cursor on.
    const third = newestFirst[2]!;
    const fromCursor = await b.checkResults.newestFirst('acct', 'chk', { limit: 2, offset: 3, before: { createdMs: Date.parse(third.created_at), id: third.id } });
    expect(ids(fromCursor)).toEqual(ids(newestFirst.slice(6, 8)));
    expect(await b.checkResults.newestFirst('acct', 'chk', { limit: 1, offset: Number.MAX_SAFE_INTEGER })).toEqual([]);
    expect(await b.checkResults.newestFirst('acct', 'no-such-check', { limit: 1, offset: 3 })).toEqual([]);
  });

  it('refuses bad filters and pages with the same messages', async () => {
    const [a] = await twoReplicas(engine);
    await expect(a.checkResults.oldestFirst('acct', 'chk', { fromMs: -1, page: 1, limit: 5 })).rejects.toThrow('fromMs must be a whole number of milliseconds since the epoch, got -1');
    await expect(a.checkResults.oldestFirst('acct', 'chk', { page: 0, limit: 5 })).rejects.toThrow('page must be a whole number of at least 1, got 0');
    await expect(a.checkResults.oldestFirst('acct', 'chk', { resultType: 'ALL' as 'FINAL', page: 1, limit: 5 })).rejects.toThrow('resultType must be "FINAL" or "ATTEMPT", got "ALL"');
    await expect(a.checkResults.newestFirst('acct', 'chk', { limit: 5, toMs: 1.5 })).rejects.toThrow('toMs must be a whole number of milliseconds since the epoch, got 1.5');
    await expect(a.checkResults.newestFirst('acct', 'chk', { limit: 5, location: '' })).rejects.toThrow('location must be a string that is not empty, got ""');
    await expect(a.checkResults.newestFirst('acct', 'chk', { limit: 5, hasFailures: 'yes' as unknown as boolean })).rejects.toThrow('hasFailures must be true or false, got "yes"');
    await expect(a.checkResults.newestFirst('acct', 'chk', { limit: 5, offset: -1 })).rejects.toThrow('offset must be a whole number of at least 0, got -1');
    await expect(a.checkResults.newestFirst('acct', 'chk', { limit: 5, offset: 2.5 })).rejects.toThrow('offset must be a whole number of at least 0, got 2.5');
  });
});
