import { describe, expect, it } from 'vitest';
import { LanedRunQueue, waitingBound } from './lanes.js';
import type { RunJob } from './queue.js';

function job(checkId: string, checkType: string, dueMs = 0): RunJob {
  return { slot: { accountId: 'a', checkId, dueMs, location: 'eu-west-1', key: `${checkId}@${dueMs}@eu-west-1` }, check: { id: checkId, checkType } };
}

async function settle(): Promise<void> {
  for (let turn = 0; turn < 5; turn++) await Promise.resolve();
}

/** Runs that end when the test says so, on a clock the test moves. */
function harness(options: { maxRunsInFlight: number; sandboxedRuns: number; processRuns: number }) {
  const clock = { ms: 0 };
  const finishers = new Map<string, () => void>();
  const dropped: string[] = [];
  const queue = new LanedRunQueue((run) => new Promise<void>((resolve) => finishers.set(run.slot.key, resolve)), {
    ...options,
    reserve: 0,
    onError: () => undefined,
    onDropped: (run, lane) => dropped.push(`${lane} ${run.slot.key}`),
    now: () => clock.ms,
  });
  const finishAll = async () => {
    for (const [key, finish] of [...finishers]) {
      finishers.delete(key);
      finish();
    }
    await settle();
  };
  return { queue, clock, dropped, finishAll };
}

describe('LanedRunQueue', () => {
  it('grows the network limit with slow runs at a high due rate while browser, multi-step and ICMP runs stay at their caps', async () => {
    const { queue, clock, finishAll } = harness({ maxRunsInFlight: 1000, sandboxedRuns: 2, processRuns: 3 });
    let serial = 0;
    // Each second: 200 API, 10 browser, 10 multi-step and 10 ICMP runs fall due, every run takes one second.
    for (let second = 0; second < 3; second++) {
      for (let index = 0; index < 200; index++) queue.submit(job(`api-${serial++}`, 'API', clock.ms));
      for (let index = 0; index < 10; index++) {
        queue.submit(job(`browser-${serial++}`, 'BROWSER', clock.ms));
        queue.submit(job(`flow-${serial++}`, 'MULTI_STEP', clock.ms));
        queue.submit(job(`ping-${serial++}`, 'ICMP', clock.ms));
      }
      clock.ms += 1000;
      await finishAll();
    }
    for (let index = 0; index < 250; index++) queue.submit(job(`api-${serial++}`, 'API', clock.ms));
    for (let index = 0; index < 10; index++) {
      queue.submit(job(`browser-${serial++}`, 'BROWSER', clock.ms));
      queue.submit(job(`ping-${serial++}`, 'ICMP', clock.ms));
    }
    const { network, sandboxed, process } = queue.lanes;
    // The busiest second (this one, 250 due) × 1 s × 1.5 headroom: all 250 start at once, where 50 did before.
    expect([network.limit, network.running, network.waiting]).toEqual([375, 250, 0]);
    expect([sandboxed.limit, sandboxed.running]).toEqual([2, 2]);
    expect([process.limit, process.running]).toEqual([3, 3]);
    expect(queue.running).toBe(network.running + 5);
  });

  it('never takes the network limit past --max-runs-in-flight', async () => {
    const { queue, clock, finishAll } = harness({ maxRunsInFlight: 120, sandboxedRuns: 2, processRuns: 3 });
    for (let second = 0; second < 3; second++) {
      for (let index = 0; index < 500; index++) queue.submit(job(`api-${second}-${index}`, 'API', clock.ms));
      clock.ms += 5000;
      await finishAll();
    }
    expect([queue.lanes.network.limit, queue.lanes.network.running]).toEqual([120, 120]);
  });

  it("reports a slot dropped from a full lane's line with its lane", () => {
    const { queue, dropped } = harness({ maxRunsInFlight: 50, sandboxedRuns: 2, processRuns: 3 });
    const places = 2 + waitingBound(2);
    for (let index = 0; index <= places; index++) queue.submit(job(`browser-${index}`, 'BROWSER', index));
    expect(dropped).toEqual(['sandboxed browser-2@2@eu-west-1']);
    expect([queue.dropped, queue.lanes.sandboxed.waiting, queue.lanes.network.dropped]).toEqual([1, 100, 0]);
  });

  it('bounds a lane at four times its limit, and never below 100', () => {
    expect([waitingBound(2), waitingBound(50), waitingBound(2048)]).toEqual([100, 200, 8192]);
  });
});
