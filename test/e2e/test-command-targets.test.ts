/**
 * `vigil test` against targets that misbehave, through the real CLI: a body that never ends, a
 * redirect loop, a refused connection, an unknown host, a self-signed certificate (with and without
 * skipSSL) and a non-JSON body under a JSON assertion. Each ends as a run with its reason, never a
 * crash: the endless body is cut at the read cap, the others fail, and all run in one session.
 */
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, vigil } from '../support/cli.js';

const FIXTURES = path.join(REPO_ROOT, 'packages/runner/src/__fixtures__');
const servers: Array<{ close(callback: () => void): unknown; closeAllConnections?: () => void }> = [];
let project: string;

function listen<T extends Server | import('node:https').Server>(server: T): Promise<number> {
  servers.push(server);
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
}

beforeAll(async () => {
  const http = createServer((request, response) => {
    if (request.url === '/endless') {
      response.writeHead(200, { 'content-type': 'text/plain' });
      const chunk = Buffer.alloc(64 * 1024, 'x');
      const pump = () => {
        while (response.write(chunk)) {
          /* keep the socket full */
        }
      };
      response.on('drain', pump);
      pump();
      request.on('close', () => response.destroy());
    } else if (request.url === '/loop') {
      response.writeHead(302, { location: '/loop' }).end();
    } else if (request.url === '/html') {
      response.writeHead(200, { 'content-type': 'text/html' }).end('<h1>not json</h1>');
    } else {
      response.writeHead(404).end();
    }
  });
  const httpPort = await listen(http);
  const https = createHttpsServer(
    { key: readFileSync(path.join(FIXTURES, 'loopback-key.pem')), cert: readFileSync(path.join(FIXTURES, 'loopback-cert.pem')) },
    (_request, response) => response.writeHead(200).end('secure'),
  );
  const httpsPort = await listen(https);
  // A port that was free a moment ago and now refuses connections.
  const probe = createNetServer();
  const refusedPort = await new Promise<number>((resolve) => probe.listen(0, '127.0.0.1', () => resolve((probe.address() as AddressInfo).port)));
  await new Promise((resolve) => probe.close(resolve));

  project = await mkdtemp(path.join(tmpdir(), 'vigil-test-targets-'));
  await mkdir(path.join(project, 'checks'), { recursive: true });
  await writeFile(path.join(project, 'vigil.config.ts'), "import { defineConfig } from 'vigil';\nexport default defineConfig({ projectName: 'Targets', logicalId: 'targets' });\n");
  const check = (id: string, url: string, extra = '') =>
    `new ApiCheck('${id}', { name: '${id}', retryStrategy: RetryStrategyBuilder.noRetries(), maxResponseTime: 5000, request: { url: '${url}'${extra} } });`;
  await writeFile(
    path.join(project, 'checks', 'targets.monitor.ts'),
    [
      "import { ApiCheck, AssertionBuilder, RetryStrategyBuilder } from 'vigil/constructs';",
      check('endless', `http://127.0.0.1:${httpPort}/endless`),
      check('loop', `http://127.0.0.1:${httpPort}/loop`, ', followRedirects: true'),
      check('refused', `http://127.0.0.1:${refusedPort}/`),
      check('unknown-host', 'http://vigil-test.invalid/'),
      check('self-signed', `https://127.0.0.1:${httpsPort}/`),
      check('self-signed-skip', `https://127.0.0.1:${httpsPort}/`, ', skipSSL: true'),
      check('not-json', `http://127.0.0.1:${httpPort}/html`, ", assertions: [AssertionBuilder.jsonBody('$.id').isNotNull()]"),
      '',
    ].join('\n'),
  );
});

afterAll(async () => {
  for (const server of servers) {
    server.closeAllConnections?.();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
  await rm(project, { recursive: true, force: true });
});

describe('vigil test against misbehaving targets', () => {
  it('fails each bad target with its reason, passes self-signed with skipSSL, and never crashes', async () => {
    const result = await vigil(['test', '--reporter', 'json'], { cwd: project });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(1);
    const document = JSON.parse(result.stdout);
    const byId = Object.fromEntries(document.results.map((item: { logicalId: string }) => [item.logicalId, item])) as Record<
      string,
      { passed: boolean; error: string | null; overMaxResponseTime: boolean; result: { apiCheckResult: { response: { bodyTruncated: boolean } } } }
    >;
    expect(byId['self-signed-skip']).toMatchObject({ passed: true, error: null });
    for (const id of ['loop', 'refused', 'unknown-host', 'self-signed', 'not-json']) expect(byId[id]!.passed, id).toBe(false);
    // The endless body is read up to the cap and kept truncated: a 200 that passes, with memory bounded.
    expect(byId.endless).toMatchObject({ passed: true, overMaxResponseTime: false });
    expect(byId.endless!.result.apiCheckResult.response.bodyTruncated).toBe(true);
    expect(byId.loop!.error).toMatch(/redirect/i);
    expect(byId.refused!.error).toMatch(/ECONNREFUSED|refused/i);
    expect(byId['unknown-host']!.error).toMatch(/ENOTFOUND|not found|resolve/i);
    expect(byId['self-signed']!.error).toMatch(/certificate/i);
    expect(byId['not-json']!.error).toMatch(/^assertion failed: the response body is not JSON/);
    expect(document.summary).toMatchObject({ total: 7, passed: 2, failed: 5 });
  }, 120_000);
});
