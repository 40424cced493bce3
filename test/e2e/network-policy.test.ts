/**
 * `vigil server --deny-network`: a scheduled check whose target is in a denied network fails with
 * the policy error and never reaches it, while a check against an allowed address passes. Both
 * targets are loopback (127.0.0.1 allowed, 127.0.0.2 denied); the default link-local and metadata
 * denials are covered by the runner's unit tests, which never dial them.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startVigilServer as startService, targetEnv, vigil, waitFor } from '../support/cli.js';

const API_KEY = 'vigil-local';
let allowedTarget: Server;
let deniedTarget: Server;
let deniedConnections = 0;
let workdir: string;
let service: { child: ChildProcess; url: string } | undefined;

function listen(server: Server, host: string): Promise<number> {
  return new Promise((resolve) => server.listen(0, host, () => resolve((server.address() as AddressInfo).port)));
}

async function finalResult(url: string, checkId: string): Promise<Record<string, unknown> | undefined> {
  const response = await fetch(`${url}/v1/check-results/${checkId}?limit=10&resultType=FINAL`, { headers: { authorization: `Bearer ${API_KEY}` } });
  expect(response.status).toBe(200);
  return ((await response.json()) as Array<Record<string, unknown>>)[0];
}

beforeAll(async () => {
  const handler = (_request: unknown, response: import('node:http').ServerResponse) => response.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
  allowedTarget = createServer(handler);
  deniedTarget = createServer(handler);
  deniedTarget.on('connection', () => (deniedConnections += 1));
  const allowedPort = await listen(allowedTarget, '127.0.0.1');
  const deniedPort = await listen(deniedTarget, '127.0.0.2');
  workdir = await mkdtemp(path.join(tmpdir(), 'vigil-network-policy-'));
  await mkdir(path.join(workdir, 'project', 'checks'), { recursive: true });
  await writeFile(path.join(workdir, 'project', 'vigil.config.ts'), "import { defineConfig } from 'vigil';\nexport default defineConfig({ projectName: 'Policy', logicalId: 'policy' });\n");
  await writeFile(
    path.join(workdir, 'project', 'checks', 'targets.monitor.ts'),
    `import { ApiCheck, Frequency, RetryStrategyBuilder } from 'vigil/constructs';
new ApiCheck('allowed', {
  name: 'Allowed loopback',
  frequency: Frequency.EVERY_10S,
  retryStrategy: RetryStrategyBuilder.noRetries(),
  request: { url: 'http://127.0.0.1:${allowedPort}/ok' },
});
new ApiCheck('denied', {
  name: 'Denied loopback',
  frequency: Frequency.EVERY_10S,
  retryStrategy: RetryStrategyBuilder.noRetries(),
  request: { url: 'http://127.0.0.2:${deniedPort}/ok' },
});
`,
  );
});

afterAll(async () => {
  service?.child.kill('SIGKILL');
  for (const server of [allowedTarget, deniedTarget]) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
  await rm(workdir, { recursive: true, force: true });
});

describe('vigil server --deny-network', () => {
  it('fails a scheduled run to a denied address with the policy error, without connecting, and passes an allowed one', async () => {
    service = await startService(['--data', ':memory:', '--deny-network', '127.0.0.2/32']);
    const project = path.join(workdir, 'project');
    const applied = await vigil(['apply', '--auto-approve'], { cwd: project, env: targetEnv(service.url) });
    expect(applied.stderr).toBe('');
    expect(applied.code).toBe(0);
    const state = JSON.parse(await readFile(path.join(project, '.vigil', 'state.json'), 'utf8')) as { resources: Record<string, { remoteId: string }> };
    const url = service.url;
    const [allowed, denied] = await Promise.all(
      ['api-check.allowed', 'api-check.denied'].map((address) => waitFor(`a final result of ${address}`, () => finalResult(url, state.resources[address]!.remoteId))),
    );
    expect(allowed).toMatchObject({ hasFailures: false, apiCheckResult: expect.objectContaining({ requestError: null }) });
    const message = "connection to 127.0.0.2 refused by the service's network policy (--deny-network 127.0.0.2/32)";
    expect(denied).toMatchObject({ hasFailures: true, apiCheckResult: expect.objectContaining({ requestError: message }) });
    expect(deniedConnections).toBe(0);
  }, 180_000);

  it.each([
    ['10.0.0.0/33', 'Error: --deny-network: "10.0.0.0/33" is not a CIDR: the prefix length must be a whole number from 0 to 32 for an IPv4 address'],
    ['metadata.internal', 'Error: --deny-network: "metadata.internal" is not a CIDR: "metadata.internal" is not an IPv4 or IPv6 address (expected e.g. 169.254.0.0/16 or fe80::/10)'],
  ])('refuses the malformed CIDR %s with exit code 2', async (cidr, message) => {
    const result = await vigil(['server', '--port', '0', '--deny-network', '127.0.0.2/32', '--deny-network', cidr], { cwd: workdir });
    expect(result.stderr.trim()).toBe(message);
    expect(result.code).toBe(2);
  });
});
