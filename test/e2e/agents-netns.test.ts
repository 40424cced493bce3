/**
 * Where a run happens, proved with network namespaces: two namespaces, each joined to the host by
 * a veth pair and nothing else; an HTTP target on namespace A's own loopback, so only a process in
 * A can reach it; agent A (eu-west-1) in A, agent B (us-east-1) in B. One check on both locations
 * passes from eu-west-1 and fails from us-east-1: each location's run was executed by its agent,
 * inside its network, not by the server. With one location passing and one failing for real, the
 * same target shows that `parallelRunFailureThreshold` combines the two agents' runs of a slot
 * (50 % failing alerts at a 50 % threshold, not at 60 %), and that a check without `runParallel`
 * rotates its slots over the two agents' locations.
 *
 * The server listens on the host's loopback as always; a relay in this test on each veth's host
 * address carries the agents' connections to it, so each namespace reaches the server and nothing
 * else on the host. Namespaces need root: the test runs as root (here and in CI). Without root it
 * cannot build them and says so rather than pass.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { createConnection, createServer as createTcpServer, type Server as TcpServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startVigilServer, VIGIL_BIN, waitFor } from '../support/cli.js';

const API_KEY = 'vigil-local';
const EU_KEY = 'eu-west-1-netns-key-0123';
const US_KEY = 'us-east-1-netns-key-0123';
// Short names: an interface name is at most 15 characters.
const TAG = `${process.pid % 100_000}`;
// Two /30 networks picked by process id, so two checkouts testing at once rarely share one.
const SUBNET = `10.231.${process.pid % 256}`;
const NAMESPACES = {
  a: { ns: `vigil-a-${TAG}`, hostIf: `vga${TAG}`, nsIf: `vgA${TAG}`, hostIp: `${SUBNET}.1`, nsIp: `${SUBNET}.2` },
  b: { ns: `vigil-b-${TAG}`, hostIf: `vgb${TAG}`, nsIf: `vgB${TAG}`, hostIp: `${SUBNET}.5`, nsIp: `${SUBNET}.6` },
} as const;

const isRoot = process.getuid?.() === 0;
if (!isRoot) {
  process.stderr.write('agents-netns: network namespaces need root; run this test as root (CI runs it as root)\n');
}

let service: Awaited<ReturnType<typeof startVigilServer>> | undefined;
const children: ChildProcess[] = [];
const relays: TcpServer[] = [];
const agents = new Map<string, { stderr(): string; exited: Promise<number | null> }>();

function ip(...args: string[]): string {
  return execFileSync('ip', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

/** Why network namespaces cannot be built here, or undefined when they can. */
function namespacesUnavailable(): string | undefined {
  try {
    ip('-V');
  } catch (error) {
    return `the ip command (iproute2) is missing or fails: ${(error as Error).message}`;
  }
  const probe = `vigil-probe-${TAG}`;
  try {
    ip('netns', 'add', probe);
    ip('netns', 'del', probe);
  } catch (error) {
    return `ip netns add fails: ${String((error as { stderr?: string }).stderr ?? (error as Error).message).trim()}`;
  }
  return undefined;
}

function removeNamespaces(): void {
  for (const { ns, hostIf } of Object.values(NAMESPACES)) {
    // Deleting a namespace deletes its end of the veth pair, and with it the host's end; each is
    // removed on its own too in case the namespace never got its end.
    for (const args of [['netns', 'del', ns], ['link', 'del', hostIf]]) {
      try {
        ip(...args);
      } catch {
        // Not there: nothing to clean.
      }
    }
  }
}

function buildNamespace({ ns, hostIf, nsIf, hostIp, nsIp }: (typeof NAMESPACES)[keyof typeof NAMESPACES]): void {
  ip('netns', 'add', ns);
  ip('link', 'add', hostIf, 'type', 'veth', 'peer', 'name', nsIf);
  ip('link', 'set', nsIf, 'netns', ns);
  ip('addr', 'add', `${hostIp}/30`, 'dev', hostIf);
  ip('link', 'set', hostIf, 'up');
  ip('netns', 'exec', ns, 'ip', 'addr', 'add', `${nsIp}/30`, 'dev', nsIf);
  ip('netns', 'exec', ns, 'ip', 'link', 'set', nsIf, 'up');
  ip('netns', 'exec', ns, 'ip', 'link', 'set', 'lo', 'up');
}

