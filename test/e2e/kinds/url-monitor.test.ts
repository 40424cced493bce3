/**
 * UrlMonitor end to end against a real vigil server and loopback HTTP(S) pages: validate → plan →
 * apply → plan empty → import into a fresh project (next plan empty) → `vigil test`, including an
 * https page with a self-signed certificate that passes only with skipSSL; bad inputs at
 * file:line. One service per file.
 */
import { readFileSync } from 'node:fs';
import { readFile, readdir, rm } from 'node:fs/promises';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { startServer, type RunningServer } from '@vigil/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getJson, REPO_ROOT, targetEnv, vigil, writeProject } from '../../support/cli.js';

const FIXTURES = path.join(REPO_ROOT, 'packages/runner/src/__fixtures__');
let server: RunningServer;
let page: http.Server;
let securePage: https.Server;
let base: string;
let secureBase: string;

const route: http.RequestListener = (request, response) => {
  if (request.url === '/health') response.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
  else if (request.url === '/old') response.writeHead(301, { location: '/health' }).end();
  else response.writeHead(500).end('broken');
};

async function listen(target: http.Server | https.Server): Promise<number> {
  await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
  return (target.address() as AddressInfo).port;
}

beforeAll(async () => {
  server = await startServer({ port: 0, dataDir: ':memory:' });
  page = http.createServer(route);
  base = `http://127.0.0.1:${await listen(page)}`;
  securePage = https.createServer({ key: readFileSync(path.join(FIXTURES, 'loopback-key.pem')), cert: readFileSync(path.join(FIXTURES, 'loopback-cert.pem')) }, route);
  secureBase = `https://127.0.0.1:${await listen(securePage)}`;
});

afterAll(async () => {
  await server.close();
  for (const target of [page, securePage]) {
    target.closeAllConnections();
    await new Promise((resolve) => target.close(resolve));
  }
});

const project = (files: Record<string, string>) => writeProject('vigil-url-monitor-', files);

const run = (args: string[], cwd: string) => vigil(args, { cwd, env: targetEnv(server.url) });

const get = <T,>(route: string) => getJson<T>(server.url, route);

const CONFIG = "import { defineConfig } from 'checkly';\n\nexport default defineConfig({ projectName: 'Pages', logicalId: 'pages', checks: { checkMatch: '**/*.check.ts' } });\n";

const MONITORS = () => `import { Frequency, RetryStrategyBuilder, UrlAssertionBuilder, UrlMonitor } from 'checkly/constructs';

const noRetries = RetryStrategyBuilder.noRetries();
new UrlMonitor('health', {
  name: 'Health page',
  frequency: Frequency.EVERY_1M,
  retryStrategy: noRetries,
  request: { url: '${base}/health', assertions: [UrlAssertionBuilder.statusCode().equals(200)] },
});
new UrlMonitor('old', {
  name: 'Old address redirects',
  retryStrategy: noRetries,
  maxResponseTime: 10000,
  request: { url: new URL('${base}/old'), followRedirects: false, assertions: [UrlAssertionBuilder.statusCode().equals(301)] },
});
new UrlMonitor('secure-skip', { name: 'Self-signed, skipSSL', retryStrategy: noRetries, request: { url: '${secureBase}/health', skipSSL: true } });
new UrlMonitor('secure-strict', { name: 'Self-signed, verified', retryStrategy: noRetries, request: { url: '${secureBase}/health' } });
new UrlMonitor('broken', { name: 'Broken page', retryStrategy: noRetries, request: { url: '${base}/broken' } });
`;

