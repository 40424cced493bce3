import { describe, expect, it } from 'vitest';
import { AdaptiveLimit } from './concurrency.js';
import { InProcessRunQueue, type RunJob } from './queue.js';

/** Runs that end only when the test says so; `started` lists the runs in the order they started. */
function harness(concurrency: number, reserve = 0) {
  const started: string[] = [];
  const signals = new Map<string, AbortSignal>();
  const finishers = new Map<string, () => void>();
  const errors: string[] = [];
  const queue = new InProcessRunQueue(
    (job, signal) =>
      new Promise<void>((resolve) => {
        started.push(job.slot.checkId);
        signals.set(job.slot.checkId, signal);
        finishers.set(job.slot.checkId, resolve);
      }),
    { concurrency, reserve, onError: (error, job) => errors.push(`${job.slot.checkId}: ${String(error)}`) },
  );
  const submit = (accountId: string, ...checkIds: string[]) => {
    for (const checkId of checkIds) queue.submit(job(accountId, checkId));
  };
  /** Ends a run and lets the queue react (its bookkeeping is in a promise chain). */
  const finish = async (checkId: string) => {
    finishers.get(checkId)!();
    await settle();
  };
  return { queue, started, signals, errors, submit, finish };
}

function job(accountId: string, checkId: string, dueMs = 0, location = 'eu-west-1'): RunJob {
  return { slot: { accountId, checkId, dueMs, location, key: `${checkId}@${dueMs}@${location}` }, check: { id: checkId } };
}

async function settle(): Promise<void> {
  for (let turn = 0; turn < 5; turn++) await Promise.resolve();
}

const hogRuns = (count: number) => Array.from({ length: count }, (_, index) => `hog-${index + 1}`);

describe('InProcessRunQueue fairness between accounts', () => {
  it("starts another account's run at the first free slot, ahead of a hog's hundred runs queued before it", async () => {
    const { started, submit, finish } = harness(3);
    submit('hog', ...hogRuns(100));
    expect(started).toEqual(['hog-1', 'hog-2', 'hog-3']);
    submit('quiet', 'quiet-1');
    expect(started).toEqual(['hog-1', 'hog-2', 'hog-3']);
    await finish('hog-2');
    expect(started).toEqual(['hog-1', 'hog-2', 'hog-3', 'quiet-1']);
    // Nothing of the quiet account waits: the hog gets the next free slot again.
    await finish('hog-1');
    expect(started).toEqual(['hog-1', 'hog-2', 'hog-3', 'quiet-1', 'hog-4']);
  });

  it('takes turns between accounts with runs waiting, first come first served inside an account', async () => {
    const { started, submit, finish } = harness(1);
    submit('a', 'a-1', 'a-2', 'a-3');
    // a's next run took its turn when a-1 started: b and c line up behind it.
    submit('b', 'b-1', 'b-2');
    submit('c', 'c-1');
    for (const checkId of ['a-1', 'a-2', 'b-1', 'c-1', 'a-3']) await finish(checkId);
    expect(started).toEqual(['a-1', 'a-2', 'b-1', 'c-1', 'a-3', 'b-2']);
  });

  it("passes over an account holding its share (ceil(limit / active accounts)) while another's runs wait", async () => {
    const { queue, started, submit, finish } = harness(4);
    submit('hog', ...hogRuns(10));
    expect(started).toEqual(['hog-1', 'hog-2', 'hog-3', 'hog-4']);
    submit('b', 'b-1', 'b-2', 'b-3');
    // Two accounts: a share of 2 each. The hog holds 4, so each run it ends goes to b, up to b's share.
    await finish('hog-1');
    await finish('hog-2');
    expect(started.slice(4)).toEqual(['b-1', 'b-2']);
    // b holds its share and the hog is down to its own: turns again, the hog's first.
    await finish('hog-3');
    expect(started.slice(6)).toEqual(['hog-5']);
    await finish('b-1');
    expect(started.slice(7)).toEqual(['b-3']);
    expect([queue.runningOf('hog'), queue.runningOf('b')]).toEqual([2, 2]);
  });

  it('gives a free slot to an account above its share rather than leave it idle when every waiting account is', async () => {
    const { queue, started, submit, finish } = harness(6);
    submit('light', 'light-1');
    submit('a', 'a-1', 'a-2');
    submit('b', 'b-1', 'b-2');
    submit('x', 'x-1');
    submit('a', 'a-3');
    submit('b', 'b-3');
    expect(started).toEqual(['light-1', 'a-1', 'a-2', 'b-1', 'b-2', 'x-1']);
    // Three accounts left: a share of 2, which a and b hold while both wait; light waits for nothing.
    await finish('x-1');
    expect(started.slice(6)).toEqual(['a-3']);
    expect([queue.runningOf('a'), queue.runningOf('b')]).toEqual([3, 2]);
  });

  it('keeps the reserve for accounts holding fewer runs than it, so a newcomer starts at once', async () => {
    const { queue, started, submit, finish } = harness(10, 2);
    submit('hog', ...hogRuns(30));
    expect(started).toEqual(hogRuns(8));
    submit('b', 'b-1');
    submit('c', 'c-1', 'c-2', 'c-3');
    expect(started.slice(8)).toEqual(['b-1', 'c-1']);
    // The reserve is taken: the next slot to free up goes by turns and shares again.
    await finish('hog-1');
    expect(started.slice(10)).toEqual(['c-2']);
    expect(queue.pending).toBe(30 + 1 + 3 - 1);
  });

  it('counts runs, not accounts: an account alone uses every slot but the reserve', () => {
    const { started, submit } = harness(50, 5);
    submit('only', ...hogRuns(60));
    expect(started).toEqual(hogRuns(45));
  });
});

