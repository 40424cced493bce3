/**
 * Fuzzing the service's HTTP surface: generated and mutated requests across every endpoint of
 * ENDPOINTS. Bodies start from a valid sample (samples.ts) and are mutated at paths taken from the
 * sample and from the endpoint's zod schema, so the fuzzing follows the contract as it changes.
 * The bar: no 5xx, no crash, every 4xx carries the documented error body, and the database passes
 * `PRAGMA integrity_check` afterwards.
 *
 * Deterministic: the seed is fixed (override with VIGIL_FUZZ_SEED to explore, and to replay a
 * failure print). CI sends 10,000 requests; VIGIL_STRESS=1 sends 50,000 (with larger lists);
 * VIGIL_FUZZ_COUNT overrides the count, VIGIL_FUZZ_TIMINGS=1 prints the slowest requests.
 */
import { rm } from 'node:fs/promises';
import { connect } from 'node:net';
import fc from 'fast-check';
import pLimit from 'p-limit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENDPOINT_IDS, ErrorBody, HTTP_ERROR_NAMES, type EndpointId } from '@vigil/schema';
import { TENANTS, createResources, integrityCheck, send, startService, type Reply, type Service } from './harness.js';
import type { ResourceIds } from './samples.js';
import { FUZZ_REQUEST_COUNT, requestArbitrary, type FuzzRequest } from './fuzz-requests.js';

const SEED = Number(process.env.VIGIL_FUZZ_SEED ?? 20261122);

let service: Service;
let ids: ResourceIds;
let otherIds: ResourceIds;

beforeAll(async () => {
  service = await startService();
  ids = await createResources(service.server.url, TENANTS[0]);
  otherIds = await createResources(service.server.url, TENANTS[1]);
});

afterAll(async () => {
  await service.server.close();
  await rm(service.dataDir, { recursive: true, force: true });
});

/** What is wrong with a reply, or undefined when it meets the bar. */
function problemWith(request: FuzzRequest, reply: Reply): string | undefined {
  if (reply.status >= 500) return `answered ${reply.status}: ${reply.text.slice(0, 300)}`;
  if (reply.status < 400) return undefined;
  // A HEAD reply has no body by definition; its status alone is the bar.
  if (request.method === 'HEAD') return undefined;
  const parsed = ErrorBody.safeParse(reply.json);
  if (!parsed.success) return `${reply.status} without the error body: ${reply.text.slice(0, 300)}`;
  const body = parsed.data;
  if (body.statusCode !== reply.status) return `statusCode ${body.statusCode} on a ${reply.status}`;
  if (body.error !== HTTP_ERROR_NAMES[reply.status]) return `error "${body.error}" on a ${reply.status}`;
  if (reply.status !== 400 && body.validation !== undefined) return `validation on a ${reply.status}`;
  if (reply.status === 400 && body.validation === undefined && !body.message.startsWith('Invalid request payload JSON format')) {
    return `400 without validation.keys: ${body.message}`;
  }
  return undefined;
}

/** Writes raw bytes to the service and returns the raw HTTP response text. */
function rawExchange(port: number, bytes: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    const socket = connect(port, '127.0.0.1', () => socket.write(bytes));
    socket.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
    socket.on('end', () => resolve(text));
    socket.on('error', reject);
  });
}

function errorBodyOf(rawResponse: string): unknown {
  return JSON.parse(rawResponse.slice(rawResponse.indexOf('\r\n\r\n') + 4));
}

describe('requests Node refuses before the service sees them', () => {
  it('answers a request line past 16 KiB with 431 and the documented error body', async () => {
    const reply = await send(service.server.url, 'GET', `/v1/checks?tag=${'x'.repeat(17_000)}`, { apiKey: TENANTS[0].apiKey });
    expect(reply.status).toBe(431);
    expect(reply.json).toEqual({ statusCode: 431, error: 'Request Header Fields Too Large', message: 'Request line and headers exceed 16 KiB' });
  });

  it('answers bytes that are not HTTP with 400 and the documented error body', async () => {
    const response = await rawExchange(service.server.port, 'NOT HTTP AT ALL\r\n\r\n');
    expect(response.startsWith('HTTP/1.1 400 Bad Request\r\n')).toBe(true);
    expect(errorBodyOf(response)).toEqual({ statusCode: 400, error: 'Bad Request', message: 'Malformed HTTP request' });
  });
});

