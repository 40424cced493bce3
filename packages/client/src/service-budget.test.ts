import { describe, expect, it } from 'vitest';
import { Pacer } from './pacer.js';
import type { RetryClock } from './retry.js';
import { ServiceBudget, type BudgetTicket } from './service-budget.js';

/** A clock that only moves when a sleeper asks it to, so waits are exact and instant. */
function manualClock(): RetryClock & { slept: number[] } {
  let now = 0;
  const slept: number[] = [];
  return {
    slept,
    now: () => now,
    sleep: async (ms) => {
      slept.push(ms);
      now += ms;
    },
  };
}

const report = (remaining: number | string, reset: number | string): Headers =>
  new Headers({ 'x-ratelimit-remaining': String(remaining), 'x-ratelimit-reset': String(reset) });

/** Admits `count` calls one after another (each released at once); returns how many used the fallback. */
async function admitSequentially(budget: ServiceBudget, count: number): Promise<number> {
  let fallbacks = 0;
  for (let call = 0; call < count; call++) {
    const ticket = await budget.admit(async () => void fallbacks++);
    ticket.release();
  }
  return fallbacks;
}

describe('ServiceBudget', () => {
  it('leaves pacing to the fallback while the service has reported nothing', async () => {
    const budget = new ServiceBudget(2, manualClock());
    expect(await admitSequentially(budget, 5)).toBe(5);
  });

  it('spends a reported budget at once down to the reserve, then waits for the reset', async () => {
    const clock = manualClock();
    const budget = new ServiceBudget(2, clock);
    const first = await budget.admit(async () => undefined);
    first.observe(report(10, 5));
    first.release();
    // 10 left, 2 kept back: 8 leave without the fallback and without waiting.
    expect(await admitSequentially(budget, 8)).toBe(0);
    expect(clock.slept).toEqual([]);
    // The 9th waits for the window to reset, then the fallback paces it.
    expect(await admitSequentially(budget, 1)).toBe(1);
    expect(clock.slept).toEqual([5000]);
  });

  it('charges a call that queued in the fallback before the first report to that report', async () => {
    const budget = new ServiceBudget(0, manualClock());
    let releaseQueued!: () => void;
    const queued = budget.admit(() => new Promise<void>((resolve) => (releaseQueued = resolve)));
    const first = await budget.admit(undefined);
    first.observe(report(1, 60));
    first.release();
    releaseQueued();
    (await queued).release();
    // The report left 1; the queued call took it, so the next one has to wait for the reset.
    expect(await admitSequentially(budget, 1)).toBe(1);
  });

  it('counts calls still in flight and calls sent after the report against the budget', async () => {
    const budget = new ServiceBudget(0, manualClock());
    const first = await budget.admit(undefined);
    const second = await budget.admit(undefined);
    const third = await budget.admit(undefined);
    second.release();
    // The service had 10 left when it answered the first; the second (done, sent later) and the
    // third (in flight) may not be in that count: 10 - 2 sent since - 1 other in flight = 7.
    first.observe(report(10, 60));
    first.release();
    third.release();
    expect(await admitSequentially(budget, 7)).toBe(0);
    expect(await admitSequentially(budget, 1)).toBe(1);
  });

  it('ignores a report older than the one the estimate rests on', async () => {
    const budget = new ServiceBudget(0, manualClock());
    const older = await budget.admit(undefined);
    const newer = await budget.admit(undefined);
    newer.observe(report(3, 60));
    newer.release();
    // Arrives late on another connection, from before the newer call was counted.
    older.observe(report(50, 60));
    older.release();
    // 3 - 0 sent since - 1 in flight (the older call, when the newer report came) = 2.
    expect(await admitSequentially(budget, 2)).toBe(0);
    expect(await admitSequentially(budget, 1)).toBe(1);
  });

  it('takes a fresher, larger report as a new window', async () => {
    const clock = manualClock();
    const budget = new ServiceBudget(1, clock);
    const ticket = await budget.admit(undefined);
    ticket.observe(report(1, 2));
    ticket.release();
    const afterReset: BudgetTicket = await budget.admit(undefined);
    expect(clock.slept).toEqual([2000]);
    afterReset.observe(report(100, 60));
    afterReset.release();
    expect(await admitSequentially(budget, 99)).toBe(0);
  });

  it('reads a reset past a year of seconds as a Unix time', async () => {
    const clock = manualClock();
    const budget = new ServiceBudget(0, clock);
    const ticket = await budget.admit(undefined);
    ticket.observe(report(0, 1_800_000_030));
    ticket.release();
    await admitSequentially(budget, 1);
    expect(clock.slept).toEqual([1_800_000_030_000]);
  });

  it.each([
    ['no headers', new Headers()],
    ['only remaining', new Headers({ 'x-ratelimit-remaining': '5' })],
    ['a non-number', report('many', 60)],
    ['a negative count', report(-1, 60)],
    ['an empty value', report('', 60)],
  ])('ignores a response with %s', async (_name, headers) => {
    const budget = new ServiceBudget(0, manualClock());
    const ticket = await budget.admit(undefined);
    ticket.observe(headers);
    ticket.release();
    expect(await admitSequentially(budget, 3)).toBe(3);
  });
});

describe('Pacer with a service that reports its budget', () => {
  it('sends as fast as the reported budget allows instead of at the token-bucket pace', async () => {
    const clock = manualClock();
    const pacer = new Pacer({ pacing: { requests: 600, windowSeconds: 60 }, concurrency: 10, clock });
    let remaining = 600;
    const sent: number[] = [];
    const call = () =>
      pacer.run('/v1/checks', async (observe) => {
        sent.push(clock.now());
        remaining -= 1;
        observe(report(remaining, 60));
      });
    for (let i = 0; i < 200; i++) await call();
    // The bucket alone would space these ~102 ms apart after its burst of 6 (~20 s in all).
    expect(sent.at(-1)).toBe(0);
    expect(clock.slept).toEqual([]);
  });

  it('waits for the reset once the reported budget is down to the reserve', async () => {
    const clock = manualClock();
    const pacer = new Pacer({ pacing: { requests: 600, windowSeconds: 60 }, concurrency: 1, clock });
    await pacer.run('/v1/checks', async (observe) => observe(report(7, 30)));
    // 7 left, 6 (1 % of 600) kept back: one more leaves now, the next waits the 30 s.
    await pacer.run('/v1/checks', async () => undefined);
    expect(clock.slept).toEqual([]);
    await pacer.run('/v1/checks', async () => undefined);
    expect(clock.slept[0]).toBe(30_000);
  });
});
