/**
 * Users' patterns and remote bodies against a real `vigil server` running its schedule: a
 * catastrophically backtracking regex and a `$..*` JSONPath on a multi-megabyte JSON body fail
 * their runs with messages naming the limit while the API keeps answering, and a body larger than
 * the read limit is read up to it and stored within the documented bound of a stored result
 * (docs/local-service.md, "Limits").
 */
import { createRequire } from 'node:module';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startServer, type RunningServer } from '@vigil/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../support/cli.js';

const KEY = 'vigil-local';
const MiB = 1024 * 1024;
/** The documented limits (docs/local-service.md): body bytes read, actual bytes kept, stored result size. */
const READ_LIMIT = 5 * MiB;
const ACTUAL_BYTES = 4 * 1024;
const RESULT_BYTES = 256 * 1024;

const BIG_TEXT = 'b'.repeat(6 * MiB);
const BIG_JSON = JSON.stringify(Array.from({ length: 70_000 }, (_, id) => ({ id, name: `item ${id}`, tags: ['a', 'b'], nested: { id } })));

let server: RunningServer;
let target: Server;
let targetUrl: string;
let dataDir: string;
/** What each probe of the API, sent as soon as the target has answered a run, saw. */
const probes = new Map<string, Array<{ status: number; answeredAt: number }>>();

function serve(request: IncomingMessage, response: ServerResponse): void {
  const route = request.url ?? '/';
  const body = route === '/runaway' ? `${'a'.repeat(34)}!` : route === '/big' ? BIG_TEXT : route === '/json' ? BIG_JSON : 'not found';
  response.writeHead(200, { 'content-type': route === '/json' ? 'application/json' : 'text/plain' });
  response.end(body);
  // The run's assertions start once this body is read: the probe asks the API while they run.
  response.once('finish', () => {
    void fetch(`${server.url}/v1/checks?limit=1`, { headers: { authorization: `Bearer ${KEY}` } }).then(
      async (reply) => {
        await reply.arrayBuffer();
        const seen = probes.get(route) ?? [];
        seen.push({ status: reply.status, answeredAt: Date.now() });
        probes.set(route, seen);
      },
      () => undefined,
    );
  });
}

async function api(method: string, route: string, body?: unknown): Promise<any> {
  const reply = await fetch(`${server.url}${route}`, {
    method,
    headers: { authorization: `Bearer ${KEY}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await reply.text();
  if (reply.status >= 300) throw new Error(`${method} ${route} answered ${reply.status}: ${text}`);
  return text === '' ? undefined : JSON.parse(text);
}

/** Polls until `probe` gives a value; fails after `timeoutMs` with what it waited for. */
async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 90_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`gave up after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
}

/** Creates an API check on the 10-second schedule against `route`, runs it until its first FINAL result, deletes it. */
async function firstResult(name: string, route: string, assertions: unknown[]): Promise<Record<string, any>> {
  const check = await api('POST', '/v1/checks/api?autoAssignAlerts=false', {
    name,
    frequency: 0,
    frequencyOffset: 10,
    locations: ['eu-west-1'],
    doubleCheck: false,
    request: { url: `${targetUrl}${route}`, method: 'GET', assertions },
  });
  try {
    return await waitFor(`the first FINAL result of "${name}"`, async () => {
      const results = (await api('GET', `/v1/check-results/${check.id}?limit=10&resultType=FINAL`)) as Array<Record<string, any>>;
      return results.sort((a, b) => Date.parse(a.created_at) - Date.parse(b.created_at))[0];
    });
  } finally {
    await api('DELETE', `/v1/checks/${check.id}`);
  }
}

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), 'vigil-assertion-limits-'));
  server = await startServer({ port: 0, dataDir, scheduler: true });
  target = createServer(serve);
  await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
  targetUrl = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await server?.close();
  target?.closeAllConnections();
  await new Promise((resolve) => target?.close(resolve));
  await rm(dataDir, { recursive: true, force: true });
});

