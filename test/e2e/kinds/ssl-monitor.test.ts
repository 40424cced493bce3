/**
 * SslMonitor end to end against a real vigil server and loopback TLS servers (the runner's
 * self-signed loopback certificate, and a certificate that expired in 2026): validate → plan →
 * apply → plan empty → import into a fresh project (next plan empty) → `vigil test`; the service's
 * scheduler runs it and stores its sslCheckResult; bad inputs at file:line. One service per file.
 */
import { readFile, readdir, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import tls from 'node:tls';
import { startServer, type RunningServer } from '@vigil/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, getJson, targetEnv, vigil, waitFor, writeProject } from '../../support/cli.js';

let server: RunningServer;
const targets: tls.Server[] = [];
const port = { loopback: 0, expired: 0 };

async function serveTls(certDir: string, cert: string, key: string): Promise<number> {
  const target = tls.createServer({ cert: await readFile(path.join(REPO_ROOT, certDir, cert)), key: await readFile(path.join(REPO_ROOT, certDir, key)) }, (socket) => socket.end());
  target.on('tlsClientError', () => undefined);
  targets.push(target);
  await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
  return (target.address() as AddressInfo).port;
}

beforeAll(async () => {
  server = await startServer({ port: 0, dataDir: ':memory:', scheduler: true });
  port.loopback = await serveTls('packages/runner/src/__fixtures__', 'loopback-cert.pem', 'loopback-key.pem');
  port.expired = await serveTls('test/fixtures/short-lived-cert', 'cert.pem', 'key.pem');
});

afterAll(async () => {
  await server.close();
  await Promise.all(targets.map((target) => new Promise((resolve) => target.close(resolve))));
});

const project = (files: Record<string, string>) => writeProject('vigil-ssl-monitor-', files);
const run = (args: string[], cwd: string) => vigil(args, { cwd, env: targetEnv(server.url) });
const get = <T,>(route: string) => getJson<T>(server.url, route);

const CONFIG = "import { defineConfig } from 'checkly';\n\nexport default defineConfig({ projectName: 'Certs', logicalId: 'certs', checks: { checkMatch: '**/*.check.ts' } });\n";

/** The `frequencyOffset` (1..10, steps of 6 s into each minute) whose next run is 20 to 30 seconds away. */
function offsetDueSoon(): number {
  const second = (Date.now() / 1000 + 20) % 60;
  return Math.floor(second / 6) + 1 > 10 ? 10 : Math.floor(second / 6) + 1;
}

const MONITORS = (offset: number) => `import { Frequency, RetryStrategyBuilder, SslAssertionBuilder, SslMonitor, TlsVersion } from 'checkly/constructs';

new SslMonitor('loopback', {
  name: 'Loopback certificate',
  frequency: Frequency.EVERY_1M,
  frequencyOffset: ${offset},
  tags: ['tls'],
  retryStrategy: RetryStrategyBuilder.noRetries(),
  maxResponseTime: 5000,
  request: {
    hostname: '127.0.0.1',
    port: ${port.loopback},
    sslConfig: { serverName: 'localhost', skipChainValidation: true, alertDaysBeforeExpiry: 30, handshakeTimeout: 5000 },
    assertions: [
      SslAssertionBuilder.certificate('daysUntilExpiry').greaterThan(365),
      SslAssertionBuilder.certificate('selfSigned').equals(true),
      SslAssertionBuilder.connection('tlsVersion').equals(TlsVersion.TLS1_3),
      SslAssertionBuilder.certificate('issuerCN').contains('localhost'),
    ],
  },
});
`;

describe('SslMonitor', () => {
  it('validates, plans, applies, plans nothing more, imports with an empty next plan, vigil test passes and the scheduler runs it', async () => {
    const root = await project({ 'checkly.config.ts': CONFIG, '__checks__/certs.check.ts': MONITORS(offsetDueSoon()) });
    const fresh = await project({
      'vigil.config.ts': "import { defineConfig } from 'vigil';\nexport default defineConfig({ projectName: 'copy', logicalId: 'copy' });\n",
      'monitors/empty.monitor.ts': 'export {};\n',
    });
    try {
      const validate = await run(['validate'], root);
      expect(validate.stderr).toBe('');
      expect(validate.stdout.trim()).toBe('✔ 1 resource valid');
      const plan = await run(['plan'], root);
      expect(plan.stdout).toContain('+ ssl-monitor.loopback');
      const apply = await run(['apply', '--auto-approve'], root);
      expect(apply.stderr).toBe('');
      expect(apply.code).toBe(0);
      const [check] = await get<Array<Record<string, unknown>>>('/v1/checks?checkType=SSL');
      expect(check).toMatchObject({
        checkType: 'SSL',
        frequency: 1,
        doubleCheck: false,
        degradedResponseTime: 3000,
        maxResponseTime: 5000,
        request: { sslConfig: { hostname: '127.0.0.1', port: port.loopback, serverName: 'localhost', skipChainValidation: true, alertDaysBeforeExpiry: 30, handshakeTimeoutMs: 5000 } },
      });
      const again = await run(['plan', '--detailed-exitcode'], root);
      expect(again.code).toBe(0);

      const imported = await run(['import'], fresh);
      expect(imported.stderr).toBe('');
      expect(imported.stdout).toContain('Adopted 1 resource');
      const files = (await readdir(path.join(fresh, 'imported'), { recursive: true })).map(String);
      const source = await readFile(path.join(fresh, 'imported', files.find((file) => file.endsWith('.ts'))!), 'utf8');
      expect(source).toContain("new SslMonitor('loopback-certificate'");
      expect(source).toContain("SslAssertionBuilder.certificate('daysUntilExpiry').greaterThan(365)");
      expect(source).toContain("SslAssertionBuilder.certificate('selfSigned').equals(true)");
      expect(source).toContain("SslAssertionBuilder.connection('tlsVersion').equals('TLS1.3')");
      expect(source).toContain('handshakeTimeout: 5000');
      const next = await run(['plan', '--detailed-exitcode'], fresh);
      expect(next.stdout + next.stderr).toContain('No changes');
      expect(next.code).toBe(0);

      const test = await run(['test', '--reporter', 'json'], root);
      expect(test.stderr).toBe('');
      expect(test.code).toBe(0);
      const results = JSON.parse(test.stdout).results as Array<{ logicalId: string; checkType: string; passed: boolean; result: { sslCheckResult: { tlsVersion: string; response: { certificate: { subjectCN: string } } } } }>;
      expect(results.map((item) => [item.logicalId, item.checkType, item.passed])).toEqual([['loopback', 'SSL', true]]);
      expect(results[0]!.result.sslCheckResult).toMatchObject({ tlsVersion: 'TLS1.3', response: { certificate: { subjectCN: 'localhost' } } });

      // The scheduler's first run is due 20..30 s after the file was written.
      const stored = await waitFor('a stored result of the scheduled SSL monitor', async () => {
        const list = await get<Array<Record<string, unknown>>>(`/v1/check-results/${String(check!.id)}?limit=10`);
        return list.length > 0 ? list : undefined;
      }, { intervalMs: 1000 });
      expect(stored[0]).toMatchObject({ hasFailures: false, sslCheckResult: { chainTrusted: false, hostnameVerified: true, baselineVerdict: 'pass' } });
    } finally {
      await rm(root, { recursive: true, force: true });
      await rm(fresh, { recursive: true, force: true });
    }
  }, 150_000);

  it('vigil test fails an expired certificate, an untrusted chain and a wrong name with their reasons', async () => {
    const root = await project({
      'checkly.config.ts': CONFIG,
      '__checks__/bad.check.ts': `import { RetryStrategyBuilder, SslMonitor } from 'checkly/constructs';

const noRetries = RetryStrategyBuilder.noRetries();
new SslMonitor('expired', { name: 'Expired', retryStrategy: noRetries, request: { hostname: '127.0.0.1', port: ${port.expired}, sslConfig: { skipChainValidation: true } } });
new SslMonitor('untrusted', { name: 'Untrusted', retryStrategy: noRetries, request: { hostname: '127.0.0.1', port: ${port.loopback}, sslConfig: {} } });
new SslMonitor('wrong-name', { name: 'Wrong name', retryStrategy: noRetries, request: { hostname: '127.0.0.1', port: ${port.loopback}, sslConfig: { serverName: 'shop.example.com', skipChainValidation: true } } });
`,
    });
    try {
      const test = await run(['test', '--reporter', 'json'], root);
      expect(test.code).toBe(1);
      const byId = Object.fromEntries((JSON.parse(test.stdout).results as Array<{ logicalId: string; passed: boolean; error: string | null }>).map((item) => [item.logicalId, item]));
      // Expired on 2026-12-01; before that day it is within the 20 days of alertDaysBeforeExpiry.
      expect(byId.expired!.error).toMatch(/^the certificate (expired on 2026-12-01T08:52:56\.000Z|expires in -?\d+ days \(2026-12-01T08:52:56\.000Z\), within alertDaysBeforeExpiry \(20\))$/);
      expect(byId.untrusted).toMatchObject({ passed: false, error: 'the certificate chain is not trusted (DEPTH_ZERO_SELF_SIGNED_CERT); set sslConfig.skipChainValidation to check a self-signed or private-CA certificate' });
      expect(byId['wrong-name']).toMatchObject({ passed: false, error: 'the certificate does not match shop.example.com (it names localhost, 127.0.0.1, 0:0:0:0:0:0:0:1)' });
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  }, 60_000);

  it('reports bad inputs at file:line', async () => {
    const root = await project({
      'checkly.config.ts': CONFIG,
      '__checks__/bad.check.ts': `import { SslAssertionBuilder, SslMonitor } from 'checkly/constructs';

new SslMonitor('port', { name: 'Port', request: { hostname: 'shop.example.com', port: 70000, sslConfig: {} } });
new SslMonitor('days', { name: 'Days', request: { hostname: 'shop.example.com', sslConfig: { alertDaysBeforeExpiry: 0 } } });
new SslMonitor('fact', { name: 'Fact', request: { hostname: 'shop.example.com', sslConfig: {}, assertions: [SslAssertionBuilder.certificate('selfSigned').contains('yes')] } });
`,
    });
    try {
      const validate = await run(['validate'], root);
      expect(validate.stdout.trim().split('\n')).toEqual([
        '__checks__/bad.check.ts:3:1  error  "request.port" must be less than or equal to 65535  (ssl-monitor.port.request.port)',
        '__checks__/bad.check.ts:4:1  error  "request.sslConfig.alertDaysBeforeExpiry" must be greater than or equal to 1  (ssl-monitor.days.request.sslConfig.alertDaysBeforeExpiry)',
        '__checks__/bad.check.ts:5:1  error  "request.assertions[0].comparison" CONTAINS does not apply to CERTIFICATE selfSigned  (ssl-monitor.fact.request.assertions[0].comparison)',
        '  hint: selfSigned takes EQUALS.',
        '3 errors',
      ]);
      expect(validate.code).toBe(1);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  }, 60_000);
});