describe('InProcessRunQueue with runs that cannot start', () => {
  it("replaces a waiting slot by the same check's next one at that location, keeping its place in line", async () => {
    const keys: string[] = [];
    const finishers: Array<() => void> = [];
    const queue = new InProcessRunQueue(
      (job) => new Promise<void>((resolve) => (keys.push(job.slot.key), finishers.push(resolve))),
      { concurrency: 1, reserve: 0, onError: () => undefined },
    );
    queue.submit(job('a', 'busy'));
    for (const dueMs of [10_000, 20_000, 30_000]) {
      queue.submit(job('a', 'c1', dueMs));
      queue.submit(job('a', 'c1', dueMs, 'us-east-1'));
      queue.submit(job('a', 'c2', dueMs));
    }
    expect([queue.pending, queue.superseded]).toEqual([4, 6]);
    for (let run = 0; run < 4; run++) {
      finishers[run]!();
      await settle();
    }
    expect(keys).toEqual(['busy@0@eu-west-1', 'c1@30000@eu-west-1', 'c1@30000@us-east-1', 'c2@30000@eu-west-1']);
  });
});

describe('InProcessRunQueue.stop', () => {
  it('drops the runs waiting, waits for those in flight and resolves once they ended', async () => {
    const { queue, started, submit, finish } = harness(2);
    submit('a', 'a-1', 'a-2', 'a-3');
    const stopped = queue.stop(60_000);
    submit('a', 'a-4');
    await finish('a-1');
    await finish('a-2');
    expect(await stopped).toEqual({ dropped: 1, aborted: 0 });
    expect(started).toEqual(['a-1', 'a-2']);
    expect(queue.pending).toBe(0);
  });

  it('aborts the runs still going at the deadline and reports no error for what they throw on the way out', async () => {
    const errors: string[] = [];
    const queue = new InProcessRunQueue(
      (_job, signal) => new Promise<void>((_resolve, reject) => signal.addEventListener('abort', () => reject(new Error('aborted run')))),
      { concurrency: 2, onError: (error) => errors.push(String(error)) },
    );
    queue.submit(job('a', 'a-1'));
    queue.submit(job('b', 'b-1'));
    expect(await queue.stop(10)).toEqual({ dropped: 0, aborted: 2 });
    expect(queue.pending).toBe(0);
    expect(errors).toEqual([]);
  });

  it('gives up on a run that ignores its abort after the grace time, with the abort reported', async () => {
    const { queue, signals, submit } = harness(1);
    submit('a', 'a-1');
    expect(await queue.stop(10, 10)).toEqual({ dropped: 0, aborted: 1 });
    expect(signals.get('a-1')!.aborted).toBe(true);
    expect(queue.pending).toBe(1);
  });
});

