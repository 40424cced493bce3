/** The check-results port, the same assertions on every engine (see engines.ts). */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { CheckResultDocument } from '../ports.js';
import { enginesUnderTest, twoReplicas } from './engines.js';

const engines = enginesUnderTest();
const DAY = 86_400_000;
const T0 = Date.UTC(2026, 10, 24, 8);

/** A passing (or failing) API result as the runner makes it. */
function result(checkId: string, at: number, options: { failing?: boolean; attempt?: boolean; location?: string; responseTime?: number } = {}): CheckResultDocument {
  const failing = options.failing ?? false;
  return {
    id: randomUUID(), checkId, name: 'Homepage', hasFailures: failing, hasErrors: false, isDegraded: false,
    runLocation: options.location ?? 'eu-west-1', created_at: new Date(at).toISOString(), startedAt: new Date(at - 40).toISOString(),
    resultType: options.attempt ? 'ATTEMPT' : 'FINAL', attempts: 1, responseTime: options.responseTime ?? 40 + (at % 13),
    apiCheckResult: { response: { status: failing ? 500 : 200, body: failing ? 'oops' : '{"status":"ok"}', timingPhases: { wait: 0, dns: 1, tcp: 2, firstByte: 30, download: 1, total: 34 } }, requestError: null },
  };
}

