/** The check-statuses port, the same assertions on every engine (see engines.ts). */
import { describe, expect, it } from 'vitest';
import type { FinalResultFacts, StoragePorts } from '../ports.js';
import { enginesUnderTest, twoReplicas } from './engines.js';

const engines = enginesUnderTest();
const T0 = Date.UTC(2026, 10, 24, 8);

function final(checkId: string, at: number, options: { failing?: boolean; degraded?: boolean; responseTime?: number | null; sslDaysRemaining?: number } = {}): FinalResultFacts {
  return {
    name: `Check ${checkId}`, checkId, hasFailures: options.failing ?? false, hasErrors: false, isDegraded: options.degraded ?? false,
    responseTime: options.responseTime === undefined ? 40 : options.responseTime, runLocation: 'eu-west-1', checkRunId: Math.floor(at / 1000),
    stoppedAt: new Date(at).toISOString(), ...(options.sslDaysRemaining !== undefined ? { sslDaysRemaining: options.sslDaysRemaining } : {}),
  };
}

/** Creates checks named as given; resolves to their ids, in that order. */
async function withChecks(ports: StoragePorts, ...names: string[]): Promise<string[]> {
  const ids: string[] = [];
  for (const name of names) ids.push(String((await ports.documents.insert('checks', 'acct', (id) => ({ id, name, checkType: 'API' }))).id));
  return ids;
}

describe.each(engines)('check statuses on $name', (engine) => {
  it('folds each FINAL result into its check status: the last state, the longest and shortest runs, the certificate days last known', async () => {
    const [a, b] = await twoReplicas(engine);
    const [chk] = await withChecks(a, 'chk') as [string];
    const first = await a.checkStatuses.record('acct', final(chk, T0, { responseTime: 120, sslDaysRemaining: 30 }));
    expect(first).toEqual({
      name: `Check ${chk}`, checkId: chk, hasFailures: false, hasErrors: false, isDegraded: false, longestRun: 120, shortestRun: 120,
      lastRunLocation: 'eu-west-1', lastCheckRunId: String(T0 / 1000), sslDaysRemaining: 30, created_at: new Date(T0).toISOString(), updated_at: new Date(T0).toISOString(),
    });
    await b.checkStatuses.record('acct', final(chk, T0 + 60_000, { failing: true, responseTime: 300 }));
    const last = await a.checkStatuses.record('acct', final(chk, T0 + 120_000, { degraded: true, responseTime: null }));
    expect(last).toMatchObject({ hasFailures: false, isDegraded: true, longestRun: 300, shortestRun: 120, sslDaysRemaining: 30, created_at: new Date(T0).toISOString(), updated_at: new Date(T0 + 120_000).toISOString() });
    expect(await b.checkStatuses.find('acct', chk)).toEqual(last);
    expect(await b.checkStatuses.list('acct')).toEqual([last]);
  });

  it('counts every result of two replicas recording the same check at once', async () => {
    const [a, b] = await twoReplicas(engine);
    const [chk] = await withChecks(a, 'chk') as [string];
    await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).checkStatuses.record('acct', final(chk, T0 + i * 1000, { responseTime: 100 + i }))));
    expect(await a.checkStatuses.find('acct', chk)).toMatchObject({ longestRun: 119, shortestRun: 100 });
  });

  it('lists only the existing checks of the account, in the order they were created', async () => {
    const [a, b] = await twoReplicas(engine);
    const [second, first, deleted] = await withChecks(a, 'second', 'first', 'deleted') as [string, string, string];
    for (const id of [first, deleted, second, 'never-created']) await a.checkStatuses.record('acct', final(id, T0));
    await a.documents.remove('checks', 'acct', deleted);
    expect((await b.checkStatuses.list('acct')).map((status) => status.checkId)).toEqual([second, first]);
    expect(await b.checkStatuses.find('acct', deleted)).toBeUndefined();
    expect(await b.checkStatuses.find('acct', 'never-created')).toBeUndefined();
    expect(await b.checkStatuses.list('other-acct')).toEqual([]);
  });

  it('takes part in a unit of work: a unit that throws leaves the status as it was', async () => {
    const [a, b] = await twoReplicas(engine);
    const [chk] = await withChecks(a, 'chk') as [string];
    const before = await a.checkStatuses.record('acct', final(chk, T0));
    await expect(a.transaction(async (tx) => {
      await tx.checkStatuses.record('acct', final(chk, T0 + 60_000, { failing: true }));
      throw new Error('the unit gave up');
    })).rejects.toThrow('the unit gave up');
    expect(await b.checkStatuses.find('acct', chk)).toEqual(before);
  });

  it.each([
    ['no account', () => ['', final('chk', T0)], 'accountId must be a string that is not empty, got ""'],
    ['no check', () => ['acct', final('', T0)], 'checkId must be a string that is not empty, got ""'],
    ['no location', () => ['acct', { ...final('chk', T0), runLocation: '' }], 'runLocation must be a string that is not empty, got ""'],
  ] as const)('refuses a status with %s, storing nothing', async (_name, input, message) => {
    const [a] = await twoReplicas(engine);
    const [accountId, result] = input() as [string, FinalResultFacts];
    await expect(a.checkStatuses.record(accountId, result)).rejects.toThrow(message);
    expect(await a.checkStatuses.list('acct')).toEqual([]);
  });
});
