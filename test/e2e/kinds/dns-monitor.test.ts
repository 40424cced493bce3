/**
 * DnsMonitor end to end against a real vigil server and a DNS responder on a loopback port (UDP
 * and TCP): validate → plan → apply → plan empty → import into a fresh project (next plan empty) →
 * `vigil test`; the service's scheduler runs it and its runs reach `/v1/analytics/dns/{id}`; bad
 * inputs at file:line. One service per file.
 */
import { readFile, readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { startServer, type RunningServer } from '@vigil/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDnsResponder, type DnsResponder } from '../../../packages/runner/src/__fixtures__/dns-responder.js';
import { getJson, targetEnv, vigil, waitFor, writeProject } from '../../support/cli.js';

let server: RunningServer;
let responder: DnsResponder;

beforeAll(async () => {
  // The scheduler runs applied checks; loopback is allowed (only metadata addresses are denied).
  server = await startServer({ port: 0, dataDir: ':memory:', scheduler: true });
  responder = await startDnsResponder({
    records: [
      { name: 'api.shop.test', type: 'A', ttl: 60, data: '192.0.2.10' },
      { name: 'shop.test', type: 'MX', data: { preference: 10, exchange: 'mail.shop.test' } },
    ],
  });
});

afterAll(async () => {
  await server.close();
  await responder.close();
});

const project = (files: Record<string, string>) => writeProject('vigil-dns-monitor-', files);

const run = (args: string[], cwd: string) => vigil(args, { cwd, env: targetEnv(server.url) });

const get = <T,>(route: string) => getJson<T>(server.url, route);

const CONFIG = "import { defineConfig } from 'checkly';\n\nexport default defineConfig({ projectName: 'Names', logicalId: 'names', checks: { checkMatch: '**/*.check.ts' } });\n";

/**
 * The `frequencyOffset` (1..10, steps of 6 s into each minute) whose next run is 20 to 30 seconds
 * away, so the scheduler's first run comes while the rest of the test goes on.
 */
function offsetDueSoon(): number {
  const second = (Date.now() / 1000 + 20) % 60;
  return Math.floor(second / 6) + 1 > 10 ? 10 : Math.floor(second / 6) + 1;
}

const MONITORS = (offset: number) => `import { DnsAssertionBuilder, DnsMonitor, Frequency, RetryStrategyBuilder } from 'checkly/constructs';

new DnsMonitor('api-a', {
  name: 'API resolves',
  frequency: Frequency.EVERY_1M,
  frequencyOffset: ${offset},
  locations: ['eu-west-1'],
  tags: ['dns'],
  retryStrategy: RetryStrategyBuilder.noRetries(),
  degradedResponseTime: 400,
  maxResponseTime: 2000,
  request: {
    recordType: 'A',
    query: 'api.shop.test',
    nameServer: '127.0.0.1',
    port: ${responder.port},
    assertions: [
      DnsAssertionBuilder.responseCode().equals('NOERROR'),
      DnsAssertionBuilder.jsonAnswer('$.Answer[0].data').equals('192.0.2.10'),
      DnsAssertionBuilder.textAnswer().contains('IN\\tA\\t192.0.2.10'),
      DnsAssertionBuilder.responseTime().lessThan(1500),
    ],
  },
});

new DnsMonitor('mail-tcp', {
  name: 'Mail exchanger over TCP',
  retryStrategy: RetryStrategyBuilder.noRetries(),
  request: { recordType: 'MX', query: 'shop.test', nameServer: '127.0.0.1', port: ${responder.port}, protocol: 'TCP', assertions: [DnsAssertionBuilder.jsonAnswer('$.Answer[0].data').equals('10 mail.shop.test.')] },
});
`;

describe('DnsMonitor', () => {
  it('validates, plans, applies, plans nothing more, imports into a fresh project with an empty next plan, vigil test passes and the scheduler runs it', async () => {
    const root = await project({ 'checkly.config.ts': CONFIG, '__checks__/names.check.ts': MONITORS(offsetDueSoon()) });
    // A project before its first import: a monitor file that declares nothing (a checkMatch matching no file draws a warning).
    const fresh = await project({
      'vigil.config.ts': "import { defineConfig } from 'vigil';\nexport default defineConfig({ projectName: 'copy', logicalId: 'copy' });\n",
      'monitors/empty.monitor.ts': 'export {};\n',
    });
    try {
      const validate = await run(['validate'], root);
      expect(validate.stderr).toBe('');
      expect(validate.stdout.trim()).toBe('✔ 2 resources valid');
      const plan = await run(['plan'], root);
      expect(plan.stdout).toContain('+ dns-monitor.api-a');
      expect(plan.stdout).toContain('+ dns-monitor.mail-tcp');
      const apply = await run(['apply', '--auto-approve'], root);
      expect(apply.stderr).toBe('');
      expect(apply.code).toBe(0);
      const checks = await get<Array<Record<string, unknown>>>('/v1/checks?checkType=DNS');
      const api = checks.find((check) => check.name === 'API resolves');
      expect(api).toMatchObject({
        checkType: 'DNS',
        frequency: 1,
        degradedResponseTime: 400,
        maxResponseTime: 2000,
        request: { recordType: 'A', query: 'api.shop.test', nameServer: '127.0.0.1', port: responder.port, protocol: 'UDP' },
      });
      expect(checks.find((check) => check.name === 'Mail exchanger over TCP')).toMatchObject({ degradedResponseTime: 500, maxResponseTime: 1000, request: { protocol: 'TCP' } });
      const again = await run(['plan', '--detailed-exitcode'], root);
      expect(again.code).toBe(0);

      const imported = await run(['import'], fresh);
      expect(imported.stderr).toBe('');
      expect(imported.stdout).toContain('Adopted 2 resources:');
      const files = (await readdir(path.join(fresh, 'imported'), { recursive: true })).map(String);
      const source = await readFile(path.join(fresh, 'imported', files.find((file) => file.endsWith('.ts'))!), 'utf8');
      expect(source).toContain("new DnsMonitor('api-resolves'");
      expect(source).toContain("DnsAssertionBuilder.responseCode().equals('NOERROR')");
      expect(source).toContain("DnsAssertionBuilder.jsonAnswer('$.Answer[0].data').equals('192.0.2.10')");
      expect(source).toContain("DnsAssertionBuilder.textAnswer().contains('IN\\tA\\t192.0.2.10')");
      expect(source).toContain('DnsAssertionBuilder.responseTime().lessThan(1500)');
      expect(source).toContain("protocol: 'TCP'");
      const next = await run(['plan', '--detailed-exitcode'], fresh);
      expect(next.stdout + next.stderr).toContain('No changes');
      expect(next.code).toBe(0);

      const test = await run(['test', '--reporter', 'json'], root);
      expect(test.code).toBe(0);
      const results = JSON.parse(test.stdout).results as Array<{ logicalId: string; checkType: string; passed: boolean; result: { dnsCheckResult: { response: { responseCode: string; jsonAnswer: { Answer: Array<{ data: string }> } } } } }>;
      expect(results.map((item) => [item.logicalId, item.checkType, item.passed])).toEqual([
        ['api-a', 'DNS', true],
        ['mail-tcp', 'DNS', true],
      ]);
      expect(results[0]!.result.dnsCheckResult.response.responseCode).toBe('NOERROR');
      expect(responder.asked).toContain('tcp MX shop.test');

      // The scheduler's first run of api-a is due 20..30 s after the file was written.
      const stored = await waitFor('a stored result of the scheduled DNS monitor', async () => {
        const list = await get<Array<{ hasFailures: boolean; dnsCheckResult?: { response: { jsonAnswer: { Answer: Array<{ data: string }> } } } }>>(`/v1/check-results/${String(api!.id)}?limit=10`);
        return list.length > 0 ? list : undefined;
      }, { intervalMs: 1000 });
      expect(stored[0]).toMatchObject({ hasFailures: false, dnsCheckResult: { response: { jsonAnswer: { Answer: [{ data: '192.0.2.10' }] } } } });
      const analytics = await get<{ checkType: string; series: Array<{ data: Array<Record<string, number | null>> }> }>(`/v1/analytics/dns/${String(api!.id)}?metrics=total,total_p95,availability`);
      expect(analytics.checkType).toBe('DNS');
      const row = analytics.series[0]!.data[0]!;
      expect(typeof row.total).toBe('number');
      expect(row.availability).toBe(100);
    } finally {
      await rm(root, { recursive: true, force: true });
      await rm(fresh, { recursive: true, force: true });
    }
  }, 150_000);

  it('vigil test fails an unknown name and a broken answer with their exact reasons', async () => {
    const root = await project({
      'checkly.config.ts': CONFIG,
      '__checks__/down.check.ts': `import { DnsAssertionBuilder, DnsMonitor, RetryStrategyBuilder } from 'checkly/constructs';

new DnsMonitor('unknown', { name: 'Unknown name', retryStrategy: RetryStrategyBuilder.noRetries(), request: { recordType: 'A', query: 'nope.shop.test', nameServer: '127.0.0.1', port: ${responder.port} } });
new DnsMonitor('expected-nx', { name: 'Expected NXDOMAIN', retryStrategy: RetryStrategyBuilder.noRetries(), request: { recordType: 'A', query: 'nope.shop.test', nameServer: '127.0.0.1', port: ${responder.port}, protocol: 'TCP', assertions: [DnsAssertionBuilder.responseCode().equals('NXDOMAIN')] } });
new DnsMonitor('wrong-ip', { name: 'Wrong address', retryStrategy: RetryStrategyBuilder.noRetries(), request: { recordType: 'A', query: 'api.shop.test', nameServer: '127.0.0.1', port: ${responder.port}, assertions: [DnsAssertionBuilder.jsonAnswer('$.Answer[0].data').equals('192.0.2.99')] } });
`,
    });
    try {
      const test = await run(['test', '--reporter', 'json'], root);
      expect(test.code).toBe(1);
      const byId = Object.fromEntries((JSON.parse(test.stdout).results as Array<{ logicalId: string; passed: boolean; error: string | null }>).map((item) => [item.logicalId, item]));
      expect(byId.unknown).toMatchObject({ passed: false, error: 'the response code is NXDOMAIN, not NOERROR; assert on it with DnsAssertionBuilder.responseCode() to expect it' });
      expect(byId['expected-nx']).toMatchObject({ passed: true });
      expect(byId['wrong-ip']).toMatchObject({ passed: false, error: 'assertion failed: JSON_ANSWER $.Answer[0].data EQUALS "192.0.2.99": actual "192.0.2.10"' });
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  }, 60_000);

  it('reports bad inputs at file:line', async () => {
    const root = await project({
      'checkly.config.ts': CONFIG,
      '__checks__/bad.check.ts': `import { DnsAssertionBuilder, DnsMonitor } from 'checkly/constructs';

new DnsMonitor('srv', { name: 'SRV', request: { recordType: 'SRV', query: 'shop.test' } as never });
new DnsMonitor('empty', { name: 'Empty', request: { recordType: 'A', query: '' } });
new DnsMonitor('port', { name: 'Port', request: { recordType: 'A', query: 'shop.test', nameServer: '127.0.0.1', port: 70000 } });
new DnsMonitor('path', { name: 'Path', request: { recordType: 'A', query: 'shop.test', assertions: [DnsAssertionBuilder.jsonAnswer('$.Answer[').equals('x')] } });
`,
    });
    try {
      const validate = await run(['validate'], root);
      expect(validate.stdout.trim().split('\n')).toEqual([
        '__checks__/bad.check.ts:3:1  error  "request.recordType" must be one of [A, AAAA, CNAME, MX, NS, TXT, SOA, HTTPS]  (dns-monitor.srv.request.recordType)',
        '__checks__/bad.check.ts:4:1  error  "request.query" is not allowed to be empty  (dns-monitor.empty.request.query)',
        '__checks__/bad.check.ts:5:1  error  "request.port" must be less than or equal to 65535  (dns-monitor.port.request.port)',
        '__checks__/bad.check.ts:6:1  error  the JSONPath "$.Answer[" does not parse: unclosed "[" at character 9  (dns-monitor.path.request.assertions[0].property)',
        `  hint: Write a JSONPath such as '$.items[0].id' or "$['a key']"; see docs/testing.md#assertions.`,
        '4 errors',
      ]);
      expect(validate.code).toBe(1);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  }, 60_000);
});
