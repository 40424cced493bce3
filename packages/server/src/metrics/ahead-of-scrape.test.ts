import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Store } from '../store/index.js';
import type { StoragePorts } from '../store/ports.js';
import { writeCheckStatus } from '../store/sqlite/check-statuses-port.js';
import { sqlitePorts } from '../store/sqlite/index.js';
import { StatusTable } from '../store/sqlite/statuses.js';
import { AHEAD_AT, AheadOfScrape, TOP_UP_AT } from './ahead-of-scrape.js';
import { CheckMetrics } from './checks.js';
import { linesOfPiece } from './exposition.js';

const ACCOUNT = 'acme';
const INTERVAL_MS = 1000;

const stores: Store[] = [];
beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setImmediate', 'clearImmediate', 'performance'] });
});
afterEach(() => {
  vi.useRealTimers();
  for (const store of stores.splice(0)) store.close();
});

function storeWithChecks(count: number): { store: Store; ports: StoragePorts; ids: string[] } {
  const store = new Store(':memory:');
  stores.push(store);
  const ports = sqlitePorts(store);
  const ids = Array.from({ length: count }, (_, index) => String(store.checks.insert(ACCOUNT, (id) => ({ id, name: `Check ${index}`, checkType: 'API', activated: true })).id));
  for (const checkId of ids) recordStatus(store, checkId, false);
  return { store, ports, ids };
}

/** A status written synchronously as the check-statuses port writes it: some writes here happen inside a transaction. */
function recordStatus(store: Store, checkId: string, failed: boolean): void {
  writeCheckStatus(new StatusTable(store.db), ACCOUNT, { name: 'n', checkId, hasFailures: failed, hasErrors: false, isDegraded: false, responseTime: 100, runLocation: 'eu-west-1', checkRunId: 1, stoppedAt: '2030-01-01T00:00:01.000Z' });
}

/** A scrape: whether each of its pieces was written before it (bytes) or is left for its body (a function), its text, and its `done`. */
async function scrape(metrics: CheckMetrics) {
  const scraped = await metrics.scrape({ accountIds: [ACCOUNT] });
  const samples = scraped.families.flatMap(({ samples }) => samples);
  const writtenBefore = samples.map((piece) => typeof piece !== 'function');
  const pieces = samples.map(linesOfPiece);
  return { writtenBefore, text: Buffer.concat(pieces).toString('utf8'), pieces, done: scraped.done };
}

function upOf(text: string, checkId: string): string | undefined {
  return text.split('\n').find((line) => line.startsWith(`vigil_check_up{account="acme",check_id="${checkId}"}`))?.split(' ')[1];
}

/** Two scrapes an interval apart, so that a pass is due within the next interval. */
async function scrapedTwice(metrics: CheckMetrics): Promise<void> {
  (await scrape(metrics)).done();
  vi.advanceTimersByTime(INTERVAL_MS);
  (await scrape(metrics)).done();
}

/** Time up to the pass and through all its slices, short of its top-up. */
async function throughThePass(): Promise<void> {
  await vi.advanceTimersByTimeAsync(INTERVAL_MS * AHEAD_AT + 50);
}

/** Time on through the top-up after the pass and all its slices, short of the next scrape. */
async function throughTheTopUp(): Promise<void> {
  await vi.advanceTimersByTimeAsync(INTERVAL_MS * (TOP_UP_AT - AHEAD_AT) + 10);
}

