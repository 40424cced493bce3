import { RUN_WIRE_VERSION, type RunJob } from '@vigil/schema';
import { afterEach, describe, expect, it } from 'vitest';
import { Store } from '../index.js';
import { AgentLeaseTable } from './agent-leases.js';

const LEASE_MS = 3000;
const stores: Store[] = [];
afterEach(() => stores.splice(0).forEach((store) => store.close()));

function table(): AgentLeaseTable {
  const store = new Store(':memory:');
  stores.push(store);
  return new AgentLeaseTable(store.db);
}

function job(checkId: string, dueMs: number, location = 'eu-west-1'): RunJob {
  return {
    wireVersion: RUN_WIRE_VERSION,
    key: `${checkId}@${dueMs}@${location}`,
    accountId: 'acct',
    checkId,
    location,
    dueMs,
    check: { checkType: 'API', name: checkId },
    group: null,
  };
}

describe('AgentLeaseTable', () => {
  it('hands a queued run to one agent of its location at a time, oldest slot first', () => {
    const leases = table();
    expect(leases.enqueue(job('b', 2000), 2000).queued).toBe(true);
    expect(leases.enqueue(job('a', 1000), 2000).queued).toBe(true);
    expect(leases.enqueue(job('c', 1000, 'us-east-1'), 2000).queued).toBe(true);
    const first = leases.claim('eu-west-1', 'agent-1', 1, 2100, LEASE_MS);
    expect(first.map((run) => run.job.key)).toEqual(['a@1000@eu-west-1']);
    expect(first[0]!.leaseExpiresMs).toBe(2100 + LEASE_MS);
    const second = leases.claim('eu-west-1', 'agent-2', 5, 2100, LEASE_MS);
    expect(second.map((run) => run.job.key)).toEqual(['b@2000@eu-west-1']);
    expect(leases.claim('eu-west-1', 'agent-3', 5, 2100, LEASE_MS)).toEqual([]);
  });

  it('queues a slot once', () => {
    const leases = table();
    expect(leases.enqueue(job('a', 1000), 1000).queued).toBe(true);
    expect(leases.enqueue(job('a', 1000), 1000).queued).toBe(false);
  });

  it('hands a run again once its lease expired, under a new lease id', () => {
    const leases = table();
    leases.enqueue(job('a', 1000), 1000);
    const [lost] = leases.claim('eu-west-1', 'agent-1', 1, 1000, LEASE_MS);
    expect(leases.claim('eu-west-1', 'agent-2', 1, 1000 + LEASE_MS - 1, LEASE_MS)).toEqual([]);
    const [again] = leases.claim('eu-west-1', 'agent-2', 1, 1000 + LEASE_MS, LEASE_MS);
    expect(again!.job.key).toBe('a@1000@eu-west-1');
    expect(again!.leaseId).not.toBe(lost!.leaseId);
  });

  it('keeps a renewed lease and refuses to renew a lease handed to another agent', () => {
    const leases = table();
    leases.enqueue(job('a', 1000), 1000);
    const [held] = leases.claim('eu-west-1', 'agent-1', 1, 1000, LEASE_MS);
    expect(leases.renew('agent-1', [held!.leaseId], 3000, LEASE_MS)).toEqual([held!.leaseId]);
    expect(leases.claim('eu-west-1', 'agent-2', 1, 1000 + LEASE_MS, LEASE_MS)).toEqual([]);
    expect(leases.renew('agent-2', [held!.leaseId], 3000, LEASE_MS)).toEqual([]);
    const [taken] = leases.claim('eu-west-1', 'agent-2', 1, 3000 + LEASE_MS, LEASE_MS);
    expect(taken!.job.key).toBe('a@1000@eu-west-1');
    expect(leases.renew('agent-1', [held!.leaseId], 3000 + LEASE_MS, LEASE_MS)).toEqual([]);
  });

  it('records a report once: a second report under the same lease is refused', () => {
    const leases = table();
    leases.enqueue(job('a', 1000), 1000);
    const [held] = leases.claim('eu-west-1', 'agent-1', 1, 1000, LEASE_MS);
    expect(leases.complete(held!.leaseId, 'a@1000@eu-west-1', 1500)).toMatchObject({ kind: 'completed', agentId: 'agent-1', job: { key: 'a@1000@eu-west-1' } });
    expect(leases.complete(held!.leaseId, 'a@1000@eu-west-1', 1600)).toEqual({ kind: 'already-finished', key: 'a@1000@eu-west-1', outcome: 'reported' });
    expect(leases.claim('eu-west-1', 'agent-2', 1, 1000 + LEASE_MS, LEASE_MS)).toEqual([]);
  });

  it('refuses the report of an agent whose expired lease was handed to another, and records the new holder\'s', () => {
    const leases = table();
    leases.enqueue(job('a', 1000), 1000);
    const [stale] = leases.claim('eu-west-1', 'agent-1', 1, 1000, LEASE_MS);
    const [current] = leases.claim('eu-west-1', 'agent-2', 1, 1000 + LEASE_MS, LEASE_MS);
    expect(leases.complete(stale!.leaseId, 'a@1000@eu-west-1', 5000)).toEqual({ kind: 'unknown-lease' });
    expect(leases.complete(current!.leaseId, 'a@1000@eu-west-1', 5000)).toMatchObject({ kind: 'completed', agentId: 'agent-2' });
  });

  it('accepts the report of an expired lease nobody else took', () => {
    const leases = table();
    leases.enqueue(job('a', 1000), 1000);
    const [late] = leases.claim('eu-west-1', 'agent-1', 1, 1000, LEASE_MS);
    expect(leases.complete(late!.leaseId, 'a@1000@eu-west-1', 1000 + 10 * LEASE_MS)).toMatchObject({ kind: 'completed' });
  });

  it('refuses a report whose key is not the leased run', () => {
    const leases = table();
    leases.enqueue(job('a', 1000), 1000);
    const [held] = leases.claim('eu-west-1', 'agent-1', 1, 1000, LEASE_MS);
    expect(leases.complete(held!.leaseId, 'b@1000@eu-west-1', 1500)).toEqual({ kind: 'other-run', key: 'a@1000@eu-west-1' });
  });

  it('replaces an older slot no agent started by the newer one of the same check and location', () => {
    const leases = table();
    leases.enqueue(job('a', 1000), 1000);
    leases.enqueue(job('a', 2000), 2000);
    expect(leases.claim('eu-west-1', 'agent-1', 5, 2000, LEASE_MS).map((run) => run.job.key)).toEqual(['a@2000@eu-west-1']);
  });

  it('keeps an older slot an agent started, so a peer runs it once its lease expires', () => {
    const leases = table();
    leases.enqueue(job('a', 1000), 1000);
    leases.claim('eu-west-1', 'agent-1', 1, 1000, LEASE_MS);
    leases.enqueue(job('a', 20_000), 20_000);
    expect(leases.claim('eu-west-1', 'agent-2', 5, 20_000, LEASE_MS).map((run) => run.job.key)).toEqual(['a@1000@eu-west-1', 'a@20000@eu-west-1']);
  });

  it('lists waiting runs of a location, gives them up as not executed, and refuses a report after that', () => {
    const leases = table();
    leases.enqueue(job('a', 1000), 1000);
    leases.enqueue(job('b', 1000, 'us-east-1'), 1000);
    const [held] = leases.claim('eu-west-1', 'agent-1', 1, 1000, LEASE_MS);
    expect(leases.openLocations().sort()).toEqual(['eu-west-1', 'us-east-1']);
    expect(leases.waiting('eu-west-1', 1000, 2000)).toEqual([]);
    const waiting = leases.waiting('eu-west-1', 1000, 1000 + LEASE_MS);
    expect(waiting.map((run) => [run.key, run.handouts])).toEqual([['a@1000@eu-west-1', 1]]);
    expect(leases.giveUp('acct', 'a@1000@eu-west-1', 5000)).toBe(true);
    expect(leases.giveUp('acct', 'a@1000@eu-west-1', 5000)).toBe(false);
    expect(leases.complete(held!.leaseId, 'a@1000@eu-west-1', 5000)).toEqual({ kind: 'already-finished', key: 'a@1000@eu-west-1', outcome: 'not-executed' });
    expect(leases.openLocations()).toEqual(['us-east-1']);
  });

  it('counts the live leases each agent holds', () => {
    const leases = table();
    leases.enqueue(job('a', 1000), 1000);
    leases.enqueue(job('b', 1000), 1000);
    leases.claim('eu-west-1', 'agent-1', 2, 1000, LEASE_MS);
    expect(leases.heldByAgent(1000)).toEqual(new Map([['agent-1', 2]]));
    expect(leases.heldByAgent(1000 + LEASE_MS)).toEqual(new Map());
  });

  it('prunes finished runs after a day and keeps open ones', () => {
    const leases = table();
    leases.enqueue(job('a', 1000), 1000);
    leases.enqueue(job('b', 1000), 1000);
    leases.giveUp('acct', 'a@1000@eu-west-1', 1000);
    expect(leases.pruneBatch(1000 + 24 * 60 * 60 * 1000 + 1)).toBe(1);
    expect(leases.openLocations()).toEqual(['eu-west-1']);
  });
});
