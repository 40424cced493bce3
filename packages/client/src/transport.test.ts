/**
 * Network-level behaviour of the transport. These cases are about sockets and proxies, not about the
 * monitoring API: a stalled body, a plain-text page from a proxy, a socket killed mid-response. The
 * real `@vigil/server` cannot produce them on demand, so a bare `node:http` listener on 127.0.0.1 does;
 * everything about the API itself is tested against the real server in test/contract.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { NetworkError, ServerError, TimeoutError } from './errors.js';
import { CLIENT_VERSION, Transport, encodeQuery, type AttemptInfo, type TransportOptions } from './transport.js';

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

let server: Server | undefined;

afterEach(async () => {
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

/** Starts a listener whose `nth` request (0-based) is answered by `handlers[nth]` (the last one repeats). */
async function listen(handlers: Array<(res: ServerResponse, req: IncomingMessage) => void>): Promise<{ baseUrl: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      const handler = handlers[Math.min(seen.length - 1, handlers.length - 1)]!;
      handler(res, req);
    });
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { baseUrl: `http://127.0.0.1:${port}`, seen };
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}) => (res: ServerResponse) => {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
};

function transport(baseUrl: string, options: Partial<TransportOptions> = {}): Transport {
  return new Transport({
    baseUrl: `${baseUrl}/`,
    apiKey: 'key-1',
    pacing: false,
    retry: { attempts: 3, baseDelayMs: 1, maxDelayMs: 5, maxTotalMs: 5_000 },
    ...options,
  });
}

