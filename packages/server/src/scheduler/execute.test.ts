import type { Runner, RunnerReport, RunOutcome, RunResult } from '@vigil/runner';
import { afterEach, describe, expect, it } from 'vitest';
import { Alerting } from '../alerting/index.js';
import type { AlertContext, SendOutcome } from '../alerting/channels.js';
import { Store } from '../store/index.js';
import type { CheckStatuses, StoragePorts } from '../store/ports.js';
import { executeRuns, reportRecorder } from './execute.js';
import { openRepositories } from '../repositories.js';
import { allResultsOf } from '../result-test-support.js';

const DAY = 24 * 60 * 60 * 1000;
const cleanups: Array<() => void> = [];
afterEach(() => cleanups.splice(0).reverse().forEach((cleanup) => cleanup()));

/** A runner whose runs fail at the locations named in `failing`, with a certificate expiring in `expiresInDays`. */
function fakeRunner(failing: readonly string[], expiresInDays: number | null): Runner {
  return {
    async run(check, context): Promise<RunOutcome> {
      const now = new Date();
      const failed = failing.includes(context.location);
      const final = {
        id: `${context.location}-${now.getTime()}`,
        name: String(check.name),
        checkId: String(check.id),
        hasFailures: failed,
        hasErrors: false,
        isDegraded: false,
        overMaxResponseTime: false,
        runLocation: context.location,
        startedAt: now.toISOString(),
        stoppedAt: now.toISOString(),
        created_at: now.toISOString(),
        responseTime: 5,
        apiCheckResult: { request: { url: 'https://shop.example.com/health' }, response: { status: failed ? 500 : 200, statusText: '' }, requestError: null },
        browserCheckResult: null,
        multiStepCheckResult: null,
        checkRunId: 0,
        attempts: 0,
        resultType: 'FINAL',
        sequenceId: 's',
        error: failed ? 'HTTP 500' : null,
        ...(expiresInDays === null ? {} : { certificateExpiresAt: new Date(now.getTime() + expiresInDays * DAY + 60_000).toISOString() }),
      } as unknown as RunResult;
      return { attempts: [], final };
    },
    async close() {},
  };
}

function world(check: Record<string, unknown>, channel: Record<string, unknown>) {
  const store = new Store(':memory:');
  const repositories = openRepositories(store);
  cleanups.push(() => store.close());
  const hook = store.alertChannels.insert('acct', (id) => ({ id, type: 'WEBHOOK', config: { url: 'http://127.0.0.1:1/hook' }, ...channel }));
  const created = store.checks.insert('acct', (id) => ({ id, name: 'Shop', checkType: 'API', activated: true, ...check }));
  store.subscriptions.set('acct', 'check', created.id, [{ alertChannelId: hook.id as number, activated: true }]);
  const sent: string[] = [];
  const send = async (_type: string, _config: Record<string, unknown>, context: AlertContext): Promise<SendOutcome> => {
    sent.push(`${context.alertType}${context.sslDaysRemaining === undefined ? '' : ` ${context.sslDaysRemaining}`}`);
    return { kind: 'sent', result: '200' };
  };
  const alerting = new Alerting(repositories, { pollMs: 10_000, send });
  cleanups.push(() => void alerting.stop());
  return { store, repositories, check: created, alerting, sent };
}

const job = (check: Record<string, unknown>, location: string, dueMs: number) => ({
  slot: { accountId: 'acct', checkId: String(check.id), dueMs, location, key: `${String(check.id)}@${dueMs}@${location}` },
  check,
});

