/**
 * Two `vigil server` replicas on one PostgreSQL behave as one service, through a replica killed with
 * SIGKILL and the database going away for 20 s. The replicas are the real CLI (`--database`); the
 * database is embedded PostgreSQL on loopback, durable; targets, the webhook receiver and the
 * heartbeat's pinger are loopback servers of this file.
 *
 * Workload: 1,000 API checks every minute and 20 every 10 s, created through both replicas; a project
 * applied with `vigil apply` holding a check that always fails (a webhook channel and
 * `triggerIncident` on a status page service), a flapping check with the same channel and a
 * heartbeat pinged through whichever replica is up. Timeline from the end of set-up: replica B is
 * killed at 60 s and started again at 90 s; PostgreSQL stops at 120 s and starts again at 140 s; the
 * run ends at 200 s.
 *
 * What must hold: every slot run at most once (the target records when each check's requests came,
 * and each belongs to the latest slot due at or before it); at most one slot per check missed outside
 * the outage (a gap of more than a period between a check's slots run: the run the killed replica had
 * claimed); the slot claims one row per check and
 * location, whatever the number of runs; each notification
 * received exactly once (the receiver counts ids); one incident; a POST repeated with its idempotency
 * key on the other replica answers the original; everything acknowledged before the outage is there
 * after it; `/healthz` says DOWN while the database is away and UP after, by itself; amcheck finds every
 * index of the database consistent. A second test: one rate limit per key across both replicas.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nextDueMs, periodMs } from '../../packages/server/src/scheduler/slots.js';
import { startVigilServer, targetEnv, vigil, waitFor, writeProject } from '../support/cli.js';
import { startEmbeddedPostgres, type RunningPostgres } from '../support/postgres.js';

const KEY = 'vigil-local';
const BULK_EVERY_MINUTE = 1_000;
const BULK_EVERY_10S = 20;
const KILL_AT_MS = 60_000;
const RESTART_AT_MS = 90_000;
const OUTAGE_FROM_MS = 120_000;
const OUTAGE_MS = 20_000;
const END_AT_MS = 200_000;

interface Replica {
  child: ChildProcess;
  url: string;
  stderr(): string;
}

let pgDir: string;
let postgres: RunningPostgres;
let databaseUrl: string;
let target: Server;
let targetUrl: string;
let receiver: Server;
let receiverUrl: string;
/** Each created check's schedule as the service stored it, by id. */
const scheduleOf = new Map<string, { id: string; frequency: number; frequencyOffset: number | null }>();
/** When each of the target's paths was requested, ms since the epoch, in arrival order. */
const hitTimesByPath = new Map<string, number[]>();
let flappingHealthy = false;
const notificationIds: string[] = [];
const notificationTypes: string[] = [];
const started: Replica[] = [];

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function startReplica(extra: readonly string[] = []): Promise<Replica> {
  const replica = await startVigilServer(['--database', databaseUrl, ...extra]);
  started.push(replica);
  return replica;
}

async function api(base: string, method: string, route: string, body?: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${base}${route}`, {
    method,
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json', ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Resolves when `ms` have passed since `since` (a phase of the timeline), at once if they have. */
const atOffset = (since: number, ms: number) => sleep(Math.max(0, since + ms - Date.now()));

/** Creates `count` API checks through the replicas in turn, 20 at a time; resolves to their ids. */
async function createChecks(replicas: readonly Replica[], count: number, prefix: string, schedule: { frequency: number; frequencyOffset?: number }): Promise<string[]> {
  const ids: string[] = [];
  for (let first = 0; first < count; first += 20) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(20, count - first) }, async (_, offset) => {
        const index = first + offset;
        const replica = replicas[index % replicas.length]!;
        const response = await api(replica.url, 'POST', '/v1/checks/api?autoAssignAlerts=false', {
          name: `${prefix} ${index}`,
          ...schedule,
          locations: ['eu-west-1'],
          request: { method: 'GET', url: `${targetUrl}/${prefix}/${index}` },
        });
        // A 500's body says nothing; the replica's stderr has the error it met (`unexpected error on POST …`).
        if (response.status !== 201) throw new Error(`creating ${prefix} ${index} answered ${response.status}: ${await response.text()}; the replica's stderr ends: ${replica.stderr().slice(-3000)}`);
        // The service assigns a frequencyOffset when none is sent; the slots' moments depend on it.
        const stored = (await response.json()) as { id: string; frequency: number; frequencyOffset?: number };
        scheduleOf.set(stored.id, { id: stored.id, frequency: stored.frequency, frequencyOffset: stored.frequencyOffset ?? null });
        return stored.id;
      }),
    );
    ids.push(...batch);
  }
  return ids;
}