describe('assertions on hostile patterns and bodies', () => {
  it('stops a catastrophically backtracking regex with the limit in its message, and the API answers while it runs', async () => {
    const result = await firstResult('Runaway pattern', '/runaway', [{ source: 'TEXT_BODY', comparison: 'EQUALS', target: 'x', regex: '^(a+)+$', property: '' }]);
    const message = 'TEXT_BODY assertion: the pattern did not finish within 1000 ms and was stopped';
    expect(result.hasFailures).toBe(true);
    expect(result.apiCheckResult.assertions).toEqual([expect.objectContaining({ regex: '^(a+)+$', passed: false, error: message })]);
    expect(result.error).toBe(`assertion failed: ${message}`);
    // The probe sent when the target answered came back before the run was over: the event loop
    // was free while the pattern ran (on the service's thread the answer would wait for the run).
    const [probe] = await waitFor('the API probe sent during the runaway run', async () => probes.get('/runaway'));
    expect(probe).toBeDefined();
    expect(probe!.status).toBe(200);
    expect(probe!.answeredAt).toBeLessThan(Date.parse(result.stoppedAt));
  }, 120_000);

  it('stops `$..*` on a multi-megabyte JSON body at the match limit, and the API keeps answering', async () => {
    expect(BIG_JSON.length).toBeGreaterThan(4 * MiB);
    const result = await firstResult('Every node', '/json', [
      { source: 'JSON_BODY', comparison: 'NOT_EMPTY', property: '$..*', target: '' },
      { source: 'JSON_BODY', comparison: 'EQUALS', property: '$[1].name', target: 'item 1' },
    ]);
    // Either bound stops it: the match limit, or on a machine busy enough that parsing and walking
    // 4 MiB take longer than the assertion deadline, the deadline. Both fail this assertion alone.
    const bounds = [
      'the JSONPath "$..*" matched more than 10000 values; an assertion compares at most 10000 (narrow the path)',
      'JSON_BODY assertion: the JSONPath did not finish within 1000 ms and was stopped',
    ];
    const [first, second] = result.apiCheckResult.assertions as Array<{ passed: boolean; error: string | null }>;
    expect(bounds).toContain(first!.error);
    expect(first!.passed).toBe(false);
    expect(result.error).toBe(`assertion failed: ${first!.error}`);
    expect(second).toMatchObject({ passed: true, error: null });
    const [probe] = await waitFor('the API probe sent during the JSONPath run', async () => probes.get('/json'));
    expect(probe!.status).toBe(200);
  }, 120_000);

  it('reads a 6 MiB body up to the read limit and stores the result within its documented bound', async () => {
    const result = await firstResult('Huge page', '/big', [{ source: 'TEXT_BODY', comparison: 'CONTAINS', target: 'zzz', property: '' }]);
    const actual = `${'b'.repeat(ACTUAL_BYTES)}… [truncated: ${READ_LIMIT} bytes in all]`;
    expect(result.error).toBe(`assertion failed: TEXT_BODY CONTAINS "zzz": actual ${JSON.stringify(actual)}`);
    expect(result.apiCheckResult.assertions[0].actual).toBe(actual);
    expect(result.apiCheckResult.response.bodyTruncated).toBe(true);
    const logged = (result.apiCheckResult.jobLog.request as Array<{ msg: string }>).map((line) => line.msg);
    expect(logged).toContainEqual(expect.stringMatching(new RegExp(`^200 OK in \\d+ ms \\(body read stopped at ${READ_LIMIT} bytes, the rest discarded\\)$`)));
    expect(Buffer.byteLength(JSON.stringify(result))).toBeLessThan(RESULT_BYTES);
    expect(storedBytes(result.id, result.checkId)).toBeLessThan(RESULT_BYTES);
  }, 120_000);
});

/**
 * The bytes the result's row holds on disk, read with the server's own better-sqlite3. A result the
 * service stored from a run has a derived id (store/formats/result-ids.ts): its row is found by check,
 * `created_at` millisecond and discriminator, which the id spells out, not by a stored id.
 */
function storedBytes(id: string, checkId: string): number {
  type Database = { prepare(sql: string): { get(...values: unknown[]): unknown }; close(): void };
  const Sqlite = createRequire(path.join(REPO_ROOT, 'packages/server/package.json'))('better-sqlite3') as new (file: string, options: { readonly: boolean }) => Database;
  const db = new Sqlite(path.join(dataDir, 'vigil.db'), { readonly: true });
  try {
    const hex = id.replaceAll('-', '');
    const derived = hex[12] === '8';
    const row = (
      derived
        ? db
            .prepare('SELECT length(r.body) AS bytes FROM check_results r JOIN result_series s ON s.key = r.series WHERE s.check_id = ? AND r.created_ms = ? AND r.id = ?')
            .get(checkId, Number.parseInt(hex.slice(0, 12), 16), Number.parseInt(hex.slice(13, 16), 16))
        : db.prepare('SELECT length(body) AS bytes FROM check_results WHERE id = ?').get(Buffer.from(hex, 'hex'))
    ) as { bytes: number } | undefined;
    if (row === undefined) throw new Error(`no stored row for result ${id}`);
    return row.bytes;
  } finally {
    db.close();
  }
}
