/**
 * `vigil server` monitors: a project applied to it runs on its schedule against a real loopback
 * target, its results are served by the check-results API, and a `kill -9` of the server neither
 * runs a slot twice nor stops the schedule after a restart.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startVigilServer, targetEnv, vigil, waitFor } from '../support/cli.js';

const startService = (dataDir: string) => startVigilServer(['--data', dataDir]);

const API_KEY = 'vigil-local';
let target: Server;
let hits = 0;
let workdir: string;
let service: { child: ChildProcess; url: string } | undefined;

async function results(url: string, checkId: string): Promise<Array<Record<string, unknown>>> {
  const response = await fetch(`${url}/v1/check-results/${checkId}?limit=100&resultType=ALL`, { headers: { authorization: `Bearer ${API_KEY}` } });
  expect(response.status).toBe(200);
  return (await response.json()) as Array<Record<string, unknown>>;
}

beforeAll(async () => {
  target = createServer((request, response) => {
    hits++;
    response.writeHead(request.url === '/ok' ? 200 : 404, { 'content-type': 'application/json' }).end('{"status":"ok"}');
  });
  await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
  workdir = await mkdtemp(path.join(tmpdir(), 'vigil-scheduler-'));
  const base = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
  await mkdir(path.join(workdir, 'project', 'checks'), { recursive: true });
  await writeFile(path.join(workdir, 'project', 'vigil.config.ts'), "import { defineConfig } from 'vigil';\nexport default defineConfig({ projectName: 'Sched', logicalId: 'sched' });\n");
  await writeFile(
    path.join(workdir, 'project', 'checks', 'ok.monitor.ts'),
    `import { ApiCheck, AssertionBuilder, Frequency, RetryStrategyBuilder } from 'vigil/constructs';
new ApiCheck('ok', {
  name: 'OK every 10 s',
  frequency: Frequency.EVERY_10S,
  locations: ['eu-west-1', 'us-east-1'],
  retryStrategy: RetryStrategyBuilder.noRetries(),
  request: { url: '${base}/ok', assertions: [AssertionBuilder.statusCode().equals(200)] },
});
new ApiCheck('off', {
  name: 'Deactivated',
  activated: false,
  frequency: Frequency.EVERY_10S,
  request: { url: '${base}/off' },
});
`,
  );
});

afterAll(async () => {
  service?.child.kill('SIGKILL');
  target.closeAllConnections();
  await new Promise((resolve) => target.close(resolve));
  await rm(workdir, { recursive: true, force: true });
});

describe('vigil server runs checks on their schedule', () => {
  it('stores results of every slot once, keeps scheduling after kill -9 and never runs a deactivated check', async () => {
    const dataDir = path.join(workdir, 'data');
    service = await startService(dataDir);
    const project = path.join(workdir, 'project');
    const applied = await vigil(['apply', '--auto-approve'], { cwd: project, env: targetEnv(service.url) });
    expect(applied.stderr).toBe('');
    expect(applied.code).toBe(0);
    const state = JSON.parse(await readFile(path.join(project, '.vigil', 'state.json'), 'utf8')) as { resources: Record<string, { remoteId: string }> };
    const okId = state.resources['api-check.ok']!.remoteId;
    const offId = state.resources['api-check.off']!.remoteId;

    const first = await waitFor('two results of the healthy check', async () => {
      const found = await results(service!.url, okId);
      return found.length >= 2 ? found : undefined;
    });
    expect(first[0]).toMatchObject({ checkId: okId, resultType: 'FINAL', hasFailures: false, name: 'OK every 10 s' });
    expect((first[0]!.apiCheckResult as { response: { status: number } }).response.status).toBe(200);
    // One location per slot, rotating.
    expect(new Set(first.slice(0, 2).map((result) => result.runLocation))).toEqual(new Set(['eu-west-1', 'us-east-1']));

    service.child.kill('SIGKILL');
    await new Promise((resolve) => service!.child.once('exit', resolve));
    const before = first.length;
    service = await startService(dataDir);
    const after = await waitFor('two more results of the healthy check', async () => {
      const found = await results(service!.url, okId);
      return found.length >= before + 2 ? found : undefined;
    });
    const runs = after.map((result) => `${String(result.checkRunId)}@${String(result.runLocation)}`);
    expect(new Set(runs).size).toBe(runs.length);
    expect(await results(service.url, offId)).toEqual([]);
    // The latest FINAL result is the check's status; a check that never ran has none.
    const statuses = (await (await fetch(`${service.url}/v1/check-statuses`, { headers: { authorization: `Bearer ${API_KEY}` } })).json()) as Array<Record<string, unknown>>;
    expect(statuses).toEqual([expect.objectContaining({ checkId: okId, name: 'OK every 10 s', hasFailures: false, hasErrors: false, isDegraded: false })]);
    expect(['eu-west-1', 'us-east-1']).toContain(statuses[0]!.lastRunLocation);
    const missing = await fetch(`${service.url}/v1/check-statuses/${offId}`, { headers: { authorization: `Bearer ${API_KEY}` } });
    expect(missing.status).toBe(404);

    const status = await vigil(['status'], { cwd: project, env: targetEnv(service.url) });
    expect(status.stderr).toBe('');
    expect(status.code).toBe(0);
    const rows = status.stdout.trimEnd().split('\n');
    expect(rows[0]).toMatch(/^ADDRESS\s+NAME\s+STATUS\s+LAST RUN\s+LOCATION\s+NOTE$/);
    expect(rows[1]).toMatch(/^api-check\.off\s+Deactivated\s+no runs yet\s+deactivated$/);
    expect(rows[2]).toMatch(/^api-check\.ok\s+OK every 10 s\s+passing\s+\d{4}-\d\d-\d\dT\S+\s+(eu-west-1|us-east-1)$/);
    expect(hits).toBeGreaterThanOrEqual(after.length);
  }, 150_000);
});
