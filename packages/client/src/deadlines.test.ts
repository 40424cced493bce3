import { describe, expect, it } from 'vitest';
import { AttemptSignal } from './attempt-signal.js';
import { Deadlines } from './deadlines.js';

// Real timers: what is under test is how the timer is armed, re-armed and referenced. Assertions hold
// however late a loaded machine runs the timers: never aborted early, aborted eventually.
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const refTimers = () => process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;

async function until(condition: () => boolean): Promise<void> {
  for (const startedAt = performance.now(); !condition(); await sleep(5)) {
    if (performance.now() - startedAt > 5_000) throw new Error('condition not met within 5 s');
  }
}

/** Deadlines whose attempts record when they started and when they timed out. */
function recording(timeoutMs: number) {
  const startedAt = new Map<AttemptSignal, number>();
  const timedOutAfter = new Map<AttemptSignal, number>();
  const deadlines = new Deadlines(timeoutMs, (signal) => {
    timedOutAfter.set(signal, performance.now() - startedAt.get(signal)!);
    signal.abort('timeout');
  });
  const start = () => {
    const signal = new AttemptSignal();
    startedAt.set(signal, performance.now());
    return { signal, handle: deadlines.start(signal) };
  };
  return { deadlines, start, timedOutAfter };
}

describe('Deadlines', () => {
  it('aborts an attempt that is not settled within the timeout, and not before', async () => {
    const { deadlines, start, timedOutAfter } = recording(40);
    const { signal } = start();
    await until(() => signal.aborted);
    expect(timedOutAfter.get(signal)).toBeGreaterThanOrEqual(39);
    expect(deadlines.pending).toBe(0);
  });

  it('never aborts a settled attempt, and keeps no process alive once all are settled', async () => {
    const { start, deadlines, timedOutAfter } = recording(30);
    const before = refTimers();
    const attempts = Array.from({ length: 5 }, start);
    expect(refTimers()).toBe(before + 1);
    for (const { handle } of attempts) deadlines.settle(handle);
    expect(refTimers()).toBe(before);
    // The next attempt references the timer again.
    const again = start();
    expect(refTimers()).toBe(before + 1);
    deadlines.settle(again.handle);
    await sleep(60);
    expect(timedOutAfter.size).toBe(0);
  });

  it('aborts overlapping attempts each at its own deadline, skipping one settled between them', async () => {
    const { deadlines, start, timedOutAfter } = recording(50);
    const first = start();
    const settled = start();
    await sleep(30);
    const last = start();
    deadlines.settle(settled.handle);
    await until(() => first.signal.aborted && last.signal.aborted);
    expect(settled.signal.aborted).toBe(false);
    expect(timedOutAfter.get(first.signal)).toBeGreaterThanOrEqual(49);
    expect(timedOutAfter.get(last.signal)).toBeGreaterThanOrEqual(49);
  });

  it('makes an attempt started after the queue emptied wait its whole timeout, though the timer is already armed', async () => {
    const { deadlines, start, timedOutAfter } = recording(40);
    deadlines.settle(start().handle);
    await sleep(20);
    const late = start();
    await until(() => late.signal.aborted);
    expect(timedOutAfter.get(late.signal)).toBeGreaterThanOrEqual(39);
  });

  it('ignores settling an attempt that already timed out, or settling twice', async () => {
    const { deadlines, start } = recording(10);
    const early = start();
    await until(() => early.signal.aborted);
    deadlines.settle(early.handle);
    deadlines.settle(early.handle);
    const next = start();
    expect(deadlines.pending).toBe(1);
    deadlines.settle(next.handle);
    deadlines.settle(next.handle);
    expect(deadlines.pending).toBe(0);
  });

  it('keeps its queue short under steady concurrent load', () => {
    const { deadlines, start } = recording(60_000);
    // Ten in flight at any time for 5,000 attempts: the queue never empties, so it must compact.
    const inFlight = Array.from({ length: 10 }, start);
    for (let call = 0; call < 5_000; call++) {
      deadlines.settle(inFlight.shift()!.handle);
      inFlight.push(start());
    }
    expect(deadlines.pending).toBe(10);
    expect(deadlines.size).toBeLessThan(2_100);
    for (const { handle } of inFlight) deadlines.settle(handle);
    expect(deadlines.size).toBe(0);
  });
});
