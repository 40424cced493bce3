/** The heartbeat-deadline port, the same assertions on every engine (see engines.ts). */
import { describe, expect, it } from 'vitest';
import type { StoragePorts, WatchedHeartbeat } from '../ports.js';
import { enginesUnderTest, twoReplicas } from './engines.js';

const engines = enginesUnderTest();
const ANCHOR = Date.UTC(2026, 10, 1);
const PERIOD = 60_000;
const GRACE = 30_000;
/** The first deadline of a heartbeat anchored at ANCHOR. */
const FIRST = ANCHOR + PERIOD + GRACE;
/** Longer than a period, so a lease that runs out has later windows of its check closed behind it. */
const LEASE = 2 * PERIOD;

function heartbeat(index: number, changes: Partial<WatchedHeartbeat> = {}): WatchedHeartbeat {
  return { accountId: 'acc', checkId: `hb-${String(index).padStart(3, '0')}`, periodMs: PERIOD, graceMs: GRACE, anchorMs: ANCHOR, ...changes };
}

/** Claims as `owner` and confirms every window it got, as a watch that stored their results does. */
async function claimConfirmed(ports: StoragePorts, nowMs: number, limit: number, owner: string) {
  const claimed = await ports.heartbeatDeadlines.claimMissed(nowMs, limit, owner, LEASE);
  expect(await ports.heartbeatDeadlines.reportedMissed(claimed, owner)).toEqual(claimed.map(() => true));
  return claimed;
}