describe.each(engines)('check results on $name', (engine) => {
  it('reads appended results back as stored: newest first, page by page, and by id', async () => {
    const [a, b] = await twoReplicas(engine);
    const stored: CheckResultDocument[] = [];
    for (let i = 0; i < 12; i++) {
      const at = T0 + i * 60_000;
      stored.push(...(await a.checkResults.appendRun('acct', i % 4 === 3 ? [result('chk', at, { attempt: true, failing: true }), result('chk', at + 5)] : [result('chk', at, { failing: i === 5 })])));
    }
    // Two tries in the same millisecond get distinct derived ids.
    stored.push(...(await a.checkResults.appendRun('acct', [result('chk', T0 + 20 * 60_000, { attempt: true }), result('chk', T0 + 20 * 60_000)])));
    expect(new Set(stored.map((doc) => doc.id)).size).toBe(stored.length);
    const newestFirst = [...stored].sort((x, y) => Date.parse(y.created_at) - Date.parse(x.created_at) || (x.id < y.id ? 1 : -1));
    const pages: CheckResultDocument[] = [];
    let before: { createdMs: number; id: string } | undefined;
    for (;;) {
      const page = await b.checkResults.newestFirst('acct', 'chk', { limit: 4, before });
      if (page.length === 0) break;
      pages.push(...page);
      const last = page.at(-1)!;
      before = { createdMs: Date.parse(last.created_at), id: last.id };
    }
    expect(pages).toEqual(newestFirst);
    for (const doc of stored) expect(await b.checkResults.find('acct', 'chk', doc.id)).toEqual(doc);
    expect(await b.checkResults.find('acct', 'other', stored[0]!.id)).toBeUndefined();
    expect(await b.checkResults.newestFirst('other-acct', 'chk', { limit: 5 })).toEqual([]);
  });

  it('adds every FINAL result of two replicas appending at once to its hourly and daily rollups', async () => {
    const [a, b] = await twoReplicas(engine);
    const runs = Array.from({ length: 40 }, (_, i) => [result('chk', T0 + i * 30_000, { failing: i % 10 === 0, responseTime: 100, location: i % 2 ? 'us-east-1' : 'eu-west-1' })]);
    const attempts = Array.from({ length: 6 }, (_, i) => [result('chk', T0 + i * 30_000 + 7, { attempt: true, failing: true })]);
    await Promise.all([...runs, ...attempts].map((run, i) => (i % 2 ? a : b).checkResults.appendRun('acct', run)));
    const hourly = await a.checkResults.rollups('acct', 'chk', 'hourly', T0 - DAY, T0 + DAY);
    const daily = await b.checkResults.rollups('acct', 'chk', 'daily', T0 - DAY, T0 + DAY);
    const totals = (rows: typeof hourly) => rows.reduce((sum, row) => ({ results: sum.results + row.results, failures: sum.failures + row.failures, rtCount: sum.rtCount + row.rtCount }), { results: 0, failures: 0, rtCount: 0 });
    expect(totals(hourly)).toEqual({ results: 40, failures: 4, rtCount: 40 });
    expect(daily.map((row) => [row.startMs, row.location, row.results, row.failures, row.rtSum, row.rtMin, row.rtMax, [...row.histogram.values()]])).toEqual([
      [Date.UTC(2026, 10, 24), 'eu-west-1', 20, 4, 2000, 100, 100, [20]],
      [Date.UTC(2026, 10, 24), 'us-east-1', 20, 0, 2000, 100, 100, [20]],
    ]);
    expect(hourly.map((row) => [row.startMs, row.location, row.spanMs])).toEqual([[T0, 'eu-west-1', 3_600_000], [T0, 'us-east-1', 3_600_000]]);
  });

  it('reads the facts of a range without documents: the same columns on every engine, ids as stored, phases finite only', async () => {
    const [a, b] = await twoReplicas(engine);
    const stored = [
      ...(await a.checkResults.appendRun('acct', [result('chk', T0, { attempt: true, failing: true, location: 'us-east-1' }), result('chk', T0 + 5, { location: 'us-east-1' })])),
      ...(await a.checkResults.appendRun('acct', [result('chk', T0 + 60_000, { failing: true })])),
      ...(await a.checkResults.appendRun('acct', [{ ...result('chk', T0 + 120_000), responseTime: undefined, apiCheckResult: { response: { status: 204, timingPhases: { wait: 3, dns: 'slow' } } } } as CheckResultDocument])),
    ];
    await a.checkResults.appendKept('acct', { ...result('chk', T0 + 180_000), id: 'ping-1' });
    await a.checkResults.appendRun('acct', [result('chk', T0 + 240_000)]);
    const facts = await b.checkResults.facts('acct', 'chk', T0, T0 + 240_000);
    expect(facts.map((fact) => ({ ...fact, id: fact.id, timingPhases: fact.timingPhases }))).toEqual([
      { id: stored[0]!.id, checkId: 'chk', createdAt: T0, resultType: 'ATTEMPT', runLocation: 'us-east-1', hasFailures: true, attempts: 1, responseTime: 40 + (T0 % 13), statusCode: 500, timingPhases: { wait: 0, dns: 1, tcp: 2, firstByte: 30, download: 1, total: 34 } },
      { id: stored[1]!.id, checkId: 'chk', createdAt: T0 + 5, resultType: 'FINAL', runLocation: 'us-east-1', hasFailures: false, attempts: 1, responseTime: 40 + ((T0 + 5) % 13), statusCode: 200, timingPhases: { wait: 0, dns: 1, tcp: 2, firstByte: 30, download: 1, total: 34 } },
      { id: stored[2]!.id, checkId: 'chk', createdAt: T0 + 60_000, resultType: 'FINAL', runLocation: 'eu-west-1', hasFailures: true, attempts: 1, responseTime: 40 + ((T0 + 60_000) % 13), statusCode: 500, timingPhases: { wait: 0, dns: 1, tcp: 2, firstByte: 30, download: 1, total: 34 } },
      { id: stored[3]!.id, checkId: 'chk', createdAt: T0 + 120_000, resultType: 'FINAL', runLocation: 'eu-west-1', hasFailures: false, attempts: 1, responseTime: null, statusCode: 204, timingPhases: { wait: 3 } },
      { id: 'ping-1', checkId: 'chk', createdAt: T0 + 180_000, resultType: 'FINAL', runLocation: 'eu-west-1', hasFailures: false, attempts: 1, responseTime: 40 + ((T0 + 180_000) % 13), statusCode: 200, timingPhases: { wait: 0, dns: 1, tcp: 2, firstByte: 30, download: 1, total: 34 } },
    ]);
    expect(await b.checkResults.facts('acct', 'chk', T0 + 1, T0 + 5)).toEqual([]);
    expect(await b.checkResults.facts('acct', 'other', 0, T0 + DAY)).toEqual([]);
    expect(await b.checkResults.facts('other-acct', 'chk', 0, T0 + DAY)).toEqual([]);
    expect(await a.transaction((tx) => tx.checkResults.facts('acct', 'chk', T0 + 240_000, T0 + 240_001).then((found) => found.map((fact) => fact.createdAt)))).toEqual([T0 + 240_000]);
    await expect(a.checkResults.facts('acct', 'chk', -1, T0)).rejects.toThrow('fromMs must be a whole number of milliseconds since the epoch, got -1');
  });

  it('sums the daily rows of several checks over their locations, one entry per check and day that has rows', async () => {
    const [a, b] = await twoReplicas(engine);
    const day = Date.UTC(2026, 10, 24);
    await a.checkResults.appendRun('acct', [result('one', day + 3_600_000, { location: 'us-east-1' })]);
    await a.checkResults.appendRun('acct', [result('one', day + 7_200_000, { failing: true })]);
    await a.checkResults.appendRun('acct', [result('one', day + DAY + 60_000, { attempt: true, failing: true }), result('one', day + DAY + 60_005)]);
    await a.checkResults.appendRun('acct', [result('two', day + 60_000, { failing: true })]);
    await a.checkResults.appendRun('acct', [result('three', day - 60_000)]);
    await a.checkResults.appendRun('other-acct', [result('one', day + 60_000)]);
    const totals = await b.checkResults.dailyTotals('acct', ['one', 'two', 'three', 'none'], day, day + 2 * DAY);
    const sorted = [...totals.entries()].map(([checkId, days]) => [checkId, [...days].sort((x, y) => x.startMs - y.startMs)]).sort(([x], [y]) => (x! < y! ? -1 : 1));
    expect(sorted).toEqual([
      ['one', [{ startMs: day, results: 2, failures: 1 }, { startMs: day + DAY, results: 1, failures: 0 }]],
      ['two', [{ startMs: day, results: 1, failures: 1 }]],
    ]);
    expect(await b.checkResults.dailyTotals('acct', [], 0, day + DAY)).toEqual(new Map());
    await expect(b.checkResults.dailyTotals('acct', ['one', ''], 0, day)).rejects.toThrow('checkId must be a string that is not empty, got ""');
  });

  it('prunes exactly the days older than the retention, and rollups older than theirs', async () => {
    const [a, b] = await twoReplicas(engine);
    const day0 = Date.UTC(2026, 10, 1);
    const kept: CheckResultDocument[] = [];
    for (let d = 0; d < 5; d++) {
      const run = await a.checkResults.appendRun('acct', [result('chk', day0 + d * DAY + 3_600_000)]);
      const late = await a.checkResults.appendRun('acct', [result('chk', day0 + d * DAY + DAY - 1)]);
      if (d >= 2) kept.push(...run, ...late);
    }
    const now = day0 + 4 * DAY + 12 * 3_600_000;
    // The cutoff, 2.5 days before now, is the start of day 2: days 0 and 1 go, day 2 stays.
    const pruned = await b.checkResults.prune(now, { rawMs: 2.5 * DAY, hourlyMs: 3 * DAY, dailyMs: 10 * DAY });
    expect(pruned).toEqual({ raw: day0 + 2 * DAY, hourly: now - 3 * DAY, daily: now - 10 * DAY });
    expect(await a.checkResults.newestFirst('acct', 'chk', { limit: 100 })).toEqual(kept.reverse());
    const hourly = await a.checkResults.rollups('acct', 'chk', 'hourly', 0, now);
    expect(hourly.every((row) => row.startMs >= now - 3 * DAY)).toBe(true);
    expect(hourly).toHaveLength(6);
    expect(await a.checkResults.rollups('acct', 'chk', 'daily', 0, now)).toHaveLength(5);
    expect(await a.checkResults.horizons()).toEqual(pruned);
    // Appending to a pruned day again works (PostgreSQL makes its partition again) and the next prune takes it.
    await b.checkResults.appendRun('acct', [result('chk', day0 + 5)]);
    await a.checkResults.prune(now, { rawMs: 2.5 * DAY, hourlyMs: 3 * DAY, dailyMs: 10 * DAY });
    expect((await a.checkResults.newestFirst('acct', 'chk', { limit: 100 })).length).toBe(kept.length);
  });

  it('prunes raw results to the millisecond: 1 ms older than the cutoff goes, at the cutoff stays', async () => {
    const [a, b] = await twoReplicas(engine);
    const retention = { rawMs: 2 * DAY + 5 * 3_600_000, hourlyMs: 30 * DAY, dailyMs: 30 * DAY };
    const now = Date.UTC(2026, 10, 10, 17, 30);
    const cutoff = now - retention.rawMs; // 12:30 on the 8th: the day it falls in keeps its later rows only
    const at = (ms: number) => a.checkResults.appendRun('acct', [result('chk', ms)]);
    await at(cutoff - DAY); // the 7th, a day that ended before the cutoff
    await at(cutoff - 3_600_000);
    await at(cutoff - 1);
    const kept = [...(await at(cutoff)), ...(await at(cutoff + 1)), ...(await at(now))];
    const pruned = await b.checkResults.prune(now, retention);
    expect(pruned).toEqual({ raw: cutoff, hourly: now - retention.hourlyMs, daily: now - retention.dailyMs });
    expect((await a.checkResults.newestFirst('acct', 'chk', { limit: 100 })).map((doc) => doc.created_at)).toEqual(kept.reverse().map((doc) => doc.created_at));
    // Rollups have their own retention: the pruned results still count in them.
    const daily = await a.checkResults.rollups('acct', 'chk', 'daily', 0, now + DAY);
    expect(daily.reduce((sum, row) => sum + row.results, 0)).toBe(6);
    // The next prune a minute later takes what has become older since, and nothing else.
    await b.checkResults.prune(now + 60_000, retention);
    expect((await a.checkResults.newestFirst('acct', 'chk', { limit: 100 })).map((doc) => Date.parse(doc.created_at))).toEqual([now]);
    expect(await a.checkResults.horizons()).toMatchObject({ raw: cutoff + 60_000 });
  });

  it('appends inside a unit of work: a unit that throws leaves no result and no rollup, one that resolves shows them', async () => {
    const [a, b] = await twoReplicas(engine);
    await expect(a.transaction(async (tx) => {
      await tx.checkResults.appendRun('acct', [result('chk', T0, { attempt: true, failing: true }), result('chk', T0 + 5)]);
      throw new Error('the unit gave up');
    })).rejects.toThrow('the unit gave up');
    expect(await b.checkResults.newestFirst('acct', 'chk', { limit: 10 })).toEqual([]);
    expect(await b.checkResults.rollups('acct', 'chk', 'hourly', T0 - DAY, T0 + DAY)).toEqual([]);
    const stored = await a.transaction((tx) => tx.checkResults.appendRun('acct', [result('chk', T0 + 60_000)]));
    expect(await b.checkResults.newestFirst('acct', 'chk', { limit: 10 })).toEqual(stored);
    expect((await b.checkResults.rollups('acct', 'chk', 'hourly', T0 - DAY, T0 + DAY)).map((row) => row.results)).toEqual([1]);
  });

  it('stores a result under its own id once (appendKept): a second append of the id stores nothing and counts in no rollup', async () => {
    const [a, b] = await twoReplicas(engine);
    const ping = { ...result('chk', T0, { failing: true }), id: 'ping-7f3a' };
    expect(await a.checkResults.appendKept('acct', ping)).toBe(true);
    expect(await b.checkResults.appendKept('acct', { ...ping, hasFailures: false })).toBe(false);
    expect((await b.checkResults.find('acct', 'chk', 'ping-7f3a'))?.hasFailures).toBe(true);
    expect((await a.checkResults.rollups('acct', 'chk', 'daily', T0 - DAY, T0 + DAY)).map((row) => [row.results, row.failures])).toEqual([[1, 1]]);
    await expect(a.transaction(async (tx) => {
      expect(await tx.checkResults.appendKept('acct', { ...ping, id: 'ping-8b1c', created_at: new Date(T0 + 60_000).toISOString() })).toBe(true);
      throw new Error('the unit gave up');
    })).rejects.toThrow('the unit gave up');
    expect(await b.checkResults.find('acct', 'chk', 'ping-8b1c')).toBeUndefined();
    await expect(a.checkResults.appendKept('', ping)).rejects.toThrow('accountId must be a string that is not empty, got ""');
  });

  it.each([
    ['an empty run', () => ['acct', []], 'a run must have at least one try'],
    ['tries of two checks', () => ['acct', [result('a', T0), result('b', T0)]], 'the tries of one run must be of one check, got "a" and "b"'],
    ['a try without a time', () => ['acct', [{ ...result('a', T0), created_at: 'yesterday' }]], 'created_at must be an ISO time after 1970, got "yesterday"'],
    ['a try without a location', () => ['acct', [{ ...result('a', T0), runLocation: '' }]], 'runLocation must be a string that is not empty, got ""'],
    ['no account', () => ['', [result('a', T0)]], 'accountId must be a string that is not empty, got ""'],
  ] as const)('refuses to append %s, storing nothing', async (_name, input, message) => {
    const [a] = await twoReplicas(engine);
    const [accountId, tries] = input() as [string, CheckResultDocument[]];
    await expect(a.checkResults.appendRun(accountId, tries)).rejects.toThrow(message);
    expect(await a.checkResults.newestFirst('acct', 'a', { limit: 10 })).toEqual([]);
  });

  it('refuses bad reads, ranges and retentions with the same messages', async () => {
    const [a] = await twoReplicas(engine);
    await expect(a.checkResults.newestFirst('acct', 'chk', { limit: 0 })).rejects.toThrow('limit must be a whole number of at least 1, got 0');
    await expect(a.checkResults.newestFirst('acct', 'chk', { limit: 5, before: { createdMs: 1.5, id: 'x' } })).rejects.toThrow('before.createdMs must be a whole number of milliseconds since the epoch, got 1.5');
    await expect(a.checkResults.find('acct', '', 'x')).rejects.toThrow('checkId must be a string that is not empty, got ""');
    await expect(a.checkResults.rollups('acct', 'chk', 'weekly' as 'daily', 0, 1)).rejects.toThrow('granularity must be "hourly" or "daily", got "weekly"');
    await expect(a.checkResults.prune(T0, { rawMs: 0, hourlyMs: DAY, dailyMs: DAY })).rejects.toThrow('retention.rawMs must be a whole number of at least 1, got 0');
    await expect(a.checkResults.prepareDays(T0, T0 - 1)).rejects.toThrow(`toMs must not be before fromMs, got ${T0} to ${T0 - 1}`);
    await expect(a.checkResults.prepareDays(T0, T0 + 62 * DAY)).rejects.toThrow(`prepareDays covers at most 62 days, got ${T0} to ${T0 + 62 * DAY}`);
  });

});
