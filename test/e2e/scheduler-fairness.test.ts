/**
 * One tenant's hanging checks do not starve another's (docs/local-service.md, "Quotas per account"):
 * tenant A's 300 checks against a target that never answers hold every run slot A may hold, and
 * tenant B's check created after them still gets its result while all of A's runs are hanging.
 * Then a stop with those runs in flight exits cleanly.
 */
import type { ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startVigilServer, waitFor } from '../support/cli.js';

const KEYS = { a: 'key-tenant-a', b: 'key-tenant-b' } as const;
/**
 * The network limit's floor (50) less its reserve (5): what one busy account may hold. The limit
 * grows with the durations of runs that ended, and no hanging run ends while the test looks.
 */
const SLOTS_A_MAY_HOLD = 45;
let target: Server;
let hanging = 0;
let hangsEnded = 0;
let service: { child: ChildProcess; url: string } | undefined;
let output = '';

async function api<T>(key: string, route: string, body?: unknown): Promise<T> {
  const response = await fetch(`${service!.url}${route}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (response.status !== 200 && response.status !== 201) throw new Error(`${route} answered ${response.status}: ${await response.text()}`);
  return (await response.json()) as T;
}

function check(name: string, url: string): Record<string, unknown> {
  // Every 10 s; a hanging run holds its slot for maxResponseTime (30 s, the longest allowed).
  return { name, activated: true, frequency: 0, frequencyOffset: 10, locations: ['eu-west-1'], doubleCheck: false, maxResponseTime: 30_000, request: { url, method: 'GET' } };
}

beforeAll(async () => {
  target = createServer((request, response) => {
    if (request.url === '/hang') {
      hanging++;
      request.socket.once('close', () => hangsEnded++);
      return; // never answers
    }
    response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
  await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
  service = await startVigilServer(['--data', ':memory:', '--api-key', KEYS.a, '--account-id', 'tenant-a', '--api-key', KEYS.b, '--account-id', 'tenant-b']);
  service.child.stdout!.on('data', (chunk: string) => (output += chunk));
  service.child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
});

afterAll(async () => {
  if (service && service.child.exitCode === null && service.child.signalCode === null) service.child.kill('SIGKILL');
  target.closeAllConnections();
  await new Promise((resolve) => target.close(resolve));
});

describe('vigil server schedules fairly between accounts', () => {
  it("gets tenant B's result while tenant A's 300 checks against a hanging target hold their slots", async () => {
    const base = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
    for (let index = 0; index < 300; index++) await api(KEYS.a, '/v1/checks/api?autoAssignAlerts=false', check(`hang ${index}`, `${base}/hang`));
    // A's runs fill every slot A may hold, and more of A's are due every second behind them.
    await waitFor("account A's runs hanging at the target", async () => (hanging >= SLOTS_A_MAY_HOLD ? true : undefined));

    const b = await api<{ id: string }>(KEYS.b, '/v1/checks/api?autoAssignAlerts=false', check('B plain', `${base}/ok`));
    const results = await waitFor("a result of account B's check", async () => {
      const found = await api<Array<{ hasFailures: boolean }>>(KEYS.b, `/v1/check-results/${b.id}?limit=10`);
      return found.length > 0 ? found : undefined;
    });
    // Taken at B's result: not one of A's runs has ended yet, and A has no result at all.
    const endedAtB = hangsEnded;
    const aStatuses = await api<unknown[]>(KEYS.a, '/v1/check-statuses');
    expect(results[0]!.hasFailures).toBe(false);
    expect(endedAtB).toBe(0);
    expect(aStatuses).toEqual([]);
    expect(hanging).toBeGreaterThanOrEqual(SLOTS_A_MAY_HOLD);

    // A stop with all of A's runs in flight: aborted at the drain deadline, nothing written after.
    const exited = new Promise<[number | null, NodeJS.Signals | null]>((resolve) => service!.child.once('exit', (code, signal) => resolve([code, signal])));
    service!.child.kill('SIGTERM');
    expect(await exited).toEqual([0, null]);
    expect(output).not.toMatch(/database connection is not open|unhandled|uncaught|TypeError/i);
  }, 240_000);
});
