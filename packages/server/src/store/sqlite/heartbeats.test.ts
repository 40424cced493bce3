import { afterEach, describe, expect, it } from 'vitest';
import { latestMissedWindow, nextDeadlineMs } from '../../heartbeats/deadlines.js';
import { Store } from '../index.js';
import { MissedWindowTable } from './heartbeats.js';
import { sqlitePorts } from './index.js';

const stores: Store[] = [];
afterEach(() => stores.splice(0).forEach((store) => store.close()));

function openStore(): Store {
  const store = new Store(':memory:');
  stores.push(store);
  return store;
}

const ANCHOR = Date.UTC(2026, 10, 1, 8, 0, 0, 7);

describe('heartbeat deadlines of the port', () => {
  it('are the windows of heartbeats/deadlines.ts, however long the check went without a ping', async () => {
    const heartbeat = { period: 5, periodUnit: 'minutes', grace: 45, graceUnit: 'seconds' } as const;
    for (const elapsed of [0, 344_999, 345_000, 345_001, 644_999, 645_000, 7 * 86_400_000 + 123]) {
      const ports = sqlitePorts(openStore());
      await ports.heartbeatDeadlines.watch({ accountId: 'acc', checkId: 'hb', periodMs: 300_000, graceMs: 45_000, anchorMs: ANCHOR });
      const nowMs = ANCHOR + elapsed;
      const claimed = await ports.heartbeatDeadlines.claimMissed(nowMs, 10, 'r');
      expect(claimed.map((missed) => missed.dueMs)).toEqual(latestMissedWindow(heartbeat, ANCHOR, nowMs) ? [latestMissedWindow(heartbeat, ANCHOR, nowMs)!.dueMs] : []);
      // Nothing more until the next deadline the watch would wait for.
      const next = nextDeadlineMs(heartbeat, ANCHOR, nowMs);
      expect(await ports.heartbeatDeadlines.claimMissed(next - 1, 10, 'r')).toEqual([]);
      expect((await ports.heartbeatDeadlines.claimMissed(next, 10, 'r')).map((missed) => missed.dueMs)).toEqual([next]);
    }
  });

  it('never reports again a window a service from before the port recorded (reported by no one)', async () => {
    const store = openStore();
    const ports = sqlitePorts(store);
    await ports.heartbeatDeadlines.watch({ accountId: 'acc', checkId: 'hb', periodMs: 60_000, graceMs: 0, anchorMs: ANCHOR });
    const first = ANCHOR + 60_000;
    expect(new MissedWindowTable(store.db).claim('acc', 'hb', first, null)).toBe(true);
    expect(await ports.heartbeatDeadlines.claimMissed(first, 10, 'replica')).toEqual([]);
    expect(await ports.heartbeatDeadlines.reported('acc', 'hb')).toEqual({ dueMs: first, owner: null });
    expect(await ports.heartbeatDeadlines.claimMissed(first + 60_000, 10, 'replica')).toHaveLength(1);
    expect(await ports.heartbeatDeadlines.reported('acc', 'hb')).toEqual({ dueMs: first + 60_000, owner: 'replica' });
  });
});
