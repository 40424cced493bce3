import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { HeartbeatEvent } from '@vigil/schema';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { openRepositories } from '../repositories.js';
import { Store } from '../store/index.js';
import { HeartbeatEventPruning, PRUNE_EVERY_MS, PRUNE_HEARTBEAT_EVENTS_JOB } from './event-pruning.js';
import { HeartbeatWatch } from './watch.js';

const T0 = Date.parse('2026-11-27T12:00:00.000Z');
const DAY = 24 * 60 * 60 * 1000;
const cleanups: Array<() => void> = [];
afterEach(() => cleanups.splice(0).reverse().forEach((cleanup) => cleanup()));

function event(id: string, atMs: number): HeartbeatEvent {
  return { id, timestamp: new Date(atMs).toISOString(), state: 'RECEIVED', source: 'HTTP GET', userAgent: 'curl/8' };
}

describe('heartbeat events pruned on a timer', () => {
  it('are pruned once per period of all the watches on one database: by the one the periodic jobs port gives the turn to', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'vigil-heartbeat-prune-'));
    const [first, second] = [new Store(dir), new Store(dir)];
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }), () => first.close(), () => second.close());
    const [one, other] = [openRepositories(first), openRepositories(second)];
    // Stored before monitoring first starts on the database: processed without a result, so prunable.
    for (const stored of [event('old', T0 - 3 * DAY), event('fresh', T0 - DAY / 2)]) {
      await one.ports.heartbeatPings.record({ accountId: 'acct', checkId: 'c', id: stored.id, atMs: Date.parse(stored.timestamp), doc: JSON.stringify(stored) });
    }
    const prunes = vi.spyOn(HeartbeatEventPruning.prototype, 'prune');
    cleanups.push(() => prunes.mockRestore());
    const watchOn = (repositories: typeof one) => new HeartbeatWatch({ repositories, retentionDays: 1, refreshMs: 0 });
    const [a, b] = [watchOn(one), watchOn(other)];

    // Both tick in the same period: one of them prunes.
    await a.tick(T0);
    await b.tick(T0);
    expect(prunes).toHaveBeenCalledTimes(1);
    expect((await one.ports.heartbeatPings.ofCheck('acct', 'c', 0, Number.MAX_SAFE_INTEGER)).map((stored) => stored.id)).toEqual(['fresh']);
    const turn = await one.ports.periodicJobs.lastRun(PRUNE_HEARTBEAT_EVENTS_JOB);
    expect(turn?.atMs).toBe(T0);
    expect([one.replicaId, other.replicaId]).toContain(turn?.owner);

    // A watch started later in that period asks at once and is refused: its timer is its own, the turn is not.
    const late = watchOn(openRepositories(second));
    await late.tick(T0 + PRUNE_EVERY_MS / 2);
    expect(prunes).toHaveBeenCalledTimes(1);

    // Ticks within the period ask nothing; the next period is the next turn, again for one of them.
    await a.tick(T0 + 1000);
    await b.tick(T0 + 1000);
    expect(prunes).toHaveBeenCalledTimes(1);
    await a.tick(T0 + PRUNE_EVERY_MS);
    await b.tick(T0 + PRUNE_EVERY_MS);
    expect(prunes).toHaveBeenCalledTimes(2);
    expect((await one.ports.periodicJobs.lastRun(PRUNE_HEARTBEAT_EVENTS_JOB))?.atMs).toBe(T0 + PRUNE_EVERY_MS);
  });
});
