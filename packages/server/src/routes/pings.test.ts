/**
 * Unknown ping tokens are limited per client address and per token, and never stand between a
 * known token and its ping: a burst of unknown tokens from the host where the monitored jobs run
 * used to get their real pings refused, which then alerted as missed heartbeats.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createApp, type ServiceApp } from '../app.js';
import { startTestServer, type TestApi } from '../test-support.js';

let api: TestApi | undefined;
let service: ServiceApp | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
  service?.close();
  service = undefined;
});

const HEARTBEAT = { name: 'nightly backup', heartbeat: { period: 1, periodUnit: 'days', grace: 1, graceUnit: 'hours' } };

interface PingReply {
  readonly status: number;
  readonly retryAfter: string | null;
  readonly text: string;
}

async function ping(url: string, method = 'GET'): Promise<PingReply> {
  const response = await fetch(url, { method });
  return { status: response.status, retryAfter: response.headers.get('retry-after'), text: await response.text() };
}

function expectRefused(reply: PingReply, what: string): void {
  expect(reply.status).toBe(429);
  expect(reply.retryAfter).toMatch(/^[1-9]\d*$/);
  expect(JSON.parse(reply.text)).toEqual({ statusCode: 429, error: 'Too Many Requests', message: `Too many ${what}; retry in ${reply.retryAfter} s` });
}

describe('unknown ping tokens from one address', () => {
  it('are refused after 30, while a known token from the same address is still recorded', async () => {
    api = await startTestServer();
    const created = await api.post('/v1/checks/heartbeat?autoAssignAlerts=false', HEARTBEAT);
    expect(created.status).toBe(201);
    const token: string = created.body.heartbeat.pingToken;
    const base = `${api.server.url}/ping`;

    for (let i = 0; i < 30; i++) {
      const unknown = await ping(`${base}/guess-${i}`);
      expect(unknown.status).toBe(404);
      expect(JSON.parse(unknown.text)).toEqual({ statusCode: 404, error: 'Not Found', message: 'No heartbeat monitor has this ping token' });
    }
    expectRefused(await ping(`${base}/guess-30`), 'pings with unknown tokens from this address');

    expect(await ping(`${base}/${token}`)).toMatchObject({ status: 200, text: 'OK\n' });
    expect(await ping(`${base}/${token}/fail?source=backup.sh`, 'POST')).toMatchObject({ status: 200, text: 'OK\n' });
    expectRefused(await ping(`${base}/guess-31/fail`, 'POST'), 'pings with unknown tokens from this address');

    const events = await api.get(`/v1/checks/heartbeats/${created.body.id}/events`);
    expect(events.body[0].events.map((event: { state: string }) => event.state)).toEqual(['FAILING', 'RECEIVED']);
  });

  it("leave a known token's own limit of 60 pings a minute as it was", async () => {
    api = await startTestServer();
    const token: string = (await api.post('/v1/checks/heartbeat?autoAssignAlerts=false', HEARTBEAT)).body.heartbeat.pingToken;
    const base = `${api.server.url}/ping`;
    for (let i = 0; i < 31; i++) await ping(`${base}/guess-${i}`);
    for (let i = 0; i < 60; i++) expect((await ping(`${base}/${token}`)).status).toBe(200);
    expectRefused(await ping(`${base}/${token}`), 'pings for this heartbeat');
  });
});

describe('one unknown token from many addresses', () => {
  /** The app itself with the peer address a socket would give, as the server hands it over. */
  async function from(address: string, path: string): Promise<PingReply> {
    const incoming = { socket: { remoteAddress: address }, rawHeaders: [] };
    const response = await service!.app.request(path, {}, { incoming } as never);
    return { status: response.status, retryAfter: response.headers.get('retry-after'), text: await response.text() };
  }

  it('is refused after 30 wherever it comes from; other tokens from those addresses are not', async () => {
    service = createApp({ accounts: [{ apiKey: 'k', accountId: 'acme' }] });
    const created = await service.app.request('/v1/checks/heartbeat?autoAssignAlerts=false', {
      method: 'POST',
      headers: { authorization: 'Bearer k', 'content-type': 'application/json' },
      body: JSON.stringify(HEARTBEAT),
    });
    const token = ((await created.json()) as { heartbeat: { pingToken: string } }).heartbeat.pingToken;

    for (let i = 0; i < 30; i++) expect((await from(`10.0.${i % 3}.1`, '/ping/deleted-monitor')).status).toBe(404);
    expectRefused(await from('10.0.9.1', '/ping/deleted-monitor'), 'pings with this unknown token');
    expect((await from('10.0.9.1', '/ping/another-unknown')).status).toBe(404);
    expect(await from('10.0.9.1', `/ping/${token}`)).toMatchObject({ status: 200, text: 'OK\n' });
  });
});

describe('a ping', () => {
  async function heartbeatToken(app: ServiceApp): Promise<{ token: string; checkId: string }> {
    const created = await app.app.request('/v1/checks/heartbeat?autoAssignAlerts=false', {
      method: 'POST',
      headers: { authorization: 'Bearer k', 'content-type': 'application/json' },
      body: JSON.stringify(HEARTBEAT),
    });
    const body = (await created.json()) as { id: string; heartbeat: { pingToken: string } };
    return { token: body.heartbeat.pingToken, checkId: String(body.id) };
  }

  it('is stored through the heartbeat-ping port, pending, with its source and user agent, before OK is answered', async () => {
    service = createApp({ accounts: [{ apiKey: 'k', accountId: 'acme' }] });
    const { token, checkId } = await heartbeatToken(service);
    const answer = await service.app.request(`/ping/${token}/fail?source=cron`, { headers: { 'user-agent': 'curl/8' } });
    expect(answer.status).toBe(200);
    expect(await answer.text()).toBe('OK\n');
    const claimed = await service.repositories.ports.heartbeatPings.claim('test', Date.now(), 60_000, 10);
    expect(claimed).toHaveLength(1);
    expect(claimed[0]).toMatchObject({ accountId: 'acme', checkId });
    expect(JSON.parse(claimed[0]!.doc)).toMatchObject({ id: claimed[0]!.id, state: 'FAILING', source: 'cron', userAgent: 'curl/8' });
  });

  it('is not answered OK when the port does not store it', async () => {
    service = createApp({ accounts: [{ apiKey: 'k', accountId: 'acme' }] });
    const { token } = await heartbeatToken(service);
    const { ports } = service.repositories;
    const transaction = ports.transaction.bind(ports);
    // The ping's unit stores its event through the unit's port, which fails here.
    const failingUnit: typeof ports.transaction = (work) =>
      transaction((tx) =>
        work({
          ...tx,
          heartbeatPings: {
            ofCheck: (accountId, checkId, fromMs, toMs) => tx.heartbeatPings.ofCheck(accountId, checkId, fromMs, toMs),
            monitorOfToken: (pingToken) => tx.heartbeatPings.monitorOfToken(pingToken),
            record: () => Promise.reject(new Error('the database is away')),
          },
        }),
      );
    Object.defineProperty(ports, 'transaction', { value: failingUnit });
    const answer = await service.app.request(`/ping/${token}`);
    expect(answer.status).toBe(500);
    expect(await answer.text()).not.toBe('OK\n');
  });
});
