import { afterEach, describe, expect, it } from 'vitest';
import { createApp, type ServiceApp } from '../app.js';
import type { FinalResultFacts } from '../alerting/index.js';
import { HeartbeatWatch } from './watch.js';

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
  return { seen, alerting: { onFinalResult: (_account: string, checkId: string, facts: FinalResultFacts) => (seen.push({ checkId, facts }), []) } };
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

    expect(watch.tick(created + 39_000)).toBe(0);
    expect(watch.tick(created + 40_000)).toBe(1);
    expect(watch.tick(created + 45_000)).toBe(0);
    expect(seen.map(({ facts }) => [facts.hasFailures, facts.error])).toEqual([[true, 'No ping received within 30 seconds (period) + 10 seconds (grace)']]);

    // A restart: a new watch on the same database reports nothing twice, but the next window.
    const restarted = new HeartbeatWatch({ repositories: svc.repositories, alerting });
    expect(restarted.tick(created + 50_000)).toBe(0);
    expect(restarted.tick(created + 70_000)).toBe(1);

    await call(svc, 'GET', `/ping/${check.heartbeat.pingToken}`);
    expect(restarted.tick(Date.now())).toBe(1);
    expect(seen.at(-1)!.facts).toMatchObject({ hasFailures: false, error: null });
    const results = svc.repositories.readSide.results.resultsOf('acme', check.id);
    // Oldest first: the ping carries the real clock, earlier than the simulated deadlines.
    expect(results.map((result) => result.hasFailures)).toEqual([false, true, true]);
    expect(svc.repositories.statuses.get('acme', check.id)).toMatchObject({ hasFailures: false, lastRunLocation: 'local' });
  });

  it('turns a /fail ping into a failing result and measures the next deadline from it', async () => {
    const svc = service();
    const check = await heartbeat(svc);
    const { seen, alerting } = recorder();
    const watch = new HeartbeatWatch({ repositories: svc.repositories, alerting });
    await call(svc, 'POST', `/ping/${check.heartbeat.pingToken}/fail`);
    const pinged = Date.now();
    expect(watch.tick(pinged)).toBe(1);
    expect(seen[0]!.facts).toMatchObject({ hasFailures: true, error: 'The job reported a failure (ping from HTTP POST)' });
    expect(watch.tick(Date.parse(check.created_at) + 40_000)).toBe(0);
    expect(watch.tick(pinged + 40_001)).toBe(1);
  });

  it('prunes events older than the retention, once they became results', async () => {
    const svc = service();
    const check = await heartbeat(svc);
    const watch = new HeartbeatWatch({ repositories: svc.repositories, retentionDays: 1 });
    await call(svc, 'GET', `/ping/${check.heartbeat.pingToken}`);
    expect(watch.prune(Date.now() + 2 * 86_400_000)).toBe(0);
    watch.tick(Date.now());
    expect(watch.prune(Date.now() + 2 * 86_400_000)).toBe(1);
    expect(svc.repositories.readSide.results.heartbeatEventsOf('acme', check.id)).toEqual([]);
  });

  it('watches a heartbeat made through the generic call with its shorter period', async () => {
    const svc = service();
    const created = await call(svc, 'POST', '/v1/checks', { name: 'fast', checkType: 'HEARTBEAT', script: null, heartbeat: { period: 5, periodUnit: 'seconds', grace: 0, graceUnit: 'seconds' } });
    const check = (await call(svc, 'GET', `/v1/checks/${created.body.id}`)).body as { created_at: string; heartbeat: { pingToken: string } };
    expect(check.heartbeat.pingToken).toMatch(/^[0-9a-f-]{36}$/);
    const watch = new HeartbeatWatch({ repositories: svc.repositories });
    expect(watch.tick(Date.parse(check.created_at) + 5_000)).toBe(1);
  });

  it('leaves deactivated heartbeats and pings stored before its first start alone', async () => {
    const svc = service();
    const off = await heartbeat(svc, { activated: false });
    const on = await heartbeat(svc);
    await call(svc, 'GET', `/ping/${on.heartbeat.pingToken}`);
    const { seen, alerting } = recorder();
    const watch = new HeartbeatWatch({ repositories: svc.repositories, alerting });
    expect(watch.tick(Date.parse(off.created_at) + 39_999)).toBe(0);
    expect(seen).toEqual([]);
    expect(watch.tick(Date.parse(off.created_at) + 3_600_000)).toBe(1);
    expect(seen.map(({ checkId }) => checkId)).toEqual([on.id]);
  });
});
