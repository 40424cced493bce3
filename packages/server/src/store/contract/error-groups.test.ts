/** The error-groups port, the same assertions on every engine (see engines.ts). */
import { describe, expect, it } from 'vitest';
import type { ErrorOccurrence } from '../ports.js';
import { enginesUnderTest, twoReplicas } from './engines.js';

const engines = enginesUnderTest();
const T0 = Date.UTC(2026, 10, 24, 8);
const error = (checkId: string, message: string, at: number): ErrorOccurrence => ({ checkId, message, at });

describe.each(engines)('error groups on $name', (engine) => {
  it('folds errors into one group per cleaned message and check, first and last seen, the latest raw message', async () => {
    const [a, b] = await twoReplicas(engine);
    await a.errorGroups.fold('acct', [error('chk', 'timeout after 5003ms', T0), error('chk', 'connection refused', T0)]);
    await b.errorGroups.fold('acct', [error('chk', 'timeout after 4871ms', T0 + 60_000), error('other', 'timeout after 12ms', T0)]);
    // An occurrence older than the group's last keeps the latest raw message.
    await a.errorGroups.fold('acct', [error('chk', 'timeout after 1ms', T0 - 60_000)]);
    const { items, total } = await b.errorGroups.ofCheck('acct', 'chk', { page: 1, limit: 10 });
    expect(total).toBe(2);
    expect(items.map((group) => [group.cleanedErrorMessage, group.rawErrorMessage, group.firstSeen, group.lastSeen])).toEqual([
      ['timeout after <number>ms', 'timeout after 4871ms', T0 - 60_000, T0 + 60_000],
      ['connection refused', 'connection refused', T0, T0],
    ]);
    expect(await a.errorGroups.find('acct', items[0]!.id)).toEqual(items[0]);
    expect(await a.errorGroups.find('other-acct', items[0]!.id)).toBeUndefined();
    expect((await a.errorGroups.ofCheck('acct', 'other', { page: 1, limit: 10 })).total).toBe(1);
  });

  it('pages a check\'s groups in the order they were started, with the total past the last page', async () => {
    const [a] = await twoReplicas(engine);
    await a.errorGroups.fold('acct', Array.from({ length: 5 }, (_, i) => error('chk', `failure kind ${String.fromCharCode(97 + i)}`, T0 + i)));
    const page2 = await a.errorGroups.ofCheck('acct', 'chk', { page: 2, limit: 2 });
    expect(page2.items.map((group) => group.rawErrorMessage)).toEqual(['failure kind c', 'failure kind d']);
    expect(page2.total).toBe(5);
    expect(await a.errorGroups.ofCheck('acct', 'chk', { page: 4, limit: 2 })).toEqual({ items: [], total: 5 });
  });

  it('loses no occurrence of two replicas folding the same error at once', async () => {
    const [a, b] = await twoReplicas(engine);
    await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).errorGroups.fold('acct', [error('chk', `timeout after ${i}ms`, T0 + i * 1000)])));
    const { items } = await a.errorGroups.ofCheck('acct', 'chk', { page: 1, limit: 10 });
    expect(items.map((group) => [group.firstSeen, group.lastSeen, group.rawErrorMessage])).toEqual([[T0, T0 + 19_000, 'timeout after 19ms']]);
  });

  it('archives until the next event, which brings the group back; archived for ever it stays archived', async () => {
    const [a, b] = await twoReplicas(engine);
    await a.errorGroups.fold('acct', [error('chk', 'connection refused', T0), error('chk', 'bad gateway', T0)]);
    const [refused, gateway] = (await a.errorGroups.ofCheck('acct', 'chk', { page: 1, limit: 10 })).items;
    expect(await b.errorGroups.archive('acct', refused!.id, { archivedUntilNextEvent: true }, T0 + 1000)).toMatchObject({ archivedUntilNextEvent: true, archivedAt: T0 + 1000 });
    await b.errorGroups.archive('acct', gateway!.id, { archiveForEver: true }, T0 + 1000);
    await a.errorGroups.fold('acct', [error('chk', 'connection refused', T0 + 2000), error('chk', 'bad gateway', T0 + 2000)]);
    expect(await a.errorGroups.find('acct', refused!.id)).toMatchObject({ archivedUntilNextEvent: false, lastSeen: T0 + 2000 });
    expect(await a.errorGroups.find('acct', gateway!.id)).toMatchObject({ archivedUntilNextEvent: true, archivedForever: true, lastSeen: T0 + 2000 });
    expect(await a.errorGroups.archive('acct', 'no-such-group', { archivedUntilNextEvent: true }, T0)).toBeUndefined();
  });

  it('takes part in a unit of work: a unit that throws starts and moves no group', async () => {
    const [a, b] = await twoReplicas(engine);
    await a.errorGroups.fold('acct', [error('chk', 'connection refused', T0)]);
    await expect(a.transaction(async (tx) => {
      await tx.errorGroups.fold('acct', [error('chk', 'connection refused', T0 + 60_000), error('chk', 'bad gateway', T0 + 60_000)]);
      throw new Error('the unit gave up');
    })).rejects.toThrow('the unit gave up');
    const { items } = await b.errorGroups.ofCheck('acct', 'chk', { page: 1, limit: 10 });
    expect(items.map((group) => [group.rawErrorMessage, group.lastSeen])).toEqual([['connection refused', T0]]);
  });

  it.each([
    ['no account', () => ['', [error('chk', 'x', T0)]], 'accountId must be a string that is not empty, got ""'],
    ['an error without a check', () => ['acct', [error('', 'x', T0)]], 'checkId must be a string that is not empty, got ""'],
    ['an error without a time', () => ['acct', [error('chk', 'x', 1.5)]], 'at must be a whole number of milliseconds since the epoch, got 1.5'],
  ] as const)('refuses to fold %s, storing nothing', async (_name, input, message) => {
    const [a] = await twoReplicas(engine);
    const [accountId, occurrences] = input() as [string, ErrorOccurrence[]];
    await expect(a.errorGroups.fold(accountId, occurrences)).rejects.toThrow(message);
    expect((await a.errorGroups.ofCheck('acct', 'chk', { page: 1, limit: 10 })).total).toBe(0);
  });

  it('refuses bad pages with the same messages', async () => {
    const [a] = await twoReplicas(engine);
    await expect(a.errorGroups.ofCheck('acct', 'chk', { page: 0, limit: 10 })).rejects.toThrow('page must be a whole number of at least 1, got 0');
    await expect(a.errorGroups.ofCheck('acct', '', { page: 1, limit: 10 })).rejects.toThrow('checkId must be a string that is not empty, got ""');
  });
});