beforeAll(async () => {
  pgDir = await mkdtemp(path.join(tmpdir(), 'vigil-replicas-pg-'));
  postgres = await startEmbeddedPostgres({ dir: pgDir, port: 0, durable: true });
  databaseUrl = await postgres.createDatabase('replicas');
  target = createServer((request, response) => {
    const pathname = request.url ?? '/';
    const hits = hitTimesByPath.get(pathname) ?? [];
    hits.push(Date.now());
    hitTimesByPath.set(pathname, hits);
    const failing = pathname === '/broken' || (pathname === '/flapping' && !flappingHealthy);
    response.writeHead(failing ? 500 : 200, { 'content-type': 'application/json' }).end('{}');
  });
  receiver = createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
    request.on('end', () => {
      notificationIds.push(String(request.headers['x-vigil-notification-id']));
      notificationTypes.push(body);
      response.writeHead(204).end();
    });
  });
  targetUrl = await listen(target);
  receiverUrl = await listen(receiver);
});

afterAll(async () => {
  for (const replica of started) replica.child.kill('SIGKILL');
  for (const server of [target, receiver]) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
  await postgres?.stop();
  if (pgDir) await rm(pgDir, { recursive: true, force: true });
});

describe('two vigil server replicas on one PostgreSQL', () => {
  it('run every slot once, notify once, keep one incident and lose nothing through a SIGKILL and a 20 s database outage', async () => {
    const a = await startReplica();
    let b = await startReplica();
    const project = await writeProject('vigil-replicas-project-', {
      'vigil.config.ts': "import { defineConfig } from 'vigil';\nexport default defineConfig({ projectName: 'Replicas', logicalId: 'replicas' });\n",
      'checks/replicas.monitor.ts': `import { ApiCheck, AssertionBuilder, Frequency, HeartbeatMonitor, RetryStrategyBuilder, StatusPageService, WebhookAlertChannel } from 'vigil/constructs';
const hook = new WebhookAlertChannel('hook', { name: 'Receiver', url: '${receiverUrl}/alerts', template: '{"type":"{{ALERT_TYPE}}","check":"{{CHECK_NAME}}"}' });
const shop = new StatusPageService('shop', { name: 'Shop' });
new ApiCheck('broken', {
  name: 'Broken', frequency: Frequency.EVERY_10S, locations: ['eu-west-1'], retryStrategy: RetryStrategyBuilder.noRetries(), alertChannels: [hook],
  triggerIncident: { service: shop, severity: 'MAJOR', name: 'Shop is down', description: 'Orders fail.', notifySubscribers: false },
  request: { url: '${targetUrl}/broken', assertions: [AssertionBuilder.statusCode().equals(200)] },
});
new ApiCheck('flapping', {
  name: 'Flapping', frequency: Frequency.EVERY_10S, locations: ['eu-west-1'], retryStrategy: RetryStrategyBuilder.noRetries(), alertChannels: [hook],
  request: { url: '${targetUrl}/flapping', assertions: [AssertionBuilder.statusCode().equals(200)] },
});
new HeartbeatMonitor('beat', { name: 'Beat', period: 1, periodUnit: 'minutes', grace: 1, graceUnit: 'minutes', alertChannels: [hook] });
`,
    });
    try {
      const applied = await vigil(['apply', '--auto-approve'], { cwd: project, env: targetEnv(a.url) });
      expect(applied.code, applied.stderr).toBe(0);
      const everyMinute = await createChecks([a, b], BULK_EVERY_MINUTE, 'minute', { frequency: 1 });
      const every10s = await createChecks([a, b], BULK_EVERY_10S, 'ten', { frequency: 0, frequencyOffset: 10 });

      // A POST repeated with its idempotency key on the other replica answers the original.
      const body = { name: 'Once', frequency: 1, locations: ['eu-west-1'], request: { method: 'GET', url: `${targetUrl}/once` } };
      const first = await api(a.url, 'POST', '/v1/checks/api?autoAssignAlerts=false', body, { 'idempotency-key': 'replicas-once' });
      const again = await api(b.url, 'POST', '/v1/checks/api?autoAssignAlerts=false', body, { 'idempotency-key': 'replicas-once' });
      expect(first.status).toBe(201);
      expect([again.status, await again.text()]).toEqual([201, await first.text()]);

      const checks = await (await api(a.url, 'GET', '/v1/checks?limit=100&page=1')).json() as Array<{ name: string; heartbeat?: { pingUrl: string } }>;
      const pingPath = new URL(checks.find((check) => check.name === 'Beat')!.heartbeat!.pingUrl).pathname;
      let bUp = true;
      let pingsAcknowledged = 0;
      let pinging = true;
      const pinger = (async () => {
        for (let turn = 0; pinging; turn++) {
          const via = bUp && turn % 2 === 1 ? b : a;
          const answered = await fetch(`${via.url}${pingPath}`).catch(() => undefined);
          if (answered?.status === 200) pingsAcknowledged++;
          await sleep(5_000);
        }
      })();

      const t0 = Date.now();
      await atOffset(t0, 30_000);
      flappingHealthy = true;
      await atOffset(t0, KILL_AT_MS);
      b.child.kill('SIGKILL');
      bUp = false;
      await atOffset(t0, RESTART_AT_MS);
      b = await startReplica();
      bUp = true;
      await atOffset(t0, OUTAGE_FROM_MS - 5_000);
      flappingHealthy = false;
      // Written and acknowledged just before the outage: must be there after it.
      const lastBefore = await createChecks([b], 1, 'last-before-outage', { frequency: 1 });
      await atOffset(t0, OUTAGE_FROM_MS);
      const outageStarted = Date.now();
      await postgres.stop();
      await waitFor('/healthz on replica A reporting the database DOWN', async () => ((await fetch(`${a.url}/healthz`)).status === 503 ? true : undefined), { timeoutMs: 15_000 });
      await atOffset(outageStarted, OUTAGE_MS);
      postgres = await startEmbeddedPostgres({ dir: pgDir, port: postgres.port, durable: true });
      const outageEnded = Date.now();
      for (const replica of [a, b]) {
        await waitFor(`/healthz on ${replica.url} UP again`, async () => ((await fetch(`${replica.url}/healthz`)).status === 200 ? true : undefined));
      }
      await atOffset(t0, END_AT_MS);
      pinging = false;
      await pinger;
      for (const replica of [a, b]) {
        const exited = new Promise<number | null>((resolve) => replica.child.once('exit', resolve));
        replica.child.kill('SIGTERM');
        expect(await exited, replica.stderr()).toBe(0);
      }

      const client = new pg.Client({ connectionString: databaseUrl });
      await client.connect();
      try {
        // Every check acknowledged, the last one just before the outage among them.
        const { rows: stored } = await client.query<{ id: string }>("SELECT id FROM checks");
        const storedIds = new Set(stored.map((row) => row.id));
        for (const id of [...everyMinute, ...every10s, ...lastBefore]) expect(storedIds.has(id), `check ${id} acknowledged but not stored`).toBe(true);

        // Slots: run at most once, at most one missed per check outside the outage, judged from the
        // target's side: a request belongs to the latest slot due at or before it (runs start late by
        // their lag, well under a period, and never early), so two requests in one slot are that slot
        // run twice, and a gap of k periods between a check's slots is k - 1 slots missed.
        const outage = { from: outageStarted - 1_000, to: outageEnded + 15_000 };
        const inOutage = (dueMs: number) => dueMs >= outage.from && dueMs <= outage.to;
        const problems: string[] = [];
        const judge = (ids: readonly string[], prefix: string) => {
          ids.forEach((id, index) => {
            const schedule = scheduleOf.get(id)!;
            const period = periodMs(schedule);
            const hits = hitTimesByPath.get(`/${prefix}/${index}`) ?? [];
            const slots = hits.map((atMs) => nextDueMs(schedule, atMs - period + 1));
            for (const [at, dueMs] of slots.entries()) {
              if (at > 0 && slots[at - 1] === dueMs) problems.push(`${prefix} ${index}: the slot due ${new Date(dueMs).toISOString()} run twice`);
            }
            const distinct = [...new Set(slots)].sort((a, b) => a - b);
            let missed = 0;
            for (let at = 1; at < distinct.length; at++) {
              const [before, after] = [distinct[at - 1]!, distinct[at]!];
              if (inOutage(after) || inOutage(before) || (before < outage.from && after > outage.to)) continue;
              missed += Math.round((after - before) / period) - 1;
            }
            if (missed > 1) problems.push(`${prefix} ${index}: ${missed} slots missed`);
            if (distinct.length < 2) problems.push(`${prefix} ${index}: only ${distinct.length} slots run`);
          });
        };
        judge(everyMinute, 'minute');
        judge(every10s, 'ten');
        expect(problems).toEqual([]);

        // The claims are a mark per check and location (all here run in one location), not a row a slot.
        const { rows: marks } = await client.query<{ check_id: string; finished_due_ms: string | null }>('SELECT check_id, finished_due_ms FROM slot_claims');
        expect(marks).toHaveLength(new Set(marks.map((mark) => mark.check_id)).size);
        const finishedChecks = new Set(marks.filter((mark) => mark.finished_due_ms !== null).map((mark) => mark.check_id));
        for (const id of [...everyMinute, ...every10s]) expect(finishedChecks.has(id), `check ${id} has no claim mark with a finished run`).toBe(true);

        // Each notification once: the failing check's failure, the flapping check's failure, recovery
        // and failure again; no heartbeat alert (it was pinged through whichever replica was up).
        expect(new Set(notificationIds).size).toBe(notificationIds.length);
        const received = notificationTypes.map((text) => JSON.parse(text) as { type: string; check: string });
        expect(received.filter((item) => item.check === 'Broken')).toEqual([{ type: 'ALERT_FAILURE', check: 'Broken' }]);
        expect(received.filter((item) => item.check === 'Flapping').map((item) => item.type)).toEqual(['ALERT_FAILURE', 'ALERT_RECOVERY', 'ALERT_FAILURE']);
        expect(received.filter((item) => item.check === 'Beat')).toEqual([]);
        expect(pingsAcknowledged).toBeGreaterThan(20);
        const { rows: incidents } = await client.query<{ n: string }>('SELECT COUNT(*) AS n FROM incidents');
        expect(Number(incidents[0]!.n)).toBe(1);

        // Every btree index consistent with its table.
        await client.query('CREATE EXTENSION IF NOT EXISTS amcheck');
        const { rows: indexes } = await client.query<{ name: string }>(
          "SELECT c.relname AS name FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am am ON am.oid = c.relam JOIN pg_namespace n ON n.oid = c.relnamespace WHERE am.amname = 'btree' AND n.nspname = current_schema() AND c.relkind = 'i'",
        );
        for (const { name } of indexes) await client.query('SELECT bt_index_check($1::regclass, true)', [name]);
        expect(indexes.length).toBeGreaterThan(10);
      } finally {
        await client.end();
      }
    } finally {
      await rm(project, { recursive: true, force: true });
    }
  }, 420_000);

  it('share one rate limit per API key', async () => {
    const a = await startReplica(['--rate-limit', '6/60']);
    const b = await startReplica(['--rate-limit', '6/60']);
    const statuses: number[] = [];
    for (let request = 0; request < 7; request++) statuses.push((await api(request % 2 === 0 ? a.url : b.url, 'GET', '/v1/checks?limit=1')).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 200, 429]);
    const refused = await api(a.url, 'GET', '/v1/checks?limit=1');
    expect(refused.status).toBe(429);
    expect(await refused.json()).toEqual({ statusCode: 429, error: 'Too Many Requests', message: expect.stringMatching(/^Rate limit exceeded: 6 requests per window; retry in \d+ s$/) });
  }, 120_000);
});
