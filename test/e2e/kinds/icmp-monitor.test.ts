/**
 * IcmpMonitor end to end against a real vigil server, pinging the loopback address only:
 * validate → plan → apply → plan empty → import into a fresh project (next plan empty) → `vigil
 * test`; the service's scheduler runs it and stores its icmpCheckResult; bad inputs at file:line.
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

const project = (files: Record<string, string>) => writeProject('vigil-icmp-monitor-', files);
const run = (args: string[], cwd: string) => vigil(args, { cwd, env: targetEnv(server.url) });
const get = <T,>(route: string) => getJson<T>(server.url, route);
const CONFIG = "import { defineConfig } from 'checkly';\n\nexport default defineConfig({ projectName: 'Pings', logicalId: 'pings', checks: { checkMatch: '**/*.check.ts' } });\n";

function offsetDueSoon(): number {
  const second = (Date.now() / 1000 + 20) % 60;
  return Math.floor(second / 6) + 1 > 10 ? 10 : Math.floor(second / 6) + 1;
}

const MONITORS = (offset: number) => `import { Frequency, IcmpAssertionBuilder, IcmpMonitor, RetryStrategyBuilder } from 'checkly/constructs';

new IcmpMonitor('loopback', {
  name: 'Loopback answers',
  frequency: Frequency.EVERY_1M,
  frequencyOffset: ${offset},
  retryStrategy: RetryStrategyBuilder.noRetries(),
  maxPacketLossThreshold: 50,
  request: { hostname: '127.0.0.1', pingCount: 3, assertions: [IcmpAssertionBuilder.latency('avg').lessThan(1000)] },
});
`;

describe('IcmpMonitor', () => {
  it('validates, plans, applies, plans nothing more, imports with an empty next plan, vigil test passes and the scheduler runs it', async () => {
    const root = await project({ 'checkly.config.ts': CONFIG, '__checks__/ping.check.ts': MONITORS(offsetDueSoon()) });
    const fresh = await project({
      'vigil.config.ts': "import { defineConfig } from 'vigil';\nexport default defineConfig({ projectName: 'copy', logicalId: 'copy' });\n",
      'monitors/empty.monitor.ts': 'export {};\n',
    });
    try {
      const validate = await run(['validate'], root);
      expect(validate.stdout.trim()).toBe('✔ 1 resource valid');
      const apply = await run(['apply', '--auto-approve'], root);
      expect(apply.stderr).toBe('');
      expect(apply.stdout).toContain('icmp-monitor.loopback');
      expect(apply.code).toBe(0);
      const [check] = await get<Array<Record<string, unknown>>>('/v1/checks?checkType=ICMP');
      expect(check).toMatchObject({ checkType: 'ICMP', frequency: 1, doubleCheck: false, maxPacketLossThreshold: 50, degradedPacketLossThreshold: 10, request: { hostname: '127.0.0.1', pingCount: 3, ipFamily: 'IPv4' } });
      const again = await run(['plan', '--detailed-exitcode'], root);
      expect(again.stdout).toContain('No changes');
      expect(again.code).toBe(0);

      const imported = await run(['import'], fresh);
      expect(imported.stderr).toBe('');
      const files = (await readdir(path.join(fresh, 'imported'), { recursive: true })).map(String);
      const source = await readFile(path.join(fresh, 'imported', files.find((file) => file.endsWith('.ts'))!), 'utf8');
      expect(source).toContain("new IcmpMonitor('loopback-answers'");
      expect(source).toContain("IcmpAssertionBuilder.latency('avg').lessThan(1000)");
      expect(source).toContain('maxPacketLossThreshold: 50');
      const next = await run(['plan', '--detailed-exitcode'], fresh);
      expect(next.stdout + next.stderr).toContain('No changes');
      expect(next.code).toBe(0);

      const test = await run(['test', '--reporter', 'json'], root);
      expect(test.code).toBe(0);
      const [result] = JSON.parse(test.stdout).results as Array<{ checkType: string; passed: boolean; result: { icmpCheckResult: { method: string; response: { packetsReceived: number } } } }>;
      expect(result).toMatchObject({ checkType: 'ICMP', passed: true, result: { icmpCheckResult: { response: { packetsReceived: 3 } } } });
      expect(result!.result.icmpCheckResult.method).toMatch(/^system ping \(iputils\)/);

      const stored = await waitFor('a stored result of the scheduled ICMP monitor', async () => {
        const list = await get<Array<Record<string, unknown>>>(`/v1/check-results/${String(check!.id)}?limit=10`);
        return list.length > 0 ? list : undefined;
      }, { intervalMs: 1000 });
      expect(stored[0]).toMatchObject({ hasFailures: false, icmpCheckResult: { response: { resolvedIp: '127.0.0.1', packetLoss: 0 } } });
    } finally {
      await rm(root, { recursive: true, force: true });
      await rm(fresh, { recursive: true, force: true });
    }
  }, 150_000);

  it('reports bad inputs at file:line', async () => {
    const root = await project({
      'checkly.config.ts': CONFIG,
      '__checks__/bad.check.ts': `import { IcmpMonitor } from 'checkly/constructs';

new IcmpMonitor('count', { name: 'Count', request: { hostname: '127.0.0.1', pingCount: 0 } });
new IcmpMonitor('loss', { name: 'Loss', maxPacketLossThreshold: 0, request: { hostname: '127.0.0.1' } });
`,
    });
    try {
      const validate = await run(['validate'], root);
      expect(validate.stdout.trim().split('\n')).toEqual([
        '__checks__/bad.check.ts:3:1  error  "request.pingCount" must be greater than or equal to 1  (icmp-monitor.count.request.pingCount)',
        '__checks__/bad.check.ts:4:1  error  "maxPacketLossThreshold" must be greater than 0  (icmp-monitor.loss.maxPacketLossThreshold)',
        '  hint: Packet loss thresholds are percentages above 0 and at most 100.',
        '2 errors',
      ]);
      expect(validate.code).toBe(1);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  }, 60_000);
});