/** A TCP relay on `host` (a veth's host address) to the server on the host's loopback. */
async function relayTo(host: string, serverPort: number): Promise<number> {
  const relay = createTcpServer((inbound) => {
    const outbound = createConnection({ host: '127.0.0.1', port: serverPort });
    inbound.pipe(outbound).pipe(inbound);
    inbound.on('error', () => outbound.destroy());
    outbound.on('error', () => inbound.destroy());
  });
  relays.push(relay);
  await new Promise<void>((resolve) => relay.listen(0, host, resolve));
  return (relay.address() as AddressInfo).port;
}

/** Starts a process inside namespace `ns`. */
function inNamespace(ns: string, args: string[], env: NodeJS.ProcessEnv = {}): { child: ChildProcess; stdout(): string; stderr(): string; exited: Promise<number | null> } {
  const child = spawn('ip', ['netns', 'exec', ns, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1', ...env } });
  children.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  return { child, stdout: () => stdout, stderr: () => stderr, exited: new Promise((resolve) => child.once('exit', (code) => resolve(code))) };
}

beforeAll(async () => {
  if (!isRoot) return;
  removeNamespaces();
}, 30_000);

afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  service?.child.kill('SIGKILL');
  for (const relay of relays) relay.close();
  if (isRoot) removeNamespaces();
}, 30_000);

async function results(checkId: string): Promise<Array<Record<string, unknown>>> {
  const response = await fetch(`${service!.url}/v1/check-results/${checkId}?limit=100&resultType=FINAL`, { headers: { authorization: `Bearer ${API_KEY}` } });
  expect(response.status).toBe(200);
  return (await response.json()) as Array<Record<string, unknown>>;
}

