import { describe, expect, it } from 'vitest';
import { load, markerLocation, specOf } from './__fixtures__/load.js';
import { IcmpAssertionBuilder, IcmpMonitor, type IcmpMonitorProps } from './icmp-monitor.js';
import type { Diagnostic } from './types.js';

const base: IcmpMonitorProps = { name: 'Gateway', request: { hostname: 'gw.example.com' } };
type Expected = Pick<Diagnostic, 'severity' | 'path' | 'message' | 'hint'>;
const error = (path: string, message: string, hint?: string): Expected => ({ severity: 'error', path, message, ...(hint ? { hint } : {}) });
const request = (extra: Record<string, unknown>) => ({ request: { ...base.request, ...extra } as IcmpMonitorProps['request'] });
const THRESHOLD_HINT = 'Packet loss thresholds are percentages above 0 and at most 100.';

const rules: Array<[string, Partial<IcmpMonitorProps>, Expected[]]> = [
  ['accepts every builder and setting', { ...request({ ipFamily: 'IPv6', pingCount: 5, assertions: [IcmpAssertionBuilder.latency('avg').lessThan(100), IcmpAssertionBuilder.jsonResponse('$.packetLoss').equals(0)] }), degradedPacketLossThreshold: 5, maxPacketLossThreshold: 50 }, []],
  ['rejects a missing hostname', request({ hostname: undefined }), [error('request.hostname', '"request.hostname" is required')]],
  ['rejects a pingCount above 50', request({ pingCount: 51 }), [error('request.pingCount', '"request.pingCount" must be less than or equal to 50')]],
  ['rejects a packet loss threshold of 0', { maxPacketLossThreshold: 0 }, [error('maxPacketLossThreshold', '"maxPacketLossThreshold" must be greater than 0', THRESHOLD_HINT)]],
  ['rejects a packet loss threshold above 100', { degradedPacketLossThreshold: 120 }, [error('degradedPacketLossThreshold', '"degradedPacketLossThreshold" must be less than or equal to 100', THRESHOLD_HINT)]],
  [
    'rejects a degraded threshold above the failing one',
    { degradedPacketLossThreshold: 30, maxPacketLossThreshold: 20 },
    [error('degradedPacketLossThreshold', '"degradedPacketLossThreshold" (30) must be less than or equal to "maxPacketLossThreshold" (20)', 'A monitor is degraded before it fails: lower degradedPacketLossThreshold or raise maxPacketLossThreshold.')],
  ],
  [
    'rejects a latency statistic that does not exist',
    request({ assertions: [{ source: 'LATENCY', property: 'p95', comparison: 'LESS_THAN', target: '10', regex: null }] }),
    [error('request.assertions[0].property', '"request.assertions[0].property" "p95" is not a latency statistic', "Use one of avg, min, max, stdDev, e.g. IcmpAssertionBuilder.latency('avg').lessThan(100).")],
  ],
  [
    'rejects a hostname with a port',
    request({ hostname: 'gw.example.com:80' }),
    [error('request.hostname', '"request.hostname" must not include a port, got "gw.example.com:80"', 'Set "request.hostname": "gw.example.com": this monitor has no port.')],
  ],
  [
    'rejects doubleCheck, as Checkly monitors do',
    { doubleCheck: true } as Partial<IcmpMonitorProps>,
    [error('doubleCheck', '"doubleCheck" is not supported by IcmpMonitor', 'Use retryStrategy instead, e.g. RetryStrategyBuilder.fixedStrategy({ maxRetries: 1 }), or RetryStrategyBuilder.noRetries().')],
  ],
];

describe('IcmpMonitor rules', () => {
  it.each(rules)('%s', async (_name, props, expected) => {
    const project = await load(() => {
      new IcmpMonitor('gw', { ...base, ...props }); // @at:rule
    });
    const source = markerLocation(import.meta.url, 'rule');
    expect(project.validate()).toEqual(expected.map((e) => ({ ...e, address: 'icmp-monitor.gw', source })));
  });
});

describe('IcmpMonitor payload', () => {
  it("synthesises the create body of POST /v1/checks/icmp with the real service's defaults", async () => {
    const project = await load(() => {
      new IcmpMonitor('gw', base);
    });
    expect(specOf(project, 'icmp-monitor.gw').payload).toMatchObject({
      checkType: 'ICMP', doubleCheck: false, degradedResponseTime: 10000, maxResponseTime: 20000, degradedPacketLossThreshold: 10, maxPacketLossThreshold: 20,
      request: { hostname: 'gw.example.com', ipFamily: 'IPv4', pingCount: 10, assertions: [] },
    });
  });
});
