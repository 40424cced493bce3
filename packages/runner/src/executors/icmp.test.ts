import { afterAll, describe, expect, it } from 'vitest';
import { createRunner } from '../runner.js';
import type { RunContext, RunResult, WireCheck } from '../types.js';
import { parsePing } from './icmp.js';

const context: RunContext = { location: 'eu-west-1', variables: [], retries: 0 };
const runner = createRunner();
afterAll(() => runner.close());

function icmpMonitor(request: Record<string, unknown>, extra: Record<string, unknown> = {}): WireCheck {
  return { checkType: 'ICMP', name: 'ping', request: { hostname: '127.0.0.1', pingCount: 3, ...request }, ...extra };
}

async function run(check: WireCheck, runContext: RunContext = context): Promise<RunResult> {
  return (await runner.run(check, runContext)).final;
}

describe('ICMP executor against the loopback address', () => {
  it('pings 127.0.0.1, reports loss and round trips, says how it pinged, and passes latency assertions', async () => {
    const result = await run(icmpMonitor({ assertions: [{ source: 'LATENCY', property: 'avg', comparison: 'LESS_THAN', target: '1000' }, { source: 'JSON_RESPONSE', property: '$.packetLoss', comparison: 'EQUALS', target: '0' }] }));
    expect(result.error).toBeNull();
    const icmp = result.icmpCheckResult as { method: string; response: { packetsSent: number; packetsReceived: number; packetLoss: number; replies: number[]; latency: Record<string, number> }; assertions: Array<{ passed: boolean }> };
    expect(icmp.response).toMatchObject({ resolvedIp: '127.0.0.1', packetsSent: 3, packetsReceived: 3, packetLoss: 0 });
    expect(icmp.response.replies).toHaveLength(3);
    expect(Object.keys(icmp.response.latency)).toEqual(['min', 'avg', 'max', 'stdDev']);
    expect(icmp.method).toMatch(/^system ping \(iputils\), (unprivileged ICMP datagram socket|raw ICMP socket)/);
    expect(icmp.assertions.every((assertion) => assertion.passed)).toBe(true);
  });

  it('pings ::1 over IPv6', async () => {
    const result = await run(icmpMonitor({ hostname: '::1', ipFamily: 'IPv6', pingCount: 1 }));
    expect(result.error).toBeNull();
  });

  it('fails a latency assertion with its reason, and a host the network policy denies without pinging', async () => {
    const slow = await run(icmpMonitor({ pingCount: 1, assertions: [{ source: 'LATENCY', property: 'max', comparison: 'LESS_THAN', target: '0' }] }));
    expect(slow.error).toMatch(/^assertion failed: LATENCY max LESS_THAN "0": actual [\d.]+$/);
    const guarded = createRunner({ denyNetworks: ['127.0.0.0/8'] });
    try {
      const denied = (await guarded.run(icmpMonitor({ pingCount: 1 }), context)).final;
      expect(denied.error).toMatch(/127\.0\.0\.1/);
      expect((denied.icmpCheckResult as { response: unknown }).response).toBeNull();
    } finally {
      await guarded.close();
    }
  });

  it('reads loss and statistics from iputils output, replies missing', () => {
    const output = [
      'PING 192.0.2.1 (192.0.2.1) 56(84) bytes of data.',
      '64 bytes from 192.0.2.1: icmp_seq=1 ttl=64 time=0.034 ms',
      '',
      '--- 192.0.2.1 ping statistics ---',
      '4 packets transmitted, 1 received, 75% packet loss, time 3004ms',
      'rtt min/avg/max/mdev = 0.034/0.034/0.034/0.000 ms',
    ].join('\n');
    expect(parsePing(output)).toEqual({ sent: 4, received: 1, packetLoss: 75, replies: [0.034], latency: { min: 0.034, avg: 0.034, max: 0.034, stdDev: 0 } });
  });
});