describe('CheckMetrics ahead of the scrape', () => {
  it('writes the changed pieces between two scrapes, so the next scrape sends them as they are and shows the change', async () => {
    const { store, ports, ids } = storeWithChecks(3);
    const metrics = new CheckMetrics(ports);
    await scrapedTwice(metrics);
    recordStatus(store, ids[1]!, true);
    await throughThePass();
    const next = await scrape(metrics);
    expect(next.writtenBefore.every(Boolean)).toBe(true);
    expect(ids.map((id) => upOf(next.text, id))).toEqual(['1', '0', '1']);
    expect(next.text).toBe((await scrape(new CheckMetrics(ports))).text);
  });

  it('writes again in the top-up a block that changed after the pass, so the scrape sends it as it is', async () => {
    const { store, ports, ids } = storeWithChecks(3);
    const metrics = new CheckMetrics(ports);
    await scrapedTwice(metrics);
    recordStatus(store, ids[0]!, true);
    await throughThePass();
    recordStatus(store, ids[2]!, true);
    await throughTheTopUp();
    const next = await scrape(metrics);
    expect(next.writtenBefore.every(Boolean)).toBe(true);
    expect(ids.map((id) => upOf(next.text, id))).toEqual(['0', '1', '0']);
    expect(next.text).toBe((await scrape(new CheckMetrics(ports))).text);
  });

  it('writes at the scrape a block that changed after the top-up, and shows that change', async () => {
    const { store, ports, ids } = storeWithChecks(3);
    const metrics = new CheckMetrics(ports);
    await scrapedTwice(metrics);
    recordStatus(store, ids[0]!, true);
    await throughThePass();
    await throughTheTopUp();
    recordStatus(store, ids[2]!, true);
    const next = await scrape(metrics);
    expect(next.writtenBefore.some((written) => !written)).toBe(true);
    expect(ids.map((id) => upOf(next.text, id))).toEqual(['0', '1', '0']);
  });

  it('does nothing after a single scrape but give its blocks their spare memory, and at most one pass and its top-up after the last one', async () => {
    const { store, ports, ids } = storeWithChecks(2);
    const metrics = new CheckMetrics(ports);
    (await scrape(metrics)).done();
    // The spares: one block, one turn of the event loop, then the turn that finds no more.
    expect(vi.getTimerCount()).toBe(1);
    vi.runOnlyPendingTimers();
    vi.runOnlyPendingTimers();
    expect(vi.getTimerCount()).toBe(0);
    vi.advanceTimersByTime(INTERVAL_MS);
    (await scrape(metrics)).done();
    recordStatus(store, ids[0]!, true);
    await throughThePass();
    await throughTheTopUp();
    expect(vi.getTimerCount()).toBe(0);
    recordStatus(store, ids[1]!, true);
    vi.advanceTimersByTime(INTERVAL_MS * 10);
    const next = await scrape(metrics);
    expect(ids.map((id) => upOf(next.text, id))).toEqual(['0', '0']);
  });

  it('keeps the bytes of a scrape still being sent as they were while a pass writes its blocks again', async () => {
    const { store, ports, ids } = storeWithChecks(3);
    const metrics = new CheckMetrics(ports);
    (await scrape(metrics)).done();
    vi.advanceTimersByTime(INTERVAL_MS);
    const sending = await scrape(metrics);
    const sentText = sending.text;
    for (const checkId of ids) recordStatus(store, checkId, true);
    await throughThePass();
    expect(Buffer.concat(sending.pieces).toString('utf8')).toBe(sentText);
    expect(ids.map((id) => upOf(sentText, id))).toEqual(['1', '1', '1']);
    const next = await scrape(metrics);
    expect(next.writtenBefore.every(Boolean)).toBe(true);
    expect(ids.map((id) => upOf(next.text, id))).toEqual(['0', '0', '0']);
  });

  it('shows a status as it stayed when a unit of work open through the pass was rolled back', async () => {
    const { store, ports, ids } = storeWithChecks(1);
    const metrics = new CheckMetrics(ports);
    await scrapedTwice(metrics);
    let fail!: () => void;
    const failed = new Promise<void>((resolve) => (fail = resolve));
    const unit = store.unitOfWork(async () => {
      recordStatus(store, ids[0]!, true);
      await failed;
      throw new Error('the unit failed');
    });
    unit.catch(() => undefined);
    // The unit is still open when the pass is due: the pass waits for it (the documents feed reads
    // committed writes only), and reads what stayed once it rolled back.
    await vi.advanceTimersByTimeAsync(INTERVAL_MS * AHEAD_AT + 100);
    expect(store.unitOpen).toBe(true);
    fail();
    await expect(unit).rejects.toThrow('the unit failed');
    await throughThePass();
    const next = await scrape(metrics);
    expect(next.writtenBefore.every(Boolean)).toBe(true);
    expect(upOf(next.text, ids[0]!)).toBe('1');
  });
});