describe('UrlMonitor', () => {
  it('validates, plans, applies, plans nothing more, imports into a fresh project with an empty next plan, and vigil test runs each page', async () => {
    const root = await project({ 'checkly.config.ts': CONFIG, '__checks__/pages.check.ts': MONITORS() });
    const fresh = await project({ 'vigil.config.ts': "import { defineConfig } from 'vigil';\nexport default defineConfig({ projectName: 'copy', logicalId: 'copy' });\n" });
    try {
      const validate = await run(['validate'], root);
      expect(validate.stderr).toBe('');
      expect(validate.stdout.trim()).toBe('✔ 5 resources valid');
      const plan = await run(['plan'], root);
      expect(plan.stdout).toContain('+ url-monitor.health');
      const apply = await run(['apply', '--auto-approve'], root);
      expect(apply.stderr).toBe('');
      expect(apply.code).toBe(0);
      const checks = await get<Array<Record<string, unknown>>>('/v1/checks?checkType=URL&limit=100');
      expect(checks.find((check) => check.name === 'Old address redirects')).toMatchObject({
        checkType: 'URL',
        maxResponseTime: 10000,
        degradedResponseTime: 3000,
        request: { method: 'GET', url: `${base}/old`, followRedirects: false, skipSSL: false, ipFamily: 'IPv4', assertions: [{ source: 'STATUS_CODE', comparison: 'EQUALS', target: '301' }] },
      });
      const again = await run(['plan', '--detailed-exitcode'], root);
      expect(again.code).toBe(0);

      const imported = await run(['import', 'url-monitor'], fresh);
      expect(imported.code).toBe(0);
      const files = (await readdir(path.join(fresh, 'imported'), { recursive: true })).map(String);
      const source = await readFile(path.join(fresh, 'imported', files.find((file) => file.endsWith('.monitor.ts'))!), 'utf8');
      expect(source).toContain("new UrlMonitor('old-address-redirects'");
      expect(source).toContain('UrlAssertionBuilder.statusCode().equals(301)');
      expect(source).toContain('followRedirects: false');
      expect(source).toContain('skipSSL: true');
      const next = await run(['plan', '--detailed-exitcode'], fresh);
      expect(next.stdout + next.stderr).toContain('No changes');
      expect(next.code).toBe(0);

      const test = await run(['test', '--reporter', 'json'], root);
      expect(test.code).toBe(1);
      const byId = Object.fromEntries((JSON.parse(test.stdout).results as Array<{ logicalId: string; checkType: string; passed: boolean; error: string | null }>).map((item) => [item.logicalId, item]));
      expect(byId.health).toMatchObject({ checkType: 'URL', passed: true, error: null });
      expect(byId.old).toMatchObject({ passed: true, error: null });
      expect(byId['secure-skip']).toMatchObject({ passed: true, error: null });
      expect(byId['secure-strict']!.passed).toBe(false);
      expect(byId['secure-strict']!.error).toMatch(/certificate/i);
      expect(byId.broken).toMatchObject({ passed: false, error: 'the response status 500 is an error status (≥ 400); set shouldFail to expect it' });
    } finally {
      await rm(root, { recursive: true, force: true });
      await rm(fresh, { recursive: true, force: true });
    }
  }, 300_000);

  it('reports bad inputs at file:line', async () => {
    const root = await project({
      'checkly.config.ts': CONFIG,
      '__checks__/bad.check.ts': `import { UrlMonitor } from 'checkly/constructs';

new UrlMonitor('no-scheme', { name: 'No scheme', request: { url: 'example.com/health' } });
new UrlMonitor('body', { name: 'Body assertion', request: { url: 'https://example.com', assertions: [{ source: 'TEXT_BODY', comparison: 'EQUALS', property: '', target: 'ok', regex: null }] as never } });
new UrlMonitor('fast', { name: 'Odd frequency', frequency: 7 as never, request: { url: 'https://example.com' } });
`,
    });
    try {
      const validate = await run(['validate'], root);
      expect(validate.stdout.trim().split('\n')).toEqual([
        '__checks__/bad.check.ts:3:1  error  "request.url" must be an absolute http:// or https:// URL, got "example.com/health"  (url-monitor.no-scheme.request.url)',
        '  hint: Did you mean "https://example.com/health"? {{NAME}} placeholders are allowed, e.g. "{{BASE_URL}}/health".',
        '__checks__/bad.check.ts:4:1  error  "request.assertions[0].source" must be [STATUS_CODE]  (url-monitor.body.request.assertions[0].source)',
        '  hint: Build assertions with UrlAssertionBuilder, e.g. UrlAssertionBuilder.statusCode().equals(200); for other assertions use an ApiCheck.',
        '__checks__/bad.check.ts:5:1  error  "frequency" must be one of [0, 1, 2, 5, 10, 15, 30, 60, 120, 180, 360, 720, 1440]  (url-monitor.fast.frequency)',
        '  hint: Use a Frequency builder, e.g. `frequency: Frequency.EVERY_5M`.',
        '3 errors',
      ]);
      expect(validate.code).toBe(1);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  }, 120_000);
});
