/**
 * TracerouteMonitor end to end against a real vigil server, tracing the loopback address only (one
 * hop): validate → plan → apply → plan empty → import into a fresh project (next plan empty) →
 * `vigil test`; the service's scheduler runs it and stores its tracerouteCheckResult; bad inputs
 * at file:line.
 */
import { readFile, readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { startServer, type RunningServer } from '@vigil/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getJson, targetEnv, vigil, waitFor, writeProject } from '../../support/cli.js';

let server: RunningServer;
beforeAll(async () => {
  server = await startServer({ port: 0, dataDir: ':memory:', scheduler: true });
});
afterAll(async () => {
  await server.close();
});

const project = (files: Record<string, string>) => writeProject('vigil-traceroute-monitor-', files);
const run = (args: string[], cwd: string) => vigil(args, { cwd, env: targetEnv(server.url) });
const get = <T,>(route: string) => getJson<T>(server.url, route);
const CONFIG = "import { defineConfig } from 'checkly';\n\nexport default defineConfig({ projectName: 'Routes', logicalId: 'routes', checks: { checkMatch: '**/*.check.ts' } });\n";

function offsetDueSoon(): number {
  const second = (Date.now() / 1000 + 20) % 60;
  return Math.floor(second / 6) + 1 > 10 ? 10 : Math.floor(second / 6) + 1;
}

const MONITORS = (offset: number) => `import { Frequency, RetryStrategyBuilder, TracerouteAssertionBuilder, TracerouteMonitor } from 'checkly/constructs';

new TracerouteMonitor('loopback', {
  name: 'Loopback route',
  frequency: Frequency.EVERY_1M,
  frequencyOffset: ${offset},
  retryStrategy: RetryStrategyBuilder.noRetries(),
  maxResponseTime: 15000,
  request: {
    url: '127.0.0.1',
    protocol: 'UDP',
    maxHops: 3,
    timeout: 5,
    assertions: [TracerouteAssertionBuilder.hopCount().lessThan(2), TracerouteAssertionBuilder.responseTime('max').lessThan(1000)],
  },
});
`;

describe('TracerouteMonitor', () => {
  it('validates, plans, applies, plans nothing more, imports with an empty next plan, vigil test passes and the scheduler runs it', async () => {
    const root = await project({ 'checkly.config.ts': CONFIG, '__checks__/route.check.ts': MONITORS(offsetDueSoon()) });
    const fresh = await project({
      'vigil.config.ts': "import { defineConfig } from 'vigil';\nexport default defineConfig({ projectName: 'copy', logicalId: 'copy' });\n",
      'monitors/empty.monitor.ts': 'export {};\n',
    });
    try {
      const validate = await run(['validate'], root);
      expect(validate.stdout.trim()).toBe('✔ 1 resource valid');
      const apply = await run(['apply', '--auto-approve'], root);
      expect(apply.stderr).toBe('');
      expect(apply.stdout).toContain('traceroute-monitor.loopback');
      expect(apply.code).toBe(0);
      const [check] = await get<Array<Record<string, unknown>>>('/v1/checks?checkType=TRACEROUTE');
      expect(check).toMatchObject({
        checkType: 'TRACEROUTE', frequency: 1, doubleCheck: false, maxResponseTime: 15000, degradedResponseTime: 10000,
        request: { url: '127.0.0.1', protocol: 'UDP', port: null, maxHops: 3, maxUnknownHops: 15, timeout: 5, ipFamily: 'IPv4' },
      });
      const again = await run(['plan', '--detailed-exitcode'], root);
      expect(again.stdout).toContain('No changes');
      expect(again.code).toBe(0);

      const imported = await run(['import'], fresh);
      expect(imported.stderr).toBe('');
      const files = (await readdir(path.join(fresh, 'imported'), { recursive: true })).map(String);
      const source = await readFile(path.join(fresh, 'imported', files.find((file) => file.endsWith('.ts'))!), 'utf8');
      expect(source).toContain("new TracerouteMonitor('loopback-route'");
      expect(source).toContain('TracerouteAssertionBuilder.hopCount().lessThan(2)');
      expect(source).toContain("TracerouteAssertionBuilder.responseTime('max').lessThan(1000)");
      expect(source).toContain("protocol: 'UDP'");
      const next = await run(['plan', '--detailed-exitcode'], fresh);
      expect(next.stdout + next.stderr).toContain('No changes');
      expect(next.code).toBe(0);

      const test = await run(['test', '--reporter', 'json'], root);
      expect(test.code).toBe(0);
      const [result] = JSON.parse(test.stdout).results as Array<{ checkType: string; passed: boolean; result: { tracerouteCheckResult: Record<string, unknown> } }>;
      expect(result).toMatchObject({ checkType: 'TRACEROUTE', passed: true, result: { tracerouteCheckResult: { totalHops: 1, destinationReached: true } } });

      const stored = await waitFor('a stored result of the scheduled traceroute monitor', async () => {
        const list = await get<Array<Record<string, unknown>>>(`/v1/check-results/${String(check!.id)}?limit=10`);
        return list.length > 0 ? list : undefined;
      }, { intervalMs: 1000 });
      expect(stored[0]).toMatchObject({ hasFailures: false, tracerouteCheckResult: { destinationReached: true, response: { resolvedIp: '127.0.0.1', totalHops: 1, hops: [{ hop: 1, ips: ['127.0.0.1'] }] } } });
    } finally {
      await rm(root, { recursive: true, force: true });
      await rm(fresh, { recursive: true, force: true });
    }
  }, 150_000);

  it('reports bad inputs at file:line', async () => {
    const root = await project({
      'checkly.config.ts': CONFIG,
      '__checks__/bad.check.ts': `import { TracerouteMonitor } from 'checkly/constructs';

new TracerouteMonitor('hops', { name: 'Hops', request: { url: '127.0.0.1', maxHops: 0 } });
new TracerouteMonitor('loss', { name: 'Loss', request: { url: '127.0.0.1', assertions: [{ source: 'PACKET_LOSS', property: '', comparison: 'NOT_EQUALS', target: '0', regex: null }] } });
`,
    });
    try {
      const validate = await run(['validate'], root);
      expect(validate.stdout.trim().split('\n')).toEqual([
        '__checks__/bad.check.ts:3:1  error  "request.maxHops" must be greater than or equal to 1  (traceroute-monitor.hops.request.maxHops)',
        '__checks__/bad.check.ts:4:1  error  "request.assertions[0].comparison" "NOT_EQUALS" is not a comparison PACKET_LOSS takes  (traceroute-monitor.loss.request.assertions[0].comparison)',
        '  hint: Use one of EQUALS, GREATER_THAN, LESS_THAN.',
        '2 errors',
      ]);
      expect(validate.code).toBe(1);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  }, 60_000);
});