describe('Transport', () => {
  it('sends the key, the account, the user agent and a JSON body', async () => {
    const { baseUrl, seen } = await listen([json(201, { id: 1 })]);
    const response = await transport(baseUrl, { accountId: 'acct-9' }).request({ method: 'POST', path: '/v1/checks/api', body: { name: 'a' } });
    expect(response).toMatchObject({ status: 201, body: { id: 1 }, attempts: 1 });
    expect(seen[0]).toMatchObject({ method: 'POST', url: '/v1/checks/api', body: '{"name":"a"}' });
    expect(seen[0]!.headers).toMatchObject({
      authorization: 'Bearer key-1',
      'x-service-account': 'acct-9',
      'user-agent': `vigil/${CLIENT_VERSION}`,
      'content-type': 'application/json',
      accept: 'application/json',
    });
    expect(seen[0]!.headers['idempotency-key']).toBe(response.idempotencyKey);
    expect(response.idempotencyKey).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('keeps each POST\'s idempotency key to that request (a later call sends its own or none)', async () => {
    const { baseUrl, seen: all } = await listen([json(200, []), json(201, { id: 1 }), json(201, { id: 2 }), json(200, [])]);
    const client = transport(baseUrl);
    await client.request({ method: 'GET', path: '/v1/checks' });
    const first = await client.request({ method: 'POST', path: '/v1/checks/api', body: { name: 'a' }, idempotencyKey: 'key-a' });
    const second = await client.request({ method: 'POST', path: '/v1/checks/api', body: { name: 'b' } });
    await client.request({ method: 'GET', path: '/v1/checks' });
    const seen = all.slice(1);
    expect(first.idempotencyKey).toBe('key-a');
    expect(seen.map((each) => each.headers['idempotency-key'])).toEqual(['key-a', second.idempotencyKey, undefined]);
    expect(second.idempotencyKey).not.toBe('key-a');
    // The GET's headers are shared by every call without a key: the POSTs before it must not have
    // left their content type in them.
    expect(seen.map((each) => each.headers['content-type'])).toEqual(['application/json', 'application/json', undefined]);
  });

  it('sends no account header and no idempotency key on a GET without an account', async () => {
    const { baseUrl, seen } = await listen([json(200, [])]);
    await transport(baseUrl).request({ method: 'GET', path: '/v1/checks', query: { limit: 100, tag: ['a', 'b'], skip: undefined } });
    expect(seen[0]!.url).toBe('/v1/checks?limit=100&tag=a%2Cb');
    expect(seen[0]!.headers['x-service-account']).toBeUndefined();
    expect(seen[0]!.headers['idempotency-key']).toBeUndefined();
  });

  it('repeats a POST after a lost response with the same idempotency key', async () => {
    const { baseUrl, seen } = await listen([(res) => res.socket?.destroy(), json(201, { id: 7 })]);
    const response = await transport(baseUrl).request({ method: 'POST', path: '/v1/checks/api', body: {}, idempotencyKey: 'journaled-key' });
    expect(response).toMatchObject({ status: 201, attempts: 2, idempotencyKey: 'journaled-key' });
    expect(seen.map((request) => request.headers['idempotency-key'])).toEqual(['journaled-key', 'journaled-key']);
  });

  it('reports a socket killed mid-body as a NetworkError after the allowed attempts', async () => {
    const { baseUrl, seen } = await listen([
      (res) => {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' });
        res.write('[{"id":');
        setTimeout(() => res.socket?.destroy(), 10);
      },
    ]);
    const error = await transport(baseUrl).request({ method: 'GET', path: '/v1/checks' }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(NetworkError);
    expect(error).toMatchObject({ status: undefined, method: 'GET', path: '/v1/checks', attempts: 3 });
    expect((error as NetworkError).message).toMatch(/^\[GET\] "\/v1\/checks": network error — /);
    expect(seen).toHaveLength(3);
  });

  it('times out a response that stalls, body included', async () => {
    const { baseUrl } = await listen([
      (res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('[');
      },
    ]);
    const error = await transport(baseUrl, { timeoutMs: 100, retry: { attempts: 1 } })
      .request({ method: 'GET', path: '/v1/checks' })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TimeoutError);
    expect((error as TimeoutError).message).toBe('[GET] "/v1/checks": timed out after 100 ms');
  });

  it('times out a service that never answers', async () => {
    const { baseUrl, seen } = await listen([() => undefined]);
    const error = await transport(baseUrl, { timeoutMs: 100, retry: { attempts: 1 } })
      .request({ method: 'GET', path: '/v1/checks/c-1', endpoint: 'checks.get' })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TimeoutError);
    expect(error).toMatchObject({ status: undefined, endpoint: 'checks.get', attempts: 1, timeoutMs: 100 });
    expect(seen).toHaveLength(1);
  });

  it('leaves no timer pending once a call is answered', async () => {
    const { baseUrl } = await listen([json(200, [])]);
    const timers = () => process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;
    const before = timers();
    const client = transport(baseUrl);
    for (let call = 0; call < 5; call++) await client.request({ method: 'GET', path: '/v1/checks' });
    // At most as many as before: timers of earlier tests may have ended meanwhile, but 5 calls that
    // each left their 30 s timer would show.
    expect(timers()).toBeLessThanOrEqual(before);
  });

  it('gives every attempt its own timeout: the retry after a timed-out attempt is answered', async () => {
    const { baseUrl, seen } = await listen([() => undefined, json(200, [{ id: 1 }])]);
    const response = await transport(baseUrl, { timeoutMs: 100, retry: { attempts: 2, baseDelayMs: 1, maxDelayMs: 1 } }).request({ method: 'GET', path: '/v1/checks' });
    expect(response).toMatchObject({ status: 200, body: [{ id: 1 }], attempts: 2 });
    expect(seen).toHaveLength(2);
  });

  it('retries a plain-text 502 from a proxy on GET, then reports its text', async () => {
    const proxyPage = (res: ServerResponse) => {
      res.writeHead(502, { 'content-type': 'text/html' });
      res.end('<html><body>Bad gateway</body></html>');
    };
    const attempts: AttemptInfo[] = [];
    const { baseUrl } = await listen([proxyPage]);
    const error = await transport(baseUrl, { onAttempt: (info) => attempts.push(info) })
      .request({ method: 'GET', path: '/v1/accounts' })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ServerError);
    expect((error as ServerError).message).toBe('[GET] "/v1/accounts": 502 Bad Gateway — <html><body>Bad gateway</body></html>');
    expect(attempts.map((info) => [info.attempt, info.status])).toEqual([
      [1, 502],
      [2, 502],
      [3, 502],
    ]);
  });

  it('does not retry a refused connection', async () => {
    const { baseUrl } = await listen([json(200, {})]);
    server!.close();
    const attempts: AttemptInfo[] = [];
    const error = await transport(baseUrl, { onAttempt: (info) => attempts.push(info) })
      .request({ method: 'GET', path: '/v1/accounts' })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(NetworkError);
    expect((error as NetworkError).code).toBe('ECONNREFUSED');
    expect(attempts).toHaveLength(1);
  });

  it('gives an empty 204 an undefined body', async () => {
    const { baseUrl } = await listen([
      (res) => {
        res.writeHead(204);
        res.end();
      },
    ]);
    const response = await transport(baseUrl).request({ method: 'DELETE', path: '/v1/checks/1' });
    expect(response).toMatchObject({ status: 204, body: undefined });
  });
});

describe('encodeQuery', () => {
  it.each([
    [undefined, ''],
    [{}, ''],
    [{ a: undefined, b: null }, ''],
    [{ autoAssignAlerts: false }, '?autoAssignAlerts=false'],
    [{ metrics: ['responseTime', 'availability'], page: 2 }, '?metrics=responseTime%2Cavailability&page=2'],
  ])('encodes %j as %j', (query, want) => {
    expect(encodeQuery(query)).toBe(want);
  });
});
