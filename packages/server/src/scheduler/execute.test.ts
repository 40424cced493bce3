import type { Runner, RunOutcome, RunResult } from '@vigil/runner';
import { afterEach, describe, expect, it } from 'vitest';
import { Alerting } from '../alerting/index.js';
import type { AlertContext, SendOutcome } from '../alerting/channels.js';
import { Store } from '../store/index.js';
import { executeRuns } from './execute.js';
import { openRepositories } from '../repositories.js';

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
    expect(repositories.statuses.get('acct', String(check.id))).toMatchObject({ sslDaysRemaining: 5 });
    expect(sent).toEqual(['ALERT_SSL 5']);
    const stored = repositories.readSide.results.resultsOf('acct', String(check.id));
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
    expect(repositories.readSide.results.resultsOf('acct', String(check.id))).toEqual([]);
    expect(repositories.statuses.get('acct', String(check.id))).toBeUndefined();
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
    expect(alerting.stateOf('acct', String(check.id))).toMatchObject({ status: 'failing', consecutiveFailures: 1 });
  });
});
