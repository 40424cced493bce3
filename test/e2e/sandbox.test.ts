/**
 * `vigil server` runs two tenants' setup scripts, one of them hostile, as the service does on its
 * schedule: the hostile tenant cannot read the other's secret (a `process.env` setter left in a
 * process, the service's command line with every API key, its environment), its attempts fail its own
 * runs, and the other tenant's checks keep passing. The service names the sandbox it runs scripts in
 * once, at start.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startVigilServer, waitFor } from '../support/cli.js';

const VICTIM = { apiKey: 'victim-key-7f3a9c', accountId: 'victim' };
const MALLORY = { apiKey: 'mallory-key-2b8e1d', accountId: 'mallory' };
const VICTIM_SECRET = 'b-secret-token-5d71e0';
let target: Server;
let targetUrl: string;
let workdir: string;
let service: { child: ChildProcess; url: string; stderr: () => string };

beforeAll(async () => {
  target = createServer((_request, response) => response.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}'));
  await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
  targetUrl = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
  workdir = await mkdtemp(path.join(tmpdir(), 'vigil-sandbox-e2e-'));
  service = await startVigilServer(
    ['--data', path.join(workdir, 'data'), '--api-key', VICTIM.apiKey, '--account-id', VICTIM.accountId, '--api-key', MALLORY.apiKey, '--account-id', MALLORY.accountId],
    { env: { ...process.env, VIGIL_SERVICE_ONLY_SECRET: 'server-environment-secret' } },
  );
}, 60_000);

afterAll(async () => {
  service?.child.kill('SIGKILL');
  await new Promise((resolve) => target.close(resolve));
  await rm(workdir, { recursive: true, force: true });
});

async function createCheck(tenant: typeof VICTIM, name: string, setupScript: string, environmentVariables: unknown[] = []): Promise<string> {
  const response = await fetch(`${service.url}/v1/checks/api?autoAssignAlerts=false`, {
    method: 'POST',
    headers: { authorization: `Bearer ${tenant.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name, frequency: 0, frequencyOffset: 10, activated: true, locations: ['eu-west-1'], localSetupScript: setupScript, environmentVariables, request: { method: 'GET', url: `${targetUrl}/` } }),
  });
  if (response.status !== 201) throw new Error(`creating ${name} answered ${response.status}: ${await response.text()}`);
  return ((await response.json()) as { id: string }).id;
}

type Result = { hasFailures: boolean; apiCheckResult: { requestError: string | null; jobLog: { setup: Array<{ msg: string }> } } | null };

async function results(tenant: typeof VICTIM, checkId: string, atLeast: number): Promise<Result[]> {
  return waitFor(`${atLeast} final results of check ${checkId}`, async () => {
    const response = await fetch(`${service.url}/v1/check-results/${checkId}?limit=100&resultType=FINAL`, { headers: { authorization: `Bearer ${tenant.apiKey}` } });
    const list = (await response.json()) as Result[];
    return list.length >= atLeast ? list : undefined;
  });
}

describe('vigil server runs scripts of different tenants in a sandbox', () => {
  it('says once at start which sandbox layers apply on this machine', () => {
    const notices = service.stderr().split('\n').filter((line) => line.startsWith('vigil server: sandbox: '));
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatch(/^vigil server: sandbox: user code runs in processes of its own account under Node's permission model/);
  });

  it("keeps one tenant's secret from another's script, and the service's keys and environment from both", async () => {
    const harvester = await createCheck(
      MALLORY,
      'harvester',
      [
        "Object.defineProperty(process, 'env', { configurable: true, set(value) { globalThis.stolen = value; }, get() { return globalThis.stolen ?? {}; } });",
        "console.log('stolen:', JSON.stringify(globalThis.stolen ?? null));",
        "const fs = require('node:fs');",
        "for (const file of ['/proc/' + process.ppid + '/cmdline', '/proc/' + process.ppid + '/environ', '/proc/1/cmdline']) {",
        "  try { console.log(file, fs.readFileSync(file, 'utf8').replaceAll('\\0', ' ')); } catch (error) { console.log(file, error.code); }",
        '}',
      ].join('\n'),
    );
    const victim = await createCheck(VICTIM, 'victim', "request.headers['authorization'] = 'Bearer ' + process.env.B_SECRET_TOKEN;", [{ key: 'B_SECRET_TOKEN', value: VICTIM_SECRET, secret: true }]);
    const stolen = await results(MALLORY, harvester, 3);
    const served = await results(VICTIM, victim, 3);
    expect(served.every((result) => !result.hasFailures)).toBe(true);
    const logged = JSON.stringify(stolen.map((result) => result.apiCheckResult?.jobLog));
    for (const secret of [VICTIM_SECRET, VICTIM.apiKey, 'server-environment-secret']) expect(logged).not.toContain(secret);
    const lines = stolen[0]!.apiCheckResult!.jobLog.setup.map((line) => line.msg);
    expect(lines[0]).toBe('stolen: null');
    expect(lines.slice(1).every((line) => line.endsWith(' ERR_ACCESS_DENIED'))).toBe(true);
  }, 120_000);
});
