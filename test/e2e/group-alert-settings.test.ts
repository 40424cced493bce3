/**
 * Whose alert escalation a check in a group follows, through the real scheduler: in a group with
 * no escalation of its own the check keeps its own; in a group with one, the group's applies to
 * every check. Both checks fail from their first run against a loopback target; the number of
 * failing runs before the first notification tells which threshold the service used.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startServer, type RunningServer } from '@vigil/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { targetEnv, vigil, waitFor } from '../support/cli.js';

let root: string;
let server: RunningServer;
let target: Server;
let receiver: Server;
const notifications: Array<{ type: string; check: string; result: string }> = [];

async function listen(http: Server): Promise<string> {
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
}

async function remote<T>(pathname: string): Promise<T> {
  const response = await fetch(`${server.url}${pathname}`, { headers: { authorization: 'Bearer vigil-local' } });
  return (await response.json()) as T;
}

beforeAll(async () => {
  target = createServer((_request, response) => response.writeHead(500).end());
  receiver = createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
    request.on('end', () => {
      notifications.push(JSON.parse(body) as { type: string; check: string; result: string });
      response.writeHead(204).end();
    });
  });
  const targetUrl = await listen(target);
  const receiverUrl = await listen(receiver);
  server = await startServer({ port: 0, dataDir: ':memory:', scheduler: true });
  root = await mkdtemp(path.join(tmpdir(), 'vigil-group-alerts-'));
  await writeFile(path.join(root, 'vigil.config.ts'), "import { defineConfig } from 'vigil';\nexport default defineConfig({ projectName: 'shop', logicalId: 'shop' });\n");
  await mkdir(path.join(root, 'monitors'));
  const check = (id: string, name: string, group: string, threshold: number) =>
    `new ApiCheck('${id}', { name: '${name}', group: ${group}, frequency: Frequency.EVERY_10S, locations: ['eu-west-1'], retryStrategy: RetryStrategyBuilder.noRetries(), alertChannels: [hook], alertEscalationPolicy: AlertEscalationBuilder.runBasedEscalation(${threshold}), request: { url: '${targetUrl}/${id}', assertions: [AssertionBuilder.statusCode().equals(200)] } });`;
  await writeFile(
    path.join(root, 'monitors', 'groups.monitor.ts'),
    [
      "import { AlertEscalationBuilder, ApiCheck, AssertionBuilder, CheckGroupV2, Frequency, RetryStrategyBuilder, WebhookAlertChannel } from 'vigil/constructs';",
      `const hook = new WebhookAlertChannel('hook', { name: 'Receiver', url: '${receiverUrl}/alerts', template: '{"type":"{{ALERT_TYPE}}","check":"{{CHECK_NAME}}","result":"{{CHECK_RESULT_ID}}"}' });`,
      "const open = new CheckGroupV2('open', { name: 'No escalation of its own' });",
      "const strict = new CheckGroupV2('strict', { name: 'Strict', alertEscalationPolicy: AlertEscalationBuilder.runBasedEscalation(1) });",
      check('own', 'Own threshold', 'open', 2),
      check('overruled', 'Overruled threshold', 'strict', 3),
    ].join('\n'),
  );
}, 60_000);

afterAll(async () => {
  await server.close();
  for (const http of [target, receiver]) {
    http.closeAllConnections();
    await new Promise((resolve) => http.close(resolve));
  }
  await rm(root, { recursive: true, force: true });
});

describe('alert escalation of a check in a group', () => {
  it("follows the check's own in a group without one, and the group's in a group with one", async () => {
    const applied = await vigil(['apply', '--auto-approve'], { cwd: root, env: targetEnv(server.url) });
    // Validation says the overruled check's own escalation is not used, and apply goes ahead.
    expect(applied.stderr).toBe(
      'monitors/groups.monitor.ts:6:1  warning  is not used: the check\'s group "Strict" applies its own alertEscalationPolicy to every check in it  (api-check.overruled.alertEscalationPolicy)\n' +
        "  hint: remove it here, or remove the group's alertEscalationPolicy so that each check keeps its own\n",
    );
    expect(applied.code).toBe(0);
    const checks = await remote<Array<{ id: string; name: string }>>('/v1/checks?limit=100');
    const idOf = (name: string) => checks.find((check) => check.name === name)!.id;
    const failingRuns = async (name: string) => await remote<Array<{ id: string; hasFailures: boolean }>>(`/v1/check-results/${idOf(name)}?limit=100`);

    await waitFor('a failure notification of each check', async () =>
      ['Own threshold', 'Overruled threshold'].every((name) => notifications.some((n) => n.check === name)) ? true : undefined,
    );
    // Each check's results, oldest first (the service lists them in order of time).
    const own = await failingRuns('Own threshold');
    const overruled = await failingRuns('Overruled threshold');
    const first = (name: string) => notifications.find((n) => n.check === name)!;
    expect(first('Own threshold').type).toBe('ALERT_FAILURE');
    expect(first('Overruled threshold').type).toBe('ALERT_FAILURE');
    // Its own runBasedEscalation(2): the second failing run alerts.
    expect(own.findIndex((result) => result.id === first('Own threshold').result)).toBe(1);
    // The group's runBasedEscalation(1) overrules the check's 3: the first failing run alerts.
    expect(overruled.findIndex((result) => result.id === first('Overruled threshold').result)).toBe(0);
  }, 120_000);
});