describe('deeply nested bodies', () => {
  const nested = (depth: number): string => `${'['.repeat(depth)}1${']'.repeat(depth)}`;
  const heartbeatCheck = (maxResponseTime: string): string =>
    `{"name":"Deep","checkType":"HEARTBEAT","script":"","heartbeat":{"period":1,"periodUnit":"days","grace":1,"graceUnit":"hours"},"maxResponseTime":${maxResponseTime}}`;
  const postCheck = (body: string): Promise<Reply> =>
    send(service.server.url, 'POST', '/v1/checks?autoAssignAlerts=false', { apiKey: TENANTS[0].apiKey, body, headers: { 'content-type': 'application/json' } });

  // maxResponseTime takes "any type" on this call, so only the depth limit stands between
  // such a value and the recursive code behind validation (it answered 500 before the limit).
  it('refuses a 50,000-level value in an any-type field with 400 naming the field', async () => {
    const reply = await postCheck(heartbeatCheck(nested(50_000)));
    expect(reply.status).toBe(400);
    expect(reply.json).toEqual({
      statusCode: 400, error: 'Bad Request', message: '"maxResponseTime" must not be nested deeper than 64 levels',
      validation: { source: 'payload', keys: ['maxResponseTime'] },
    });
  });

  it('accepts a body nested just under the limit (in a key the schema strips)', async () => {
    const reply = await send(service.server.url, 'POST', '/v1/status-pages/services', {
      apiKey: TENANTS[0].apiKey, body: `{"name":"Nested","note":${nested(62)}}`, headers: { 'content-type': 'application/json' },
    });
    expect(reply.status).toBe(200);
  });
});

describe(`${FUZZ_REQUEST_COUNT} generated and mutated requests across every endpoint (seed ${SEED})`, () => {
  it('never answer 5xx, always carry the documented error body, and leave the database intact', async () => {
    const requests = fc.sample(requestArbitrary(() => ({ ids, otherIds })), { seed: SEED, numRuns: FUZZ_REQUEST_COUNT });
    const limit = pLimit(8);
    const problems: string[] = [];
    const endpointsHit = new Set<EndpointId>();
    const statuses = new Map<number, number>();
    const timings: Array<[number, string]> = [];
    await Promise.all(
      requests.map((request) =>
        limit(async () => {
          endpointsHit.add(request.endpoint);
          let reply: Reply;
          const started = performance.now();
          const attempt = (): Promise<Reply> =>
            send(service.server.url, request.method, request.path, {
              apiKey: TENANTS[0].apiKey,
              ...(request.body !== undefined ? { body: request.body } : {}),
              headers: request.headers,
            });
          try {
            reply = await attempt();
          } catch {
            // One retry: a keep-alive socket the server closed while idle (e.g. during request
            // generation) resets on reuse, a client-side race. A request that fails twice is a finding.
            try {
              reply = await attempt();
            } catch (error) {
              problems.push(`${label(request)}: connection failed twice: ${String((error as Error).cause ?? error)}`);
              return;
            }
          }
          timings.push([performance.now() - started, label(request)]);
          statuses.set(reply.status, (statuses.get(reply.status) ?? 0) + 1);
          const problem = problemWith(request, reply);
          if (problem) problems.push(`${label(request)}: ${problem}`);
        }),
      ),
    );
    if (process.env.VIGIL_FUZZ_TIMINGS) console.log(timings.sort((a, b) => b[0] - a[0]).slice(0, 15).map(([ms, what]) => `${ms.toFixed(0)} ms ${what.slice(0, 200)}`).join('\n'));
    const alive = await send(service.server.url, 'GET', '/v1/accounts', { apiKey: TENANTS[0].apiKey });
    expect(alive.status).toBe(200);
    expect(problems.slice(0, 10)).toEqual([]);
    expect([...endpointsHit].sort()).toEqual([...ENDPOINT_IDS].sort());
    // Both sides of the contract were exercised: accepted writes and refused ones.
    expect([...statuses.keys()]).toEqual(expect.arrayContaining([200, 201, 400, 404]));

    await service.server.close();
    expect(integrityCheck(service.dataDir)).toBe('ok');
  }, 600_000);
});

function label(request: FuzzRequest): string {
  const body = request.body === undefined ? '' : ` body(${request.bodyKind}, ${request.body.length} chars): ${request.body.slice(0, 160)}`;
  return `${request.endpoint} ${request.method} ${request.path.slice(0, 200)}${body}`;
}
