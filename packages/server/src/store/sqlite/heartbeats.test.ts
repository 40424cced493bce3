import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { latestMissedWindow, nextDeadlineMs } from '../../heartbeats/deadlines.js';
import { Store } from '../index.js';
import { MissedWindowTable } from './heartbeats.js';
import { sqlitePorts } from './index.js';

const stores: Store[] = [];
const dirs: string[] = [];
afterEach(() => {
  stores.splice(0).forEach((store) => store.close());
  dirs.splice(0).forEach((dir) => rmSync(dir, { recursive: true, force: true }));
});

function openStore(): Store {
  const store = new Store(':memory:');
  stores.push(store);
  return store;
}

const ANCHOR = Date.UTC(2026, 10, 1, 8, 0, 0, 7);
const LEASE = 60_000;

describe('heartbeat deadlines of the port', () => {
  it('are the windows of heartbeats/deadlines.ts, however long the check went without a ping', async () => {
    const heartbeat = { period: 5, periodUnit: 'minutes', grace: 45, graceUnit: 'seconds' } as const;
    for (const elapsed of [0, 344_999, 345_000, 345_001, 644_999, 645_000, 7 * 86_400_000 + 123]) {
      const ports = sqlitePorts(openStore());
      await ports.heartbeatDeadlines.watch({ accountId: 'acc', checkId: 'hb', periodMs: 300_000, graceMs: 45_000, anchorMs: ANCHOR });
      const nowMs = ANCHOR + elapsed;
      const claimed = await ports.heartbeatDeadlines.claimMissed(nowMs, 10, 'r', LEASE);
      expect(claimed.map((missed) => missed.dueMs)).toEqual(latestMissedWindow(heartbeat, ANCHOR, nowMs) ? [latestMissedWindow(heartbeat, ANCHOR, nowMs)!.dueMs] : []);
      await ports.heartbeatDeadlines.reportedMissed(claimed, 'r');
      // Nothing more until the next deadline the watch would wait for.
      const next = nextDeadlineMs(heartbeat, ANCHOR, nowMs);
      expect(await ports.heartbeatDeadlines.claimMissed(next - 1, 10, 'r', LEASE)).toEqual([]);
      expect((await ports.heartbeatDeadlines.claimMissed(next, 10, 'r', LEASE)).map((missed) => missed.dueMs)).toEqual([next]);
    }
  });

  it('never reports again a window a service from before the port recorded (reported by no one)', async () => {
    const store = openStore();
    const ports = sqlitePorts(store);
    await ports.heartbeatDeadlines.watch({ accountId: 'acc', checkId: 'hb', periodMs: 60_000, graceMs: 0, anchorMs: ANCHOR });
    const first = ANCHOR + 60_000;
    expect(new MissedWindowTable(store.db).claim('acc', 'hb', first, null)).toBe(true);
    expect(await ports.heartbeatDeadlines.claimMissed(first, 10, 'replica', LEASE)).toEqual([]);
    expect(await ports.heartbeatDeadlines.reported('acc', 'hb')).toEqual({ dueMs: first, owner: null, leaseUntilMs: null });
    expect(await ports.heartbeatDeadlines.claimMissed(first + 60_000, 10, 'replica', LEASE)).toHaveLength(1);
    expect(await ports.heartbeatDeadlines.reported('acc', 'hb')).toEqual({ dueMs: first + 60_000, owner: 'replica', leaseUntilMs: first + 60_000 + LEASE });
  });

  it('counts a window claimed before claims were leases as confirmed, so an upgrade never fails it again', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'vigil-heartbeat-lease-'));
    dirs.push(dir);
    const before = new Store(dir, { through: 34 });
    const first = ANCHOR + 60_000;
    before.db.prepare('INSERT INTO heartbeat_timings (account_id, check_id, period_ms, grace_ms, anchor_ms, next_due_ms) VALUES (?, ?, ?, ?, ?, ?)').run('acc', 'hb', 60_000, 0, ANCHOR, first + 60_000);
    before.db.prepare('INSERT INTO heartbeat_deadlines (account_id, check_id, reported_due_ms, reported_by) VALUES (?, ?, ?, ?)').run('acc', 'hb', first, 'replica-before');
    before.close();
    const ports = sqlitePorts(new Store(dir));
    expect(await ports.heartbeatDeadlines.claimMissed(first + 60_000 - 1, 10, 'replica', LEASE)).toEqual([]);
    expect(await ports.heartbeatDeadlines.reported('acc', 'hb')).toEqual({ dueMs: first, owner: 'replica-before', leaseUntilMs: null });
    expect((await ports.heartbeatDeadlines.claimMissed(first + 60_000, 10, 'replica', LEASE)).map((missed) => missed.dueMs)).toEqual([first + 60_000]);
    await ports.close();
  });
});
