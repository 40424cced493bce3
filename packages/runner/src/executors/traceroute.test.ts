import { afterAll, describe, expect, it } from 'vitest';
import { createRunner } from '../runner.js';
import type { RunContext, RunResult, WireCheck } from '../types.js';
import { parseTraceroute } from './traceroute.js';

const context: RunContext = { location: 'eu-west-1', variables: [], retries: 0 };
const runner = createRunner();
afterAll(() => runner.close());

function tracerouteMonitor(request: Record<string, unknown>, extra: Record<string, unknown> = {}): WireCheck {
  return { checkType: 'TRACEROUTE', name: 'route', request: { url: '127.0.0.1', protocol: 'ICMP', maxHops: 3, timeout: 5, ...request }, ...extra };
}

async function run(check: WireCheck, runContext: RunContext = context): Promise<RunResult> {
  return (await runner.run(check, runContext)).final;
}

type Result = { totalHops: number; destinationReached: boolean; response: { resolvedIp: string; hops: Array<{ hop: number; ips: string[]; packetLoss: number }>; packetLoss: number; truncationReason: string | null } | null; assertions: Array<{ passed: boolean }> };

describe('traceroute executor against the loopback address', () => {
  it.each(['ICMP', 'UDP', 'TCP'])('traces 127.0.0.1 in one hop with %s probes and passes hop, loss and latency assertions', async (protocol) => {
    const assertions = [
      { source: 'HOP_COUNT', property: '', comparison: 'EQUALS', target: '1' },
      { source: 'PACKET_LOSS', property: '', comparison: 'LESS_THAN', target: '50' },
      { source: 'RESPONSE_TIME', property: 'max', comparison: 'LESS_THAN', target: '1000' },
    ];
    const result = await run(tracerouteMonitor({ protocol, assertions }));
    expect(result.error).toBeNull();
    const trace = result.tracerouteCheckResult as Result;
    expect(trace).toMatchObject({ totalHops: 1, destinationReached: true, response: { resolvedIp: '127.0.0.1', truncationReason: null, hops: [{ hop: 1, ips: ['127.0.0.1'] }] } });
    expect(trace.assertions.map((assertion) => assertion.passed)).toEqual([true, true, true]);
  });

  it('traces ::1 over IPv6', async () => {
    const result = await run(tracerouteMonitor({ url: '::1', ipFamily: 'IPv6' }));
    expect(result.error).toBeNull();
    expect((result.tracerouteCheckResult as Result).response?.resolvedIp).toBe('::1');
  });

  it('fails a hop-count assertion with its reason, and a host the network policy denies without tracing', async () => {
    const far = await run(tracerouteMonitor({ assertions: [{ source: 'HOP_COUNT', property: '', comparison: 'GREATER_THAN', target: '5' }] }));
    expect(far.error).toBe('assertion failed: HOP_COUNT GREATER_THAN "5": actual 1');
    const guarded = createRunner({ denyNetworks: ['127.0.0.0/8'] });
    try {
      const denied = (await guarded.run(tracerouteMonitor({}), context)).final;
      expect(denied.error).toMatch(/127\.0\.0\.1/);
      expect((denied.tracerouteCheckResult as Result).response).toBeNull();
    } finally {
      await guarded.close();
    }
  });

  it('refuses SCTP probes, which this traceroute cannot send', async () => {
    const result = await run(tracerouteMonitor({ protocol: 'SCTP' }));
    expect(result.error).toBe("SCTP probes are not supported by this runner's traceroute; use TCP, UDP or ICMP");
  });
});

describe('parseTraceroute', () => {
  it('reads answered, silent and mixed hops, marks and several addresses per hop', () => {
    const output = [
      'traceroute to 192.0.2.9 (192.0.2.9), 30 hops max, 60 byte packets',
      ' 1  192.0.2.1  0.500 ms  0.400 ms  0.300 ms',
      ' 2  * * *',
      ' 3  198.51.100.7  2.000 ms * 198.51.100.8  4.000 ms',
      ' 4  192.0.2.9  5.000 ms !H  5.000 ms !H  5.000 ms !H',
    ].join('\n');
    const hops = parseTraceroute(output);
    expect(hops.map((hop) => [hop.hop, hop.ips, hop.packetLoss])).toEqual([
      [1, ['192.0.2.1'], 0],
      [2, [], 100],
      [3, ['198.51.100.7', '198.51.100.8'], 33.3],
      [4, ['192.0.2.9'], 0],
    ]);
    expect(hops[0]!.latency).toEqual({ min: 0.3, avg: 0.4, max: 0.5, stdDev: 0.082 });
    expect(hops[2]!.latency).toEqual({ min: 2, avg: 3, max: 4, stdDev: 1 });
    expect(hops[3]!.probes[0]).toEqual({ ip: '192.0.2.9', rtt: 5, annotation: '!H' });
  });

  it('skips what is not a hop: names, times without an address, out-of-range and repeated hop numbers', () => {
    const output = [
      ' 1  router.example  1.0 ms',
      ' 2  5.0 ms 6.0 ms',
      ' 99  192.0.2.1  1.0 ms',
      ' 3  192.0.2.3  1.0 ms',
      ' 3  192.0.2.4  1.0 ms',
      '<script>alert(1)</script>',
    ].join('\n');
    expect(parseTraceroute(output).map((hop) => [hop.hop, hop.ips])).toEqual([[3, ['192.0.2.3']]]);
  });
});