async function api(method: string, pathAndQuery: string, body?: unknown): Promise<any> {
  const response = await fetch(`${service!.url}${pathAndQuery}`, {
    method,
    headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  if (response.status >= 300) throw new Error(`${method} ${pathAndQuery} answered ${response.status}: ${text}`);
  return JSON.parse(text);
}

/** How many failure alerts the check's alert channel was sent (e-mail: recorded, undeliverable here). */
async function failureAlertsOf(checkId: string): Promise<number> {
  const notifications = (await api('GET', '/v1/alert-notifications?limit=100')) as Array<{ checkId: string; alertType: string }>;
  return notifications.filter((notification) => notification.checkId === checkId && notification.alertType === 'ALERT_FAILURE').length;
}

describe('vigil agent in network namespaces', () => {
  it.runIf(isRoot)('runs each location inside its agent’s network: the target only namespace A reaches passes from eu-west-1 and fails from us-east-1; a slot of two agents’ runs alerts by parallelRunFailureThreshold, and slots without runParallel rotate over the agents’ locations', async () => {
    const unavailable = namespacesUnavailable();
    if (unavailable !== undefined) throw new Error(`network namespaces cannot be built on this machine, so where a run happens cannot be shown: ${unavailable}`);
    buildNamespace(NAMESPACES.a);
    buildNamespace(NAMESPACES.b);

    // The target listens on namespace A's loopback: no other namespace, and not the host, reaches it.
    const target = inNamespace(NAMESPACES.a.ns, [
      process.execPath,
      '-e',
      "require('node:http').createServer((q, s) => s.writeHead(200, { 'content-type': 'text/plain' }).end('inside A')).listen(0, '127.0.0.1', function () { console.log('port ' + this.address().port); });",
    ]);
    const targetPort = Number(await waitFor('the target in namespace A to listen', async () => /port (\d+)/.exec(target.stdout())?.[1]));

    service = await startVigilServer(['--data', ':memory:', '--local-locations', 'none', '--agent-lease', '3s', '--agent-key', `eu-west-1=${EU_KEY}`, '--agent-key', `us-east-1=${US_KEY}`]);
    const serverPort = Number(new URL(service.url).port);
    for (const [name, location, key] of [['a', 'eu-west-1', EU_KEY], ['b', 'us-east-1', US_KEY]] as const) {
      const { ns, hostIp } = NAMESPACES[name];
      const relayPort = await relayTo(hostIp, serverPort);
      const agent = inNamespace(ns, [process.execPath, VIGIL_BIN, 'agent', '--server', `http://${hostIp}:${relayPort}`, '--location', location, '--id', `agent-${name}`], { VIGIL_AGENT_KEY: key });
      agents.set(location, agent);
      await waitFor(`agent ${name} in namespace ${ns} to connect`, async () => (agent.stderr().includes('connected to') ? true : undefined));
    }

    const created = await fetch(`${service.url}/v1/checks/api`, {
      method: 'POST',
      headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        name: 'Only inside A',
        activated: true,
        frequency: 0,
        frequencyOffset: 10,
        locations: ['eu-west-1', 'us-east-1'],
        runParallel: true,
        request: { method: 'GET', url: `http://127.0.0.1:${targetPort}/`, assertions: [{ source: 'STATUS_CODE', comparison: 'EQUALS', target: '200', property: '' }] },
      }),
    });
    expect(created.status).toBe(201);
    const checkId = ((await created.json()) as { id: string }).id;

    const byLocation = await waitFor('a result of the check from each location', async () => {
      const found = new Map((await results(checkId)).map((result) => [String(result['runLocation']), result]));
      return found.has('eu-west-1') && found.has('us-east-1') ? found : undefined;
    });
    expect(byLocation.get('eu-west-1')).toMatchObject({ hasFailures: false, hasErrors: false });
    const fromB = byLocation.get('us-east-1')!;
    expect(fromB['notExecuted']).toBeUndefined();
    expect(fromB['hasFailures'] === true || fromB['hasErrors'] === true).toBe(true);
    // Namespace B has a loopback of its own where nothing listens: the connection is refused there.
    expect(JSON.stringify(fromB)).toContain('ECONNREFUSED');

    // Each slot of a runParallel check is one run: eu-west-1 passes, us-east-1 fails, 50 % of its locations.
    const channel = await api('POST', '/v1/alert-channels', { type: 'EMAIL', config: { address: 'ops@example.com' } });
    const onTarget = (name: string, extra: Record<string, unknown>) =>
      api('POST', '/v1/checks/api?autoAssignAlerts=false', {
        name,
        activated: true,
        frequency: 0,
        frequencyOffset: 10,
        locations: ['eu-west-1', 'us-east-1'],
        useGlobalAlertSettings: false,
        alertChannelSubscriptions: [{ alertChannelId: channel.id, activated: true }],
        request: { method: 'GET', url: `http://127.0.0.1:${targetPort}/`, assertions: [{ source: 'STATUS_CODE', comparison: 'EQUALS', target: '200', property: '' }] },
        ...extra,
      });
    const thresholdOf = (percentage: number) => ({
      runParallel: true,
      alertSettings: { escalationType: 'RUN_BASED', runBasedEscalation: { failedRunThreshold: 1 }, parallelRunFailureThreshold: { enabled: true, percentage } },
    });
    const atHalf = await onTarget('Fails at 50 %', thresholdOf(50));
    const atSixty = await onTarget('Fails at 60 %', thresholdOf(60));
    const rotating = await onTarget('One location a slot', { runParallel: false });

    await waitFor('the 50 % check to alert its failure', async () => ((await failureAlertsOf(atHalf.id)) > 0 ? true : undefined));
    // Two slots of the 60 % check with both locations' results (one failing each time) and no alert:
    // a slot's alert is queued as its last location's result is stored, so the first slot's is in.
    await waitFor('two complete slots of the 60 % check', async () => {
      const bySlot = new Map<number, Set<string>>();
      for (const result of await results(atSixty.id)) {
        const slot = Number(result['checkRunId']);
        bySlot.set(slot, (bySlot.get(slot) ?? new Set()).add(String(result['runLocation'])));
      }
      return [...bySlot.values()].filter((locations) => locations.size === 2).length >= 2 ? true : undefined;
    });
    expect(await failureAlertsOf(atSixty.id)).toBe(0);

    // Without runParallel, consecutive slots go to the next location in turn, each run by its agent.
    const turns = await waitFor('four runs of the rotating check', async () => {
      const found = (await results(rotating.id)).sort((a, b) => Number(a['checkRunId']) - Number(b['checkRunId']));
      return found.length >= 4 ? found.slice(0, 4) : undefined;
    });
    expect(turns.map((result) => result['notExecuted'])).toEqual([undefined, undefined, undefined, undefined]);
    const locations = turns.map((result) => String(result['runLocation']));
    expect(new Set(locations)).toEqual(new Set(['eu-west-1', 'us-east-1']));
    expect(locations.slice(1).every((location, index) => location !== locations[index])).toBe(true);
    for (const result of turns) expect(result['hasFailures'] === true || result['hasErrors'] === true).toBe(result['runLocation'] === 'us-east-1');
  }, 240_000);
});
