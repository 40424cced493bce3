/**
 * HeartbeatMonitor end to end against a real vigil server (scheduler on) and a loopback webhook
 * receiver: validate → plan → apply (prints the ping URL) → plan empty → import into a fresh project
 * (next plan empty) → `vigil test` lists it as skipped → pings with fetch, as curl in a crontab would
 * → no ping within period + grace is a failing result and a webhook failure alert → a ping recovers.
 * The period is Checkly's shortest, 30 seconds, so the test waits about that long once; the other
 * units and long windows are unit-tested (packages/server/src/heartbeats/deadlines.test.ts).
 */
import { createServer, type Server } from 'node:http';
import { readFile, readdir, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { startServer, type RunningServer } from '@vigil/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getJson, targetEnv, vigil, waitFor, writeProject } from '../../support/cli.js';

let server: RunningServer;
let receiver: Server;
let receiverUrl: string;
const alerts: Array<{ type: string; check: string; result: string }> = [];

beforeAll(async () => {
  server = await startServer({ port: 0, dataDir: ':memory:', scheduler: true });
  receiver = createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
    request.on('end', () => {
      alerts.push(JSON.parse(body) as (typeof alerts)[number]);
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await server.close();
  receiver.closeAllConnections();
  await new Promise((resolve) => receiver.close(resolve));
});

const project = (files: Record<string, string>) => writeProject('vigil-heartbeat-', files);

const run = (args: string[], cwd: string) => vigil(args, { cwd, env: targetEnv(server.url) });

const get = <T,>(route: string) => getJson<T>(server.url, route);

const CONFIG = "import { defineConfig } from 'vigil';\nexport default defineConfig({ projectName: 'Jobs', logicalId: 'jobs' });\n";

const MONITORS = () => `import { HeartbeatMonitor, WebhookAlertChannel } from 'vigil/constructs';

const hook = new WebhookAlertChannel('hook', {
  name: 'Loopback receiver',
  url: '${receiverUrl}/alerts',
  template: '{"type":"{{ALERT_TYPE}}","check":"{{CHECK_NAME}}","result":"{{CHECK_RESULT_ID}}"}',
});

new HeartbeatMonitor('backup', {
  name: 'Nightly backup',
  period: 30,
  periodUnit: 'seconds',
  grace: 0,
  graceUnit: 'seconds',
  tags: ['jobs'],
  alertChannels: [hook],
});
`;

type Result = { id: string; hasFailures: boolean; error: string | null };

describe('HeartbeatMonitor', () => {
  it('applies with a printed ping URL, round-trips through import, skips in vigil test, fails a missed deadline with an alert and recovers on a ping', async () => {
    const root = await project({ 'vigil.config.ts': CONFIG, 'checks/jobs.monitor.ts': MONITORS() });
    const fresh = await project({ 'vigil.config.ts': "import { defineConfig } from 'vigil';\nexport default defineConfig({ projectName: 'copy', logicalId: 'copy' });\n" });
    try {
      const validate = await run(['validate'], root);
      expect(validate.stderr).toBe('');
      expect(validate.stdout.trim()).toBe('✔ 2 resources valid');
      const plan = await run(['plan'], root);
      expect(plan.stdout).toContain('+ heartbeat-monitor.backup');

      const apply = await run(['apply', '--auto-approve'], root);
      expect(apply.stderr).toBe('');
      expect(apply.code).toBe(0);
      const [check] = await get<Array<{ id: string; heartbeat: { pingToken: string; pingUrl: string } }>>('/v1/checks?checkType=HEARTBEAT');
      const token = check!.heartbeat.pingToken;
      const pingUrl = `${server.url}/ping/${token}`;
      // What apply printed is what the service returns, in lists and single reads.
      expect(check!.heartbeat.pingUrl).toBe(pingUrl);
      expect((await get<{ heartbeat: { pingUrl: string } }>(`/v1/checks/${check!.id}`)).heartbeat.pingUrl).toBe(pingUrl);
      expect(apply.stdout).toContain(`Ping URLs (call one from the job when it succeeds; append /fail when it fails):\n  heartbeat-monitor.backup: ${pingUrl}\n`);
      // The first ping starts the 30-second window the rest of the test runs in.
      const ping = await fetch(pingUrl, { headers: { 'user-agent': 'backup.sh' } });
      expect([ping.status, await ping.text()]).toEqual([200, 'OK\n']);

      // The token is the service's: never in state, plans or imported code.
      expect(await readFile(path.join(root, '.vigil', 'state.json'), 'utf8')).not.toContain(token);
      const again = await run(['plan', '--detailed-exitcode', '--json'], root);
      expect(again.code).toBe(0);
      expect(again.stdout).not.toContain(token);
      expect(again.stdout).not.toContain('pingUrl');

      const imported = await run(['import', 'heartbeat-monitor'], fresh);
      expect(imported.code).toBe(0);
      const files = (await readdir(path.join(fresh, 'imported'), { recursive: true })).map(String);
      const source = await readFile(path.join(fresh, 'imported', files.find((file) => file.endsWith('.monitor.ts'))!), 'utf8');
      expect(source).toContain("new HeartbeatMonitor('nightly-backup'");
      expect(source).toMatch(/period: 30,\s+periodUnit: 'seconds',\s+grace: 0,\s+graceUnit: 'seconds'/);
      expect(source).not.toContain(token);
      const next = await run(['plan', '--detailed-exitcode'], fresh);
      expect(next.stdout + next.stderr).toContain('No changes');
      expect(next.code).toBe(0);

      const test = await run(['test', '--reporter', 'json'], root);
      expect(test.code).toBe(0);
      expect(JSON.parse(test.stdout).results).toEqual([expect.objectContaining({ address: 'heartbeat-monitor.backup', checkType: 'HEARTBEAT', status: 'skipped' })]);

      // 30 s after the ping, with no other: one failing result and one failure alert.
      const failing = await waitFor('a failing result of the missed heartbeat', async () => {
        const results = await get<Result[]>(`/v1/check-results/${check!.id}?limit=10`);
        return results.some((result) => result.hasFailures) ? results : undefined;
      }, { intervalMs: 500 });
      const missed = failing.filter((result) => result.hasFailures);
      for (const result of missed) expect(result.error).toBe('No ping received within 30 seconds (period) + 0 seconds (grace)');
      await waitFor('the ALERT_FAILURE webhook', async () => (alerts.length >= 1 ? true : undefined));
      // One alert per incident, however many windows a slow machine let pass.
      expect(alerts).toEqual([{ type: 'ALERT_FAILURE', check: 'Nightly backup', result: expect.any(String) }]);
      expect(missed.map((result) => result.id)).toContain(alerts[0]!.result);

      // A ping, late, recovers the check.
      expect((await fetch(pingUrl, { method: 'POST' })).status).toBe(200);
      await waitFor('the ALERT_RECOVERY webhook', async () => (alerts.length >= 2 ? true : undefined));
      expect(alerts.map((alert) => alert.type)).toEqual(['ALERT_FAILURE', 'ALERT_RECOVERY']);
      const [record] = await get<Array<{ events: Array<{ state: string; source: string; userAgent: string }> }>>(`/v1/checks/heartbeats/${check!.id}/events`);
      expect(record!.events.map((event) => [event.state, event.source])).toEqual([['LATE', 'HTTP POST'], ['RECEIVED', 'HTTP GET']]);
      expect(record!.events[1]!.userAgent).toBe('backup.sh');

      // An unknown token is 404 and never a heartbeat of someone else.
      const unknown = await fetch(`${server.url}/ping/00000000-0000-4000-8000-000000000000`);
      expect([unknown.status, ((await unknown.json()) as { message: string }).message]).toEqual([404, 'No heartbeat monitor has this ping token']);
    } finally {
      await rm(root, { recursive: true, force: true });
      await rm(fresh, { recursive: true, force: true });
    }
  }, 120_000);

  it('reports a period or grace out of range at file:line', async () => {
    const root = await project({
      'vigil.config.ts': CONFIG,
      'checks/bad.monitor.ts': `import { HeartbeatMonitor } from 'vigil/constructs';

new HeartbeatMonitor('fast', { name: 'Too fast', period: 10, periodUnit: 'seconds', grace: 0, graceUnit: 'seconds' });
new HeartbeatMonitor('patient', { name: 'Too patient', period: 1, periodUnit: 'days', grace: 366, graceUnit: 'days' });
`,
    });
    try {
      const validate = await run(['validate'], root);
      expect(validate.stdout.trim().split('\n')).toEqual([
        'checks/bad.monitor.ts:3:1  error  "period" must be between 30 seconds and 365 days (got 10 seconds)  (heartbeat-monitor.fast.period)',
        'checks/bad.monitor.ts:4:1  error  "grace" must be at most 365 days (got 366 days)  (heartbeat-monitor.patient.grace)',
        '2 errors',
      ]);
      expect(validate.code).toBe(1);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  }, 60_000);
});