describe('AheadOfScrape', () => {
  /** An AheadOfScrape on the fake timers' clock from 0, and the times its passes began. */
  function timed() {
    const zero = performance.now();
    const clock = () => performance.now() - zero;
    const began: number[] = [];
    const ahead = new AheadOfScrape(() => {
      began.push(clock());
      return () => false;
    }, clock);
    const advanceTo = (at: number) => vi.advanceTimersByTime(at - clock());
    return { ahead, began, advanceTo };
  }

  it('times the pass by the shortest of the last intervals, so one long interval does not put it after the next scrape', () => {
    const { ahead, began, advanceTo } = timed();
    ahead.scraped();
    advanceTo(1000);
    ahead.scraped();
    advanceTo(6000); // a scrape missed: 5 s between two
    expect(began).toEqual([1850, 1950]);
    ahead.scraped();
    advanceTo(7000);
    expect(began).toEqual([1850, 1950, 6850, 6950]);
  });

  it('times the top-up at TOP_UP_AT of the interval after a pass that wrote, and none after a pass with nothing to do', () => {
    const { ahead, began, advanceTo } = timed();
    ahead.scraped();
    advanceTo(1000);
    ahead.scraped();
    advanceTo(1949);
    expect(began).toEqual([1850]);
    advanceTo(1999);
    expect(began).toEqual([1850, 1950]);

    const idle: number[] = [];
    const nothingToDo = new AheadOfScrape(() => {
      idle.push(performance.now());
      return undefined;
    });
    nothingToDo.scraped();
    vi.advanceTimersByTime(1000);
    nothingToDo.scraped();
    vi.advanceTimersByTime(999);
    expect(idle).toHaveLength(1);
  });

  it('begins no top-up whose timer fires within 20 ms of the next scrape, as a busy event loop fires it late', () => {
    let lateBy = 0;
    const began: number[] = [];
    const ahead = new AheadOfScrape(() => {
      began.push(performance.now());
      return () => false;
    }, () => performance.now() + lateBy);
    const zero = performance.now();
    ahead.scraped();
    vi.advanceTimersByTime(1000);
    ahead.scraped();
    vi.advanceTimersByTime(900);
    expect(began.map((at) => at - zero)).toEqual([1850]);
    lateBy = 31; // the top-up's timer, due at 1950, seen at 1981
    vi.advanceTimersByTime(99);
    expect(began.map((at) => at - zero)).toEqual([1850]);
  });

  it('times the pass from the end of a scrape that was sent slowly, within the time left to the next', () => {
    const { ahead, began, advanceTo } = timed();
    ahead.scraped();
    advanceTo(1000);
    ahead.scraped();
    advanceTo(1400);
    ahead.sent(); // 600 ms left to the next scrape: the pass at AHEAD_AT of them
    advanceTo(1900);
    expect(began).toEqual([]);
    advanceTo(1910);
    expect(began).toEqual([1910]);
  });

  it('times another pass after a scrape sent past the time its pass was due, as that pass ran before the interval\'s changes', () => {
    const { ahead, began, advanceTo } = timed();
    ahead.scraped();
    advanceTo(1000);
    ahead.scraped();
    advanceTo(1900);
    expect(began).toEqual([1850]);
    ahead.sent(); // before the top-up at 1950, which the pass timed now replaces
    advanceTo(1985);
    expect(began).toEqual([1850, 1985]);
    advanceTo(5000);
    expect(began).toEqual([1850, 1985]); // no top-up: that pass ended 15 ms before the next scrape
  });

  it('times no pass after a scrape sent too close to the next', () => {
    const { ahead, began, advanceTo } = timed();
    ahead.scraped();
    advanceTo(1000);
    ahead.scraped();
    advanceTo(1900);
    advanceTo(1980);
    ahead.sent();
    advanceTo(5000);
    expect(began).toEqual([1850, 1950]);
  });

  it('keeps the event loop turning while a pass runs, so its next slice does not wait for other work to wake the loop', async () => {
    vi.useRealTimers();
    const activeImmediates = () => process.getActiveResourcesInfo().filter((resource) => resource === 'Immediate').length;
    const betweenSlices: number[] = [];
    let ended!: () => void;
    const passEnded = new Promise<void>((resolve) => (ended = resolve));
    let clock = 0;
    const ahead = new AheadOfScrape(() => {
      let left = 3;
      return () => {
        left--;
        // Once this slice returned, the next one is scheduled: seen from a microtask after it.
        if (left > 0) queueMicrotask(() => betweenSlices.push(activeImmediates()));
        else queueMicrotask(ended);
        return left > 0;
      };
    }, () => clock);
    ahead.scraped();
    clock = 100;
    ahead.scraped();
    await passEnded;
    expect(betweenSlices).toHaveLength(2);
    for (const active of betweenSlices) expect(active).toBeGreaterThan(0);
  });
});