describe('executeRuns', () => {
  it("passes an https run's certificate expiry to the check status (sslDaysRemaining) and to SSL alerts, but does not store it in the result", async () => {
    const { store, repositories, check, alerting, sent } = world({ locations: ['eu-west-1'] }, { sslExpiry: true, sslExpiryThreshold: 7 });
    const execute = executeRuns({ repositories, runner: fakeRunner([], 5), alerting });
    await execute(job(check, 'eu-west-1', Date.now()), new AbortController().signal);
    await alerting.idle();
    expect((await repositories.ports.checkStatuses.find('acct', String(check.id)))).toMatchObject({ sslDaysRemaining: 5 });
    expect(sent).toEqual(['ALERT_SSL 5']);
    const stored = (await allResultsOf(repositories.ports.checkResults, 'acct', String(check.id)));
    expect(stored.map((result) => result['certificateExpiresAt'])).toEqual([undefined]);
  });

  it('drops a run that ends after a stopping service gave up on it: nothing is stored, no status, no alert', async () => {
    const { store, repositories, check, alerting, sent } = world({ locations: ['eu-west-1'] }, {});
    const stopping = new AbortController();
    const runner = fakeRunner(['eu-west-1'], null);
    const slow: Runner = { ...runner, run: async (check, context) => {
      stopping.abort();
      // The runner is handed the stop's signal, so a long run ends instead of holding the stop.
      expect(context.signal).toBe(stopping.signal);
      return runner.run(check, context);
    } };
    const execute = executeRuns({ repositories, runner: slow, alerting });
    await execute(job(check, 'eu-west-1', Date.now()), stopping.signal);
    await alerting.idle();
    expect((await allResultsOf(repositories.ports.checkResults, 'acct', String(check.id)))).toEqual([]);
    expect((await repositories.ports.checkStatuses.find('acct', String(check.id)))).toBeUndefined();
    expect(sent).toEqual([]);
  });

  it('evaluates the locations of a runParallel slot together: one failing location of three fails the slot once', async () => {
    const locations = ['eu-west-1', 'us-east-1', 'ap-south-1'];
    const { store, repositories, check, alerting, sent } = world({ locations, runParallel: true }, {});
    const execute = executeRuns({ repositories, runner: fakeRunner(['us-east-1'], null), alerting });
    const dueMs = Date.now();
    for (const location of locations) await execute(job(check, location, dueMs), new AbortController().signal);
    await alerting.idle();
    expect(sent).toEqual(['ALERT_FAILURE']);
    expect(await alerting.stateOf('acct', String(check.id))).toMatchObject({ status: 'failing', consecutiveFailures: 1 });
  });

  describe("a run's alert evaluation, in the unit that stores the run", () => {
    const outboxRows = (store: Store) => (store.db.prepare('SELECT check_id, alert_type FROM alert_notifications').all() as Array<{ check_id: string; alert_type: string }>).map((row) => `${row.alert_type} ${row.check_id}`);
    /** The engine's ports, but a unit fails after its work (the evaluation included) when asked to, as a process killed before COMMIT. */
    function failingAfterWork(ports: StoragePorts) {
      const control = { fail: false };
      const wrapped: StoragePorts = {
        ...ports,
        transaction: (work) =>
          ports.transaction(async (tx) => {
            const done = await work(tx);
            if (control.fail) throw new Error('the unit failed after the evaluation');
            return done;
          }),
      };
      return { ports: wrapped, control };
    }

    it("leaves neither the result nor the alert state nor the outbox row nor the slot's finish of a unit that fails after the evaluation; a normal run leaves all four", async () => {
      const { store, repositories, check, alerting, sent } = world({ locations: ['eu-west-1'] }, {});
      const checkId = String(check.id);
      const { ports, control } = failingAfterWork(repositories.ports);
      const finished: string[] = [];
      const finishedAt = Date.UTC(2026, 10, 27, 9, 5);
      const record = reportRecorder({ repositories: { ...repositories, ports }, alerting, onStored: (stored) => finished.push(stored.slot.key), now: () => finishedAt });
      const runner = fakeRunner(['eu-west-1'], null);
      const report = async (dueMs: number): Promise<RunnerReport> => ({ key: `${checkId}@${dueMs}@eu-west-1`, wireVersion: 1, ...(await runner.run(check as unknown as Parameters<Runner['run']>[0], { location: 'eu-west-1' } as Parameters<Runner['run']>[1])) }) as unknown as RunnerReport;

      control.fail = true;
      const dueMs = Date.UTC(2026, 10, 27, 9);
      const { slotClaims } = repositories.ports;
      expect(await slotClaims.claim([job(check, 'eu-west-1', dueMs).slot, job(check, 'eu-west-1', dueMs + 60_000).slot], dueMs)).toHaveLength(2);
      await expect(record(job(check, 'eu-west-1', dueMs), await report(dueMs))).rejects.toThrow('the unit failed after the evaluation');
      expect(await slotClaims.find('acct', checkId, 'eu-west-1')).toEqual({ dueMs: dueMs + 60_000, claimedMs: dueMs, finishedDueMs: null, finishedMs: null });
      await alerting.idle();
      expect((await allResultsOf(repositories.ports.checkResults, 'acct', checkId))).toEqual([]);
      expect((await repositories.ports.checkStatuses.find('acct', checkId))).toBeUndefined();
      expect(await alerting.stateOf('acct', checkId)).toMatchObject({ status: 'passing', consecutiveFailures: 0 });
      expect(outboxRows(store)).toEqual([]);
      expect(sent).toEqual([]);
      expect(finished).toEqual([]);

      control.fail = false;
      await record(job(check, 'eu-west-1', dueMs + 60_000), await report(dueMs + 60_000));
      await alerting.idle();
      const results = (await allResultsOf(repositories.ports.checkResults, 'acct', checkId));
      expect(results.map((result) => result.hasFailures)).toEqual([true]);
      expect(await alerting.stateOf('acct', checkId)).toMatchObject({ status: 'failing', consecutiveFailures: 1 });
      expect(outboxRows(store)).toEqual([`ALERT_FAILURE ${checkId}`]);
      expect(sent).toEqual(['ALERT_FAILURE']);
      expect(finished).toHaveLength(1);
      expect(await slotClaims.find('acct', checkId, 'eu-west-1')).toEqual({ dueMs: dueMs + 60_000, claimedMs: dueMs, finishedDueMs: dueMs + 60_000, finishedMs: finishedAt });
    });

    it('names the FINAL result as stored, and sees the result and status the unit stored before it', async () => {
      const { repositories, check, alerting } = world({ locations: ['eu-west-1'] }, {});
      const checkId = String(check.id);
      const seen: Array<{ id: string | null; results: number; status: boolean | undefined }> = [];
      const record = reportRecorder({
        repositories,
        alerting: {
          evaluateIn: async (tx, accountId, id, facts, parallel) => {
            seen.push({ id: facts.id, results: (await tx.checkResults.newestFirst(accountId, id, { limit: 10 })).length, status: (await tx.checkStatuses.find(accountId, id))?.hasFailures });
            return alerting.evaluateIn(tx, accountId, id, facts, parallel);
          },
          notify: (evaluation) => alerting.notify(evaluation),
        },
      });
      const dueMs = Date.UTC(2026, 10, 27, 9);
      const { final } = await fakeRunner(['eu-west-1'], null).run(check as unknown as Parameters<Runner['run']>[0], { location: 'eu-west-1' } as Parameters<Runner['run']>[1]);
      await record(job(check, 'eu-west-1', dueMs), { key: 'k', wireVersion: 1, attempts: [], final } as unknown as RunnerReport);
      const stored = (await allResultsOf(repositories.ports.checkResults, 'acct', checkId));
      expect(seen).toEqual([{ id: stored[0]!.id, results: 1, status: true }]);
      expect(stored[0]!.id).not.toBe(final.id);
    });

    it('reports an alerting failure once the run is stored, undoing only what the evaluation wrote: the result and status stay, and the slot is finished', async () => {
      const { store, repositories, check, alerting, sent } = world({ locations: ['eu-west-1'] }, {});
      const checkId = String(check.id);
      const finished: string[] = [];
      const record = reportRecorder({
        repositories,
        alerting: {
          // The evaluation moves the state and queues its notification, then its savepoint's work throws.
          evaluateIn: (tx, accountId, id, facts, parallel) =>
            tx.savepoint(async () => {
              await alerting.evaluateIn(tx, accountId, id, facts, parallel);
              throw new Error('alerting broke');
            }),
          notify: (evaluation) => alerting.notify(evaluation),
        },
        onStored: (stored) => finished.push(stored.slot.key),
      });
      const dueMs = Date.UTC(2026, 10, 27, 9);
      const { final } = await fakeRunner(['eu-west-1'], null).run(check as unknown as Parameters<Runner['run']>[0], { location: 'eu-west-1' } as Parameters<Runner['run']>[1]);
      const failing = job(check, 'eu-west-1', dueMs);
      await expect(record(failing, { key: failing.slot.key, wireVersion: 1, attempts: [], final } as unknown as RunnerReport)).rejects.toThrow('alerting broke');
      await alerting.idle();
      expect((await allResultsOf(repositories.ports.checkResults, 'acct', checkId)).map((result) => result.hasFailures)).toEqual([true]);
      expect((await repositories.ports.checkStatuses.find('acct', checkId))).toMatchObject({ hasFailures: true });
      expect(await alerting.stateOf('acct', checkId)).toMatchObject({ status: 'passing', consecutiveFailures: 0 });
      expect(outboxRows(store)).toEqual([]);
      expect(sent).toEqual([]);
      expect(finished).toEqual([failing.slot.key]);
    });
  });

  it('stores nothing of a run whose status write fails: no result, no rollup, no error group, and the slot is not finished', async () => {
    const { repositories, check } = world({ locations: ['eu-west-1'] }, {});
    const checkId = String(check.id);
    let failStatus = false;
    // The engine's ports, but inside a unit the status write fails when asked to.
    const ports: StoragePorts = {
      ...repositories.ports,
      transaction: (work) =>
        repositories.ports.transaction((tx) => {
          const checkStatuses: CheckStatuses = {
            record: async (accountId, result) => {
              if (failStatus) throw new Error('the status write failed');
              return tx.checkStatuses.record(accountId, result);
            },
            list: (accountId) => tx.checkStatuses.list(accountId),
            find: (accountId, id) => tx.checkStatuses.find(accountId, id),
          };
          return work({ ...tx, checkStatuses });
        }),
    };
    const finished: string[] = [];
    const record = reportRecorder({ repositories: { ...repositories, ports }, onStored: (stored) => finished.push(stored.slot.key) });
    const runner = fakeRunner(['eu-west-1'], null);
    const reportAt = async (dueMs: number): Promise<RunnerReport> => {
      const { final } = await runner.run(check as unknown as Parameters<Runner['run']>[0], { location: 'eu-west-1' } as Parameters<Runner['run']>[1]);
      const at = new Date(dueMs).toISOString();
      const apiCheckResult = { ...final.apiCheckResult, requestError: 'timeout after 5000ms' };
      return { key: `${checkId}@${dueMs}@eu-west-1`, wireVersion: 1, attempts: [], final: { ...final, created_at: at, startedAt: at, stoppedAt: at, apiCheckResult } as RunResult } as unknown as RunnerReport;
    };
    const dueMs = Date.UTC(2026, 10, 27, 9);
    await record(job(check, 'eu-west-1', dueMs), await reportAt(dueMs));
    const before = {
      results: (await allResultsOf(repositories.ports.checkResults, 'acct', checkId)),
      rollups: (await repositories.ports.checkResults.rollups('acct', checkId, 'hourly', dueMs - DAY, dueMs + DAY)),
      groups: await repositories.ports.errorGroups.ofCheck('acct', checkId, { page: 1, limit: 10 }),
      status: (await repositories.ports.checkStatuses.find('acct', checkId)),
    };
    expect(before.results).toHaveLength(1);
    expect(before.groups.total).toBe(1);

    failStatus = true;
    const failing = job(check, 'eu-west-1', dueMs + 60_000);
    await expect(record(failing, await reportAt(dueMs + 60_000))).rejects.toThrow('the status write failed');
    expect((await allResultsOf(repositories.ports.checkResults, 'acct', checkId))).toEqual(before.results);
    expect((await repositories.ports.checkResults.rollups('acct', checkId, 'hourly', dueMs - DAY, dueMs + DAY))).toEqual(before.rollups);
    expect(await repositories.ports.errorGroups.ofCheck('acct', checkId, { page: 1, limit: 10 })).toEqual(before.groups);
    expect((await repositories.ports.checkStatuses.find('acct', checkId))).toEqual(before.status);
    // As when the store refused the run before: the slot is not marked finished (it counts as lost).
    expect(finished).toEqual([job(check, 'eu-west-1', dueMs).slot.key]);

    // The next run is stored as usual.
    failStatus = false;
    await record(job(check, 'eu-west-1', dueMs + 120_000), await reportAt(dueMs + 120_000));
    expect((await allResultsOf(repositories.ports.checkResults, 'acct', checkId))).toHaveLength(2);
    expect(finished).toHaveLength(2);
  });

  it("stores a run whose alert evaluation failed to read outside a savepoint by running its unit again, the evaluation then in a savepoint: once for a read that fails once, reported for one that keeps failing", async () => {
    const { repositories, check, alerting, sent } = world({ locations: ['eu-west-1'] }, {});
    const checkId = String(check.id);
    let failingReads = 0;
    const units: Array<{ savepoints: number }> = [];
    // The engine's ports; inside a unit the alert state's read fails while `failingReads` lasts (on
    // PostgreSQL such a failed statement aborts the unit's transaction).
    const ports: StoragePorts = {
      ...repositories.ports,
      transaction: (work) =>
        repositories.ports.transaction((tx) => {
          const unit = { savepoints: 0 };
          units.push(unit);
          const alertStates: typeof tx.alertStates = {
            transition: (...args) => tx.alertStates.transition(...args),
            queueDailySslAlerts: (...args) => tx.alertStates.queueDailySslAlerts(...args),
            read: async (accountId: string, id: string) => {
              if (failingReads > 0) {
                failingReads -= 1;
                throw new Error('canceling statement due to statement timeout');
              }
              return tx.alertStates.read(accountId, id);
            },
          };
          return work({ ...tx, alertStates, savepoint: (inner) => ((unit.savepoints += 1), tx.savepoint(inner)) });
        }),
    };
    const finished: string[] = [];
    const record = reportRecorder({ repositories: { ...repositories, ports }, alerting, onStored: (stored) => finished.push(stored.slot.key) });
    const dueMs = Date.UTC(2026, 10, 27, 9);
    const reportOf = async (failing: boolean) => {
      const { final } = await fakeRunner(failing ? ['eu-west-1'] : [], null).run(check as unknown as Parameters<Runner['run']>[0], { location: 'eu-west-1' } as Parameters<Runner['run']>[1]);
      return { key: 'k', wireVersion: 1, attempts: [], final } as unknown as RunnerReport;
    };
    await record(job(check, 'eu-west-1', dueMs), await reportOf(false));
    units.length = 0;

    // A read that fails once: the unit is run again and the failure's alert is sent once.
    failingReads = 1;
    await record(job(check, 'eu-west-1', dueMs + 60_000), await reportOf(true));
    await alerting.idle();
    expect(units).toEqual([{ savepoints: 0 }, { savepoints: 1 }]);
    expect((await allResultsOf(repositories.ports.checkResults, 'acct', checkId)).map((result) => result.hasFailures)).toEqual([false, true]);
    expect(await alerting.stateOf('acct', checkId)).toMatchObject({ status: 'failing', consecutiveFailures: 1 });
    expect(sent).toEqual(['ALERT_FAILURE']);
    units.length = 0;

    // A read that keeps failing: the run is stored by the second unit and the failure is reported.
    failingReads = 2;
    await expect(record(job(check, 'eu-west-1', dueMs + 120_000), await reportOf(false))).rejects.toThrow('canceling statement due to statement timeout');
    await alerting.idle();
    expect(units).toEqual([{ savepoints: 0 }, { savepoints: 1 }]);
    expect((await allResultsOf(repositories.ports.checkResults, 'acct', checkId)).map((result) => result.hasFailures)).toEqual([false, true, false]);
    expect(await alerting.stateOf('acct', checkId)).toMatchObject({ status: 'failing', consecutiveFailures: 1 });
    expect(sent).toEqual(['ALERT_FAILURE']);
    expect(finished).toHaveLength(3);
  });

  it("opens a savepoint for a run's alert evaluation only when the evaluation writes: a check's first run, a failure, a recovery; not a run that moves nothing", async () => {
    const { repositories, check, alerting, sent } = world({ locations: ['eu-west-1'] }, {});
    const checkId = String(check.id);
    const savepoints: number[] = [];
    // The engine's ports, counting the savepoints each unit opens.
    const ports: StoragePorts = {
      ...repositories.ports,
      transaction: (work) =>
        repositories.ports.transaction((tx) => {
          savepoints.push(0);
          return work({ ...tx, savepoint: (inner) => ((savepoints[savepoints.length - 1]! += 1), tx.savepoint(inner)) });
        }),
    };
    const record = reportRecorder({ repositories: { ...repositories, ports }, alerting });
    const dueMs = Date.UTC(2026, 10, 27, 9);
    for (const [minute, failing] of [[0, false], [1, false], [2, true], [3, true], [4, false], [5, false]] as const) {
      const { final } = await fakeRunner(failing ? ['eu-west-1'] : [], null).run(check as unknown as Parameters<Runner['run']>[0], { location: 'eu-west-1' } as Parameters<Runner['run']>[1]);
      await record(job(check, 'eu-west-1', dueMs + minute * 60_000), { key: 'k', wireVersion: 1, attempts: [], final } as unknown as RunnerReport);
    }
    await alerting.idle();
    expect(savepoints).toEqual([1, 0, 1, 1, 1, 0]);
    expect(sent).toEqual(['ALERT_FAILURE', 'ALERT_RECOVERY']);
    expect(await alerting.stateOf('acct', checkId)).toMatchObject({ status: 'passing', consecutiveFailures: 0 });
  });
});