describe('InProcessRunQueue with a bounded line', () => {
  /** A queue of one run in flight, held by `busy`, with `maxWaiting` places in line; drops recorded by slot key. */
  function boundedHarness(maxWaiting: number) {
    const started: string[] = [];
    const dropped: string[] = [];
    const finishers: Array<() => void> = [];
    const queue = new InProcessRunQueue(
      (job) => new Promise<void>((resolve) => (started.push(job.slot.key), finishers.push(resolve))),
      { concurrency: 1, reserve: 0, maxWaiting, onError: () => undefined, onDropped: (job) => dropped.push(job.slot.key) },
    );
    queue.submit(job('other', 'busy'));
    return { queue, started, dropped, finishers };
  }

  it('drops the run first in line of the account with the most runs waiting, never the newcomer, and reports each drop', async () => {
    const { queue, started, dropped, finishers } = boundedHarness(4);
    queue.submit(job('hog', 'h1', 10_000));
    queue.submit(job('hog', 'h2', 11_000));
    queue.submit(job('hog', 'h3', 12_000));
    queue.submit(job('quiet', 'q1', 13_000));
    // Five waiting for four places: the hog holds three, so its oldest goes.
    queue.submit(job('quiet', 'q2', 14_000));
    // Two, two and one: the tie goes against the line whose first run is older (the hog's h2).
    queue.submit(job('x', 'x1', 14_500));
    // The quiet account holds three now: its own oldest goes, not the newcomer.
    queue.submit(job('quiet', 'q3', 15_000));
    expect(dropped).toEqual(['h1@10000@eu-west-1', 'h2@11000@eu-west-1', 'q1@13000@eu-west-1']);
    expect([queue.dropped, queue.waiting, queue.superseded]).toEqual([3, 4, 0]);
    for (let run = 0; run < 4; run++) {
      finishers[run]!();
      await settle();
    }
    expect(started).toEqual(['busy@0@eu-west-1', 'h3@12000@eu-west-1', 'q2@14000@eu-west-1', 'x1@14500@eu-west-1', 'q3@15000@eu-west-1']);
  });

  it('replaces a waiting slot by its next one without counting it against the bound', () => {
    const { queue, dropped } = boundedHarness(2);
    queue.submit(job('a', 'c1', 10_000));
    queue.submit(job('a', 'c2', 10_000));
    queue.submit(job('a', 'c1', 20_000));
    expect(dropped).toEqual([]);
    expect([queue.waiting, queue.superseded, queue.dropped]).toEqual([2, 1, 0]);
  });

  it('drops every slot handed over when nothing may wait, and still runs those that find a free slot', () => {
    const { queue, started, dropped } = boundedHarness(0);
    queue.submit(job('a', 'late', 10_000));
    expect(started).toEqual(['busy@0@eu-west-1']);
    expect(dropped).toEqual(['late@10000@eu-west-1']);
    expect(queue.pending).toBe(1);
  });
});

describe('InProcessRunQueue with a limit that follows the load', () => {
  it('starts more runs once slow runs end at a high due rate, and never more than the maximum', async () => {
    let clock = 0;
    const finishers = new Map<string, () => void>();
    const queue = new InProcessRunQueue(
      (job) => new Promise<void>((resolve) => finishers.set(job.slot.checkId, resolve)),
      { concurrency: new AdaptiveLimit({ min: 2, max: 6 }), reserve: 0, onError: () => undefined, now: () => clock },
    );
    for (const checkId of ['c1', 'c2', 'c3', 'c4']) queue.submit(job('a', checkId));
    // Nothing has ended yet: the floor.
    expect([queue.limit, queue.running]).toEqual([2, 2]);
    clock = 1000;
    finishers.get('c1')!();
    finishers.get('c2')!();
    await settle();
    // 4 due in a second, runs of a second: 4 × 1 × 1.5 = 6 in flight at most; the two waiting start.
    expect([queue.limit, queue.running, queue.waiting]).toEqual([6, 2, 0]);
    for (let index = 5; index <= 20; index++) queue.submit(job('a', `c${index}`));
    expect([queue.limit, queue.running, queue.waiting]).toEqual([6, 6, 12]);
  });
});
