import { describe, expect, it } from 'vitest';
import { AdaptiveLimit, defaultMaxRunsInFlight, defaultProcessRuns, defaultSandboxedRuns, FixedLimit, MIN_RUNS_IN_FLIGHT, runLaneOf } from './concurrency.js';

const GIB = 1024 ** 3;

/** `perSecond` slots due in each of `seconds` seconds from `fromMs`, spread evenly; returns the moment after the last. */
function dueSteadily(limit: AdaptiveLimit, perSecond: number, seconds: number, fromMs: number): number {
  for (let second = 0; second < seconds; second++) {
    for (let slot = 0; slot < perSecond; slot++) limit.due(fromMs + second * 1000 + Math.floor((slot * 1000) / perSecond));
  }
  return fromMs + seconds * 1000;
}

function runsEnded(limit: AdaptiveLimit, count: number, durationMs: number): void {
  for (let run = 0; run < count; run++) limit.ended(durationMs);
}

describe('AdaptiveLimit', () => {
  it('stays at its floor of 50 before any run ended, whatever the due rate', () => {
    const limit = new AdaptiveLimit({ max: 2000 });
    const now = dueSteadily(limit, 500, 3, 0);
    expect(limit.current(now)).toBe(MIN_RUNS_IN_FLIGHT);
  });

  it('grows to due rate × mean duration × 1.5 when runs are slow and the due rate high', () => {
    const limit = new AdaptiveLimit({ max: 2000 });
    const now = dueSteadily(limit, 100, 5, 0);
    runsEnded(limit, 100, 1000);
    // 100 due a second × 1 s × 1.5: the 2,000 checks every 20 s against a target answering in 1 s.
    expect(limit.dueRate(now)).toBe(100);
    expect(limit.current(now)).toBe(150);
  });

  it('stays at 50 for fast runs at the same rate (Little: 100/s × 20 ms is 2 in flight)', () => {
    const limit = new AdaptiveLimit({ max: 2000 });
    const now = dueSteadily(limit, 100, 5, 0);
    runsEnded(limit, 100, 20);
    expect(limit.current(now)).toBe(50);
  });

  it('follows the busiest second of the last ten, not the mean, so a step of slots does not queue', () => {
    const limit = new AdaptiveLimit({ max: 2000 });
    runsEnded(limit, 1, 1000);
    let now = dueSteadily(limit, 10, 5, 0);
    now = dueSteadily(limit, 400, 1, now);
    now = dueSteadily(limit, 10, 3, now);
    expect(limit.current(now)).toBe(600);
  });

  it('shrinks back once the busy seconds are older than ten seconds', () => {
    const limit = new AdaptiveLimit({ max: 2000 });
    runsEnded(limit, 1, 1000);
    let now = dueSteadily(limit, 400, 2, 0);
    expect(limit.current(now)).toBe(600);
    now = dueSteadily(limit, 60, 10, now);
    expect(limit.current(now)).toBe(90);
    // Nothing due for a while: back to the floor.
    expect(limit.current(now + 60_000)).toBe(MIN_RUNS_IN_FLIGHT);
  });

  it('shrinks back when the runs get fast again', () => {
    const limit = new AdaptiveLimit({ max: 2000 });
    const now = dueSteadily(limit, 100, 5, 0);
    runsEnded(limit, 1, 4000);
    expect(limit.current(now)).toBe(600);
    runsEnded(limit, 200, 50);
    expect(limit.current(now)).toBe(MIN_RUNS_IN_FLIGHT);
  });

  it('never exceeds its maximum, however slow the runs and high the rate', () => {
    const limit = new AdaptiveLimit({ max: 300 });
    const now = dueSteadily(limit, 1000, 3, 0);
    runsEnded(limit, 10, 30_000);
    expect(limit.current(now)).toBe(300);
    expect(limit.max).toBe(300);
  });

  it('takes its maximum as the floor when the maximum is below 50', () => {
    const limit = new AdaptiveLimit({ max: 8 });
    expect(limit.current(0)).toBe(8);
    const now = dueSteadily(limit, 1000, 2, 0);
    runsEnded(limit, 10, 10_000);
    expect(limit.current(now)).toBe(8);
  });

  it('moves its mean duration a twentieth of the way to each new run', () => {
    const limit = new AdaptiveLimit({ max: 2000 });
    limit.ended(1000);
    limit.ended(3000);
    expect(limit.meanDurationMs).toBe(1100);
  });
});

describe('FixedLimit', () => {
  it('is the same number whatever is due or how long runs take', () => {
    const limit = new FixedLimit(50);
    limit.due(0);
    limit.ended(60_000);
    expect([limit.current(), limit.max]).toEqual([50, 50]);
  });
});

describe('defaultMaxRunsInFlight: max(50, min(open files / 2, min(heap / 2, memory / 4) / 1 MiB))', () => {
  it.each([
    ['Linux default of 1,024 open files: the sockets bound it', { openFiles: 1024, heapBytes: 4 * GIB, memoryBytes: 16 * GIB }, 512],
    ['a raised open-file limit and 4 GiB of heap: half the heap', { openFiles: 1_048_576, heapBytes: 4 * GIB, memoryBytes: 16 * GIB }, 2048],
    ['a small machine: a quarter of its memory', { openFiles: 1_048_576, heapBytes: 4 * GIB, memoryBytes: 1 * GIB }, 256],
    ['a tiny one: never below 50', { openFiles: 64, heapBytes: 64 * 1024 ** 2, memoryBytes: 128 * 1024 ** 2 }, 50],
  ])('%s', (_name, limits, expected) => {
    expect(defaultMaxRunsInFlight(limits)).toBe(expected);
  });
});

describe('lanes of check kinds', () => {
  it.each([
    ['API', 'network'],
    ['TCP', 'network'],
    ['URL', 'network'],
    ['DNS', 'network'],
    ['SSL', 'network'],
    ['GRPC', 'network'],
    ['BROWSER', 'sandboxed'],
    ['MULTI_STEP', 'sandboxed'],
    ['PLAYWRIGHT', 'sandboxed'],
    ['ICMP', 'process'],
    ['TRACEROUTE', 'process'],
    [undefined, 'network'],
  ])('%s runs in the %s lane', (checkType, lane) => {
    expect(runLaneOf(checkType)).toBe(lane);
  });

  it('caps sandboxed runs at one per core (at least two) and process runs at eight per core', () => {
    expect([defaultSandboxedRuns(1), defaultSandboxedRuns(2), defaultSandboxedRuns(16)]).toEqual([2, 2, 16]);
    expect([defaultProcessRuns(1), defaultProcessRuns(2)]).toEqual([8, 16]);
  });
});