describe.each(engines)('heartbeat deadlines on $name', (engine) => {
  it('gives the missed window of each of 60 heartbeats to exactly one of two replicas claiming at once', async () => {
    const [a, b] = await twoReplicas(engine);
    const all = Array.from({ length: 60 }, (_, i) => heartbeat(i));
    for (const watched of all) await a.heartbeatDeadlines.watch(watched);
    const rounds = await Promise.all(Array.from({ length: 12 }, (_, i) => (i % 2 === 0 ? a : b).heartbeatDeadlines.claimMissed(FIRST, 7, `replica-${i % 2}`, LEASE)));
    const claimed = rounds.flat();
    expect(claimed.map((missed) => missed.checkId).sort()).toEqual(all.map((watched) => watched.checkId));
    expect(new Set(claimed.map((missed) => missed.dueMs))).toEqual(new Set([FIRST]));
    // Not handed out again, while leased (unconfirmed) nor once confirmed.
    expect(await b.heartbeatDeadlines.claimMissed(FIRST + PERIOD - 1, 100, 'replica-1', LEASE)).toEqual([]);
    for (const [index, round] of rounds.entries()) expect(await b.heartbeatDeadlines.reportedMissed(round, `replica-${index % 2}`)).toEqual(round.map(() => true));
    expect(await b.heartbeatDeadlines.claimMissed(FIRST + PERIOD - 1, 100, 'replica-1', LEASE)).toEqual([]);
    const reported = await a.heartbeatDeadlines.reported('acc', 'hb-000');
    expect(reported?.dueMs).toBe(FIRST);
    expect(['replica-0', 'replica-1']).toContain(reported?.owner);
  });

  it('reports the first window at period + grace after the anchor, then one per period while no ping comes', async () => {
    const [a, b] = await twoReplicas(engine);
    await a.heartbeatDeadlines.watch(heartbeat(1));
    expect(await a.heartbeatDeadlines.claimMissed(FIRST - 1, 10, 'r', LEASE)).toEqual([]);
    expect(await claimConfirmed(b, FIRST, 10, 'r')).toEqual([{ accountId: 'acc', checkId: 'hb-001', dueMs: FIRST, anchorMs: ANCHOR }]);
    expect(await a.heartbeatDeadlines.claimMissed(FIRST + 5_000, 10, 'r', LEASE)).toEqual([]);
    expect(await a.heartbeatDeadlines.claimMissed(FIRST + PERIOD - 1, 10, 'r', LEASE)).toEqual([]);
    expect(await a.heartbeatDeadlines.claimMissed(FIRST + PERIOD, 10, 'r', LEASE)).toEqual([{ accountId: 'acc', checkId: 'hb-001', dueMs: FIRST + PERIOD, anchorMs: ANCHOR }]);
  });

  it('hands a claimed window to no one else while its lease runs, and to any caller once it ran out unconfirmed', async () => {
    const [a, b] = await twoReplicas(engine);
    await a.heartbeatDeadlines.watch(heartbeat(1));
    const window = { accountId: 'acc', checkId: 'hb-001', dueMs: FIRST, anchorMs: ANCHOR };
    expect(await a.heartbeatDeadlines.claimMissed(FIRST, 10, 'replica-a', LEASE)).toEqual([window]);
    expect(await a.heartbeatDeadlines.reported('acc', 'hb-001')).toEqual({ dueMs: FIRST, owner: 'replica-a', leaseUntilMs: FIRST + LEASE });
    expect(await b.heartbeatDeadlines.claimMissed(FIRST + LEASE - 1, 10, 'replica-b', LEASE)).toEqual([]);
    expect(await a.heartbeatDeadlines.claimMissed(FIRST + LEASE - 1, 10, 'replica-a', LEASE)).toEqual([]);
    // replica-a died holding it: the window it was for, not a later one that closed meanwhile.
    expect(await b.heartbeatDeadlines.claimMissed(FIRST + LEASE, 10, 'replica-b', LEASE)).toEqual([window]);
    expect(await a.heartbeatDeadlines.claimMissed(FIRST + LEASE, 10, 'replica-a', LEASE)).toEqual([]);
    expect(await a.heartbeatDeadlines.reported('acc', 'hb-001')).toEqual({ dueMs: FIRST, owner: 'replica-b', leaseUntilMs: FIRST + 2 * LEASE });
  });

  it('refuses the confirm of a holder whose lease was taken over, and keeps the window of the one that took it', async () => {
    const [a, b] = await twoReplicas(engine);
    await a.heartbeatDeadlines.watch(heartbeat(1));
    await a.heartbeatDeadlines.watch(heartbeat(2, { anchorMs: ANCHOR + LEASE - 1 }));
    const [first] = await a.heartbeatDeadlines.claimMissed(FIRST, 10, 'replica-a', LEASE);
    const [second] = await a.heartbeatDeadlines.claimMissed(FIRST + LEASE - 1, 10, 'replica-a', LEASE);
    expect([first?.checkId, second?.checkId]).toEqual(['hb-001', 'hb-002']);
    expect(await b.heartbeatDeadlines.claimMissed(FIRST + LEASE, 10, 'replica-b', LEASE)).toEqual([first]);
    // One answer per window: the first was taken over, the second is still replica-a's.
    expect(await a.heartbeatDeadlines.reportedMissed([first!, second!], 'replica-a')).toEqual([false, true]);
    expect(await a.heartbeatDeadlines.reportedMissed([second!], 'replica-a')).toEqual([false]);
    expect(await a.heartbeatDeadlines.reported('acc', 'hb-001')).toEqual({ dueMs: FIRST, owner: 'replica-b', leaseUntilMs: FIRST + 2 * LEASE });
    expect(await b.heartbeatDeadlines.reportedMissed([first!], 'replica-b')).toEqual([true]);
    expect(await a.heartbeatDeadlines.reported('acc', 'hb-001')).toEqual({ dueMs: FIRST, owner: 'replica-b', leaseUntilMs: null });
    expect(await b.heartbeatDeadlines.reportedMissed([], 'replica-b')).toEqual([]);
  });

  it('never hands a confirmed window out again, and hands out the latest window of its check after the confirm', async () => {
    const [a, b] = await twoReplicas(engine);
    await a.heartbeatDeadlines.watch(heartbeat(1));
    expect(await claimConfirmed(a, FIRST, 10, 'replica-a')).toHaveLength(1);
    expect(await b.heartbeatDeadlines.claimMissed(FIRST + PERIOD - 1, 10, 'replica-b', LEASE)).toEqual([]);
    const [held] = await a.heartbeatDeadlines.claimMissed(FIRST + PERIOD, 10, 'replica-a', LEASE);
    expect(held).toEqual({ accountId: 'acc', checkId: 'hb-001', dueMs: FIRST + PERIOD, anchorMs: ANCHOR });
    await a.heartbeatDeadlines.watch(heartbeat(2));
    // hb-001's next window closed while replica-a held its claim: held back until the confirm.
    expect(await b.heartbeatDeadlines.claimMissed(FIRST + 2 * PERIOD, 10, 'replica-b', LEASE)).toEqual([{ accountId: 'acc', checkId: 'hb-002', dueMs: FIRST + 2 * PERIOD, anchorMs: ANCHOR }]);
    expect(await a.heartbeatDeadlines.reportedMissed([held!], 'replica-a')).toEqual([true]);
    expect(await b.heartbeatDeadlines.claimMissed(FIRST + 2 * PERIOD, 10, 'replica-b', LEASE)).toEqual([{ accountId: 'acc', checkId: 'hb-001', dueMs: FIRST + 2 * PERIOD, anchorMs: ANCHOR }]);
  });

  it('gives the claimed window of a forgotten heartbeat up: never handed out again, its late confirm refused', async () => {
    const [a, b] = await twoReplicas(engine);
    await a.heartbeatDeadlines.watch(heartbeat(1));
    const claimed = await a.heartbeatDeadlines.claimMissed(FIRST, 10, 'replica-a', LEASE);
    expect(await b.heartbeatDeadlines.forget('acc', 'hb-001')).toBe(true);
    expect(await b.heartbeatDeadlines.claimMissed(FIRST + LEASE, 10, 'replica-b', LEASE)).toEqual([]);
    expect(await a.heartbeatDeadlines.reportedMissed(claimed, 'replica-a')).toEqual([false]);
    expect(await b.heartbeatDeadlines.reported('acc', 'hb-001')).toEqual({ dueMs: FIRST, owner: 'replica-a', leaseUntilMs: null });
  });

  it('reports only the latest of the windows that closed while nobody claimed', async () => {
    const [a] = await twoReplicas(engine);
    await a.heartbeatDeadlines.watch(heartbeat(1));
    const [missed] = await claimConfirmed(a, FIRST + 10 * PERIOD + 5, 10, 'r');
    expect(missed?.dueMs).toBe(FIRST + 10 * PERIOD);
    expect(await a.heartbeatDeadlines.claimMissed(FIRST + 11 * PERIOD - 1, 10, 'r', LEASE)).toEqual([]);
    expect((await a.heartbeatDeadlines.claimMissed(FIRST + 11 * PERIOD, 10, 'r', LEASE))[0]?.dueMs).toBe(FIRST + 11 * PERIOD);
  });

  it('hands out the earliest deadlines first, up to the limit', async () => {
    const [a] = await twoReplicas(engine);
    await a.heartbeatDeadlines.watch(heartbeat(1, { anchorMs: ANCHOR + 3 }));
    await a.heartbeatDeadlines.watch(heartbeat(2, { anchorMs: ANCHOR + 1 }));
    await a.heartbeatDeadlines.watch(heartbeat(3, { anchorMs: ANCHOR + 2 }));
    expect((await a.heartbeatDeadlines.claimMissed(FIRST + 10, 2, 'r', LEASE)).map((missed) => [missed.checkId, missed.dueMs])).toEqual([
      ['hb-002', FIRST + 1],
      ['hb-003', FIRST + 2],
    ]);
    expect((await a.heartbeatDeadlines.claimMissed(FIRST + 10, 2, 'r', LEASE)).map((missed) => missed.checkId)).toEqual(['hb-001']);
  });

  it('restarts the windows from a ping, seen by the other replica, and ignores an older ping', async () => {
    const [a, b] = await twoReplicas(engine);
    await a.heartbeatDeadlines.watch(heartbeat(1));
    const ping = ANCHOR + 80_000;
    expect(await b.heartbeatDeadlines.recordPing('acc', 'hb-001', ping)).toBe(true);
    expect(await b.heartbeatDeadlines.recordPing('acc', 'hb-001', ping - 1)).toBe(false);
    expect(await b.heartbeatDeadlines.recordPing('acc', 'hb-404', ping)).toBe(false);
    expect(await a.heartbeatDeadlines.claimMissed(ping + PERIOD + GRACE - 1, 10, 'r', LEASE)).toEqual([]);
    expect(await a.heartbeatDeadlines.claimMissed(ping + PERIOD + GRACE, 10, 'r', LEASE)).toEqual([{ accountId: 'acc', checkId: 'hb-001', dueMs: ping + PERIOD + GRACE, anchorMs: ping }]);
  });

  it('keeps the later anchor when watched again with an older one, and applies a new period', async () => {
    const [a, b] = await twoReplicas(engine);
    await a.heartbeatDeadlines.watch(heartbeat(1, { anchorMs: ANCHOR + 1_000 }));
    await b.heartbeatDeadlines.watch(heartbeat(1));
    expect(await a.heartbeatDeadlines.claimMissed(FIRST + 999, 10, 'r', LEASE)).toEqual([]);
    await b.heartbeatDeadlines.watch(heartbeat(1, { periodMs: 2 * PERIOD }));
    expect(await a.heartbeatDeadlines.claimMissed(FIRST + 1_000, 10, 'r', LEASE)).toEqual([]);
    expect(await a.heartbeatDeadlines.claimMissed(FIRST + PERIOD + 1_000, 10, 'r', LEASE)).toEqual([
      { accountId: 'acc', checkId: 'hb-001', dueMs: ANCHOR + 1_000 + 2 * PERIOD + GRACE, anchorMs: ANCHOR + 1_000 },
    ]);
  });

  it('stops watching a forgotten heartbeat, and never reports a window again when it is watched again', async () => {
    const [a, b] = await twoReplicas(engine);
    await a.heartbeatDeadlines.watch(heartbeat(1));
    expect(await claimConfirmed(a, FIRST, 10, 'replica-a')).toHaveLength(1);
    expect(await b.heartbeatDeadlines.forget('acc', 'hb-001')).toBe(true);
    expect(await b.heartbeatDeadlines.forget('acc', 'hb-001')).toBe(false);
    expect(await a.heartbeatDeadlines.claimMissed(FIRST + 5 * PERIOD, 10, 'replica-a', LEASE)).toEqual([]);
    await b.heartbeatDeadlines.watch(heartbeat(1));
    expect(await b.heartbeatDeadlines.claimMissed(FIRST + 1, 10, 'replica-b', LEASE)).toEqual([]);
    expect(await b.heartbeatDeadlines.reported('acc', 'hb-001')).toEqual({ dueMs: FIRST, owner: 'replica-a', leaseUntilMs: null });
    expect(await b.heartbeatDeadlines.reported('acc', 'hb-002')).toBeUndefined();
  });

  it('keeps accounts apart', async () => {
    const [a, b] = await twoReplicas(engine);
    await a.heartbeatDeadlines.watch(heartbeat(1, { accountId: 'acc-1' }));
    await b.heartbeatDeadlines.watch(heartbeat(1, { accountId: 'acc-2', anchorMs: ANCHOR + 10 }));
    expect(await a.heartbeatDeadlines.recordPing('acc-1', 'hb-001', ANCHOR + 500)).toBe(true);
    expect((await b.heartbeatDeadlines.claimMissed(FIRST + 10, 10, 'r', LEASE)).map((missed) => missed.accountId)).toEqual(['acc-2']);
  });

  it.each([
    ['an empty account', heartbeat(1, { accountId: '' }), 'accountId must be a string that is not empty, got ""'],
    ['a period of 0', heartbeat(1, { periodMs: 0 }), 'periodMs must be a whole number of at least 1, got 0'],
    ['a negative grace', heartbeat(1, { graceMs: -1 }), 'graceMs must be a whole number of at least 0, got -1'],
    ['a fractional anchor', heartbeat(1, { anchorMs: ANCHOR + 0.5 }), `anchorMs must be a whole number of milliseconds since the epoch, got ${ANCHOR + 0.5}`],
  ])('refuses to watch a heartbeat with %s', async (_name, watched, message) => {
    const [a] = await twoReplicas(engine);
    await expect(a.heartbeatDeadlines.watch(watched)).rejects.toThrow(message);
    expect(await a.heartbeatDeadlines.claimMissed(FIRST + 10 * PERIOD, 10, 'r', LEASE)).toEqual([]);
  });

  it('refuses bad pings, claims and look-ups with errors that name them', async () => {
    const [a] = await twoReplicas(engine);
    await expect(a.heartbeatDeadlines.recordPing('acc', '', ANCHOR)).rejects.toThrow('checkId must be a string that is not empty, got ""');
    await expect(a.heartbeatDeadlines.recordPing('acc', 'hb-001', -1)).rejects.toThrow('pingMs must be a whole number of milliseconds since the epoch, got -1');
    await expect(a.heartbeatDeadlines.claimMissed(Number.NaN, 10, 'r', LEASE)).rejects.toThrow('nowMs must be a whole number of milliseconds since the epoch, got NaN');
    await expect(a.heartbeatDeadlines.claimMissed(FIRST, 0, 'r', LEASE)).rejects.toThrow('limit must be a whole number of at least 1, got 0');
    await expect(a.heartbeatDeadlines.claimMissed(FIRST, 10, '', LEASE)).rejects.toThrow('claim owner must be a string of 1 to 200 characters, got ""');
    await expect(a.heartbeatDeadlines.claimMissed(FIRST, 10, 'r', 0)).rejects.toThrow('leaseMs must be a whole number of at least 1, got 0');
    await expect(a.heartbeatDeadlines.reportedMissed([{ accountId: 'acc', checkId: 'hb-001', dueMs: FIRST }], '')).rejects.toThrow('claim owner must be a string of 1 to 200 characters, got ""');
    await expect(a.heartbeatDeadlines.reportedMissed([{ accountId: 'acc', checkId: 'hb-001', dueMs: -1 }], 'r')).rejects.toThrow('dueMs must be a whole number of milliseconds since the epoch, got -1');
    await expect(a.heartbeatDeadlines.reportedMissed([{ accountId: 'acc', checkId: '', dueMs: FIRST }], 'r')).rejects.toThrow('checkId must be a string that is not empty, got ""');
    await expect(a.heartbeatDeadlines.forget('', 'hb-001')).rejects.toThrow('accountId must be a string that is not empty, got ""');
    await expect(a.heartbeatDeadlines.reported('acc', '')).rejects.toThrow('checkId must be a string that is not empty, got ""');
  });
});
