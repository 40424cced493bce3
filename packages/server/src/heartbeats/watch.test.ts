import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createApp, type ServiceApp } from '../app.js';
import { Alerting, type FinalResultFacts } from '../alerting/index.js';
import { NotificationLog } from '../alerting/notifications.js';
import { openRepositories } from '../repositories.js';
import { allResultsOf } from '../result-test-support.js';
import { Store } from '../store/index.js';
import { CLAIM_LEASE_MS, HeartbeatWatch } from './watch.js';

const KEY = 'k';
const services: ServiceApp[] = [];
afterEach(() => services.splice(0).forEach((service) => service.close()));

function service(): ServiceApp {
  const created = createApp({ accounts: [{ apiKey: KEY, accountId: 'acme' }], checkResponses: true });
  services.push(created);
  return created;
}

async function call(svc: ServiceApp, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const response = await svc.app.request(path, {
    method,
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json', ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, text, body: text.startsWith('{') || text.startsWith('[') ? JSON.parse(text) : undefined };
}

async function heartbeat(svc: ServiceApp, extra: Record<string, unknown> = {}) {
  const created = await call(svc, 'POST', '/v1/checks/heartbeat?autoAssignAlerts=false', {
    name: 'nightly backup',
    heartbeat: { period: 30, periodUnit: 'seconds', grace: 10, graceUnit: 'seconds' },
    ...extra,
  });
  expect(created.status).toBe(201);
  return created.body as { id: string; created_at: string; heartbeat: { pingToken: string } };
}

function recorder() {
  const seen: Array<{ checkId: string; facts: FinalResultFacts }> = [];
  const alerting: Pick<Alerting, 'evaluateIn' | 'notify'> = {
    evaluateIn: async (_tx, _account, checkId, facts) => (seen.push({ checkId, facts }), { alerts: [], queued: false }),
    notify: () => undefined,
  };
  return { seen, alerting };
}

describe('ping tokens', () => {
  it('are assigned on create, returned on GET, kept across an update that sends heartbeat without one', async () => {
    const svc = service();
    const check = await heartbeat(svc, { heartbeat: { period: 1, periodUnit: 'minutes', grace: 0, graceUnit: 'seconds', pingToken: 'mine' } });
    const token = check.heartbeat.pingToken;
    expect(token).toMatch(/^[0-9a-f-]{36}$/);
    expect((await call(svc, 'GET', `/v1/checks/${check.id}`)).body.heartbeat.pingToken).toBe(token);
    const updated = await call(svc, 'PUT', `/v1/checks/heartbeat/${check.id}?autoAssignAlerts=false`, { heartbeat: { period: 2, periodUnit: 'minutes', grace: 0, graceUnit: 'seconds' } });
    expect(updated.body.heartbeat).toEqual({ period: 2, periodUnit: 'minutes', grace: 0, graceUnit: 'seconds', pingToken: token });
  });

  it('an API check made through the generic call gets none', async () => {
    const svc = service();
    const created = await call(svc, 'POST', '/v1/checks', { name: 'x', checkType: 'BROWSER', script: 'x', heartbeat: { period: 1, periodUnit: 'minutes', grace: 0, graceUnit: 'minutes' } });
    expect((await call(svc, 'GET', `/v1/checks/${created.body.id}`)).body.heartbeat.pingToken).toBeUndefined();
  });
});

describe('GET|POST /ping/{token}', () => {
  it('records success and failure events without an API key; an unknown token is 404', async () => {
    const svc = service();
    const check = await heartbeat(svc);
    const token = check.heartbeat.pingToken;
    expect(await call(svc, 'GET', `/ping/${token}`, undefined, { authorization: '', 'user-agent': 'curl/8' })).toMatchObject({ status: 200, text: 'OK\n' });
    expect((await call(svc, 'POST', `/ping/${token}/fail?source=backup.sh`, undefined, { authorization: '' })).status).toBe(200);
    const unknown = await call(svc, 'GET', '/ping/not-a-token', undefined, { authorization: '' });
    expect(unknown).toMatchObject({ status: 404, body: { statusCode: 404, error: 'Not Found', message: 'No heartbeat monitor has this ping token' } });
    const events = (await call(svc, 'GET', `/v1/checks/heartbeats/${check.id}/events`)).body[0].events;
    expect(events.map((event: { state: string; source: string }) => [event.state, event.source])).toEqual([['FAILING', 'backup.sh'], ['RECEIVED', 'HTTP GET']]);
    expect(events[1].userAgent).toBe('curl/8');
  });

  it('refuses a 61st ping within a minute, and a 31st unknown token from one address', async () => {
    const svc = service();
    const token = (await heartbeat(svc)).heartbeat.pingToken;
    for (let i = 0; i < 60; i++) expect((await call(svc, 'GET', `/ping/${token}`)).status).toBe(200);
    const refused = await call(svc, 'GET', `/ping/${token}`);
    expect(refused.status).toBe(429);
    expect(refused.body.message).toMatch(/^Too many pings for this heartbeat; retry in \d+ s$/);
    for (let i = 0; i < 30; i++) expect((await call(svc, 'GET', `/ping/guess-${i}`)).status).toBe(404);
    expect((await call(svc, 'GET', '/ping/guess-31')).body.message).toMatch(/^Too many pings with unknown tokens from this address; retry in \d+ s$/);
  });
});

describe('HeartbeatWatch', () => {
  it('fails a heartbeat never pinged once per missed window, not again after a restart, and a ping recovers it', async () => {
    const svc = service();
    const check = await heartbeat(svc);
    const created = Date.parse(check.created_at);
    const { seen, alerting } = recorder();
    const watch = new HeartbeatWatch({ repositories: svc.repositories, alerting });

    expect(await watch.tick(created + 39_000)).toBe(0);
    expect(await watch.tick(created + 40_000)).toBe(1);
    expect(await watch.tick(created + 45_000)).toBe(0);
    expect(seen.map(({ facts }) => [facts.hasFailures, facts.error])).toEqual([[true, 'No ping received within 30 seconds (period) + 10 seconds (grace)']]);

    // A restart: a new watch on the same database reports nothing twice, but the next window.
    const restarted = new HeartbeatWatch({ repositories: svc.repositories, alerting });
    expect(await restarted.tick(created + 50_000)).toBe(0);
    expect(await restarted.tick(created + 70_000)).toBe(1);

    await call(svc, 'GET', `/ping/${check.heartbeat.pingToken}`);
    expect(await restarted.tick(Date.now())).toBe(1);
    expect(seen.at(-1)!.facts).toMatchObject({ hasFailures: false, error: null });
    const results = await svc.repositories.ports.checkResults.newestFirst('acme', check.id, { limit: 10 });
    // Newest first: the ping carries the real clock, earlier than the simulated deadlines.
    expect(results.map((result) => result.hasFailures)).toEqual([true, true, false]);
    expect(await svc.repositories.ports.checkStatuses.find('acme', check.id)).toMatchObject({ hasFailures: false, lastRunLocation: 'local' });
  });

  it('turns a /fail ping into a failing result and measures the next deadline from it', async () => {
    const svc = service();
    const check = await heartbeat(svc);
    const { seen, alerting } = recorder();
    const watch = new HeartbeatWatch({ repositories: svc.repositories, alerting });
    await call(svc, 'POST', `/ping/${check.heartbeat.pingToken}/fail`);
    const pinged = Date.now();
    expect(await watch.tick(pinged)).toBe(1);
    expect(seen[0]!.facts).toMatchObject({ hasFailures: true, error: 'The job reported a failure (ping from HTTP POST)' });
    expect(await watch.tick(Date.parse(check.created_at) + 40_000)).toBe(0);
    expect(await watch.tick(pinged + 40_001)).toBe(1);
  });

  it('prunes events older than the retention, once they became results', async () => {
    const svc = service();
    const check = await heartbeat(svc);
    const watch = new HeartbeatWatch({ repositories: svc.repositories, retentionDays: 1 });
    await call(svc, 'GET', `/ping/${check.heartbeat.pingToken}`);
    expect(await watch.prune(Date.now() + 2 * 86_400_000)).toBe(0);
    await watch.tick(Date.now());
    expect(await watch.prune(Date.now() + 2 * 86_400_000)).toBe(1);
    expect(await svc.repositories.ports.heartbeatPings.ofCheck('acme', check.id, 0, Number.MAX_SAFE_INTEGER)).toEqual([]);
  });

  it('watches a heartbeat made through the generic call with its shorter period', async () => {
    const svc = service();
    const created = await call(svc, 'POST', '/v1/checks', { name: 'fast', checkType: 'HEARTBEAT', script: null, heartbeat: { period: 5, periodUnit: 'seconds', grace: 0, graceUnit: 'seconds' } });
    const check = (await call(svc, 'GET', `/v1/checks/${created.body.id}`)).body as { created_at: string; heartbeat: { pingToken: string } };
    expect(check.heartbeat.pingToken).toMatch(/^[0-9a-f-]{36}$/);
    const watch = new HeartbeatWatch({ repositories: svc.repositories });
    expect(await watch.tick(Date.parse(check.created_at) + 5_000)).toBe(1);
  });

  it('moves the deadline in the database when a ping is answered, before any tick reads the ping', async () => {
    const svc = service();
    const check = await heartbeat(svc);
    const created = Date.parse(check.created_at);
    const watch = new HeartbeatWatch({ repositories: svc.repositories });
    expect(await watch.tick(created)).toBe(0);
    // Waits for the clock to pass the creation: a ping in the same millisecond would not move the anchor.
    while (Date.now() <= created) await new Promise((resolve) => setTimeout(resolve, 1));
    await call(svc, 'GET', `/ping/${check.heartbeat.pingToken}`);
    const deadlines = svc.repositories.ports.heartbeatDeadlines;
    expect(await deadlines.claimMissed(created + 40_000, 10, 'another process', CLAIM_LEASE_MS)).toEqual([]);
    const [missed] = await deadlines.claimMissed(Date.now() + 40_000, 10, 'another process', CLAIM_LEASE_MS);
    expect(missed!.anchorMs).toBeGreaterThan(created);
    expect(missed!.dueMs).toBe(missed!.anchorMs + 40_000);
  });

  it('follows a new period, and forgets a deleted heartbeat, on its next refresh', async () => {
    const svc = service();
    const check = await heartbeat(svc);
    const created = Date.parse(check.created_at);
    const { seen, alerting } = recorder();
    const watch = new HeartbeatWatch({ repositories: svc.repositories, alerting });
    expect(await watch.tick(created)).toBe(0);
    const updated = await call(svc, 'PUT', `/v1/checks/heartbeat/${check.id}?autoAssignAlerts=false`, { heartbeat: { period: 60, periodUnit: 'seconds', grace: 10, graceUnit: 'seconds' } });
    expect(updated.status).toBe(200);
    expect(await watch.tick(created + 40_000)).toBe(0);
    expect(await watch.tick(created + 70_000)).toBe(1);
    expect(seen.map(({ facts }) => facts.error)).toEqual(['No ping received within 60 seconds (period) + 10 seconds (grace)']);

    expect((await call(svc, 'DELETE', `/v1/checks/${check.id}`)).status).toBe(204);
    expect(await watch.tick(created + 130_000)).toBe(0);
    // Forgotten, not merely skipped: no process claims its windows any more.
    expect(await svc.repositories.ports.heartbeatDeadlines.claimMissed(created + 3_600_000, 10, 'another process', CLAIM_LEASE_MS)).toEqual([]);
  });

  it('leaves deactivated heartbeats and pings stored before its first start alone', async () => {
    const svc = service();
    const off = await heartbeat(svc, { activated: false });
    const on = await heartbeat(svc);
    await call(svc, 'GET', `/ping/${on.heartbeat.pingToken}`);
    const { seen, alerting } = recorder();
    const watch = new HeartbeatWatch({ repositories: svc.repositories, alerting });
    expect(await watch.tick(Date.parse(off.created_at) + 39_999)).toBe(0);
    expect(seen).toEqual([]);
    expect(await watch.tick(Date.parse(off.created_at) + 3_600_000)).toBe(1);
    expect(seen.map(({ checkId }) => checkId)).toEqual([on.id]);
  });
});

describe('two watches on one database', () => {
  const dirs: string[] = [];
  const stores: Store[] = [];
  afterEach(() => {
    stores.splice(0).forEach((store) => store.close());
    dirs.splice(0).forEach((dir) => rmSync(dir, { recursive: true, force: true }));
  });

  it('fail a missed window once between them: one failing result, one notification', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'vigil-heartbeat-watches-'));
    dirs.push(dir);
    const file = path.join(dir, 'vigil.db');
    const created = Date.UTC(2026, 10, 1, 8);
    const [first, second] = [new Store({ file }), new Store({ file })];
    stores.push(first, second);
    const hook = first.alertChannels.insert('acme', (id) => ({ id, type: 'WEBHOOK', config: { name: 'hook', url: 'http://127.0.0.1:1/hook' } }));
    const check = first.checks.insert('acme', (id) => ({
      id,
      name: 'nightly backup',
      checkType: 'HEARTBEAT',
      activated: true,
      useGlobalAlertSettings: true,
      heartbeat: { period: 30, periodUnit: 'seconds', grace: 10, graceUnit: 'seconds', pingToken: 'token' },
      created_at: new Date(created).toISOString(),
    }));
    const checkId = String(check.id);
    first.subscriptions.set('acme', 'check', check.id, [{ alertChannelId: hook.id as number, activated: true }]);
    const due = created + 40_000;
    const sent: string[] = [];
    const watches = [first, second].map((store) => {
      const repositories = openRepositories(store);
      const alerting = new Alerting(repositories, {
        now: () => due,
        send: async (_type, _config, context) => (sent.push(`${context.alertType} ${context.checkResultId}`), { kind: 'sent', result: '200 ok' }),
      });
      return { repositories, alerting, watch: new HeartbeatWatch({ repositories, alerting }) };
    });

    expect(await Promise.all(watches.map(({ watch }) => watch.tick(due - 1)))).toEqual([0, 0]);
    const ticks = await Promise.all(watches.map(({ watch }) => watch.tick(due)));
    expect(ticks.sort()).toEqual([0, 1]);
    expect(await Promise.all(watches.map(({ watch }) => watch.tick(due + 5_000)))).toEqual([0, 0]);

    const { repositories } = watches[1]!;
    const results = (await allResultsOf(repositories.ports.checkResults, 'acme', checkId));
    expect(results.map((result) => [result.hasFailures, result.error, result.startedAt])).toEqual([
      [true, 'No ping received within 30 seconds (period) + 10 seconds (grace)', new Date(due).toISOString()],
    ]);
    await Promise.all(watches.map(({ alerting }) => alerting.idle()));
    await Promise.all(watches.map(({ alerting }) => alerting.stop()));
    expect(sent).toEqual([`ALERT_FAILURE ${results[0]!.id}`]);
    const notifications = await new NotificationLog(repositories.ports.outbox).list('acme', { fromMs: 0, toMs: due + 86_400_000 }, { page: 1, limit: 10 });
    expect(notifications.items.map((notification) => [notification.alertType, notification.checkResultId])).toEqual([['ALERT_FAILURE', results[0]!.id]]);
    const reported = await repositories.ports.heartbeatDeadlines.reported('acme', checkId);
    expect(reported?.dueMs).toBe(due);
    expect(reported?.leaseUntilMs).toBeNull();
    expect(watches.map((watch) => watch.repositories.replicaId)).toContain(reported?.owner);
  });
});
