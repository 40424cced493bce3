import { describe, expect, it } from 'vitest';
import { load, markerLocation, specOf } from './__fixtures__/load.js';
import { TracerouteAssertionBuilder, TracerouteMonitor, type TracerouteMonitorProps } from './traceroute-monitor.js';
import type { Diagnostic } from './types.js';

const base: TracerouteMonitorProps = { name: 'Edge', request: { url: 'edge.example.com' } };
type Expected = Pick<Diagnostic, 'severity' | 'path' | 'message' | 'hint'>;
const error = (path: string, message: string, hint?: string): Expected => ({ severity: 'error', path, message, ...(hint ? { hint } : {}) });
const request = (extra: Record<string, unknown>) => ({ request: { ...base.request, ...extra } as TracerouteMonitorProps['request'] });
const ASSERTION_HINT = 'Build assertions with TracerouteAssertionBuilder, e.g. TracerouteAssertionBuilder.hopCount().lessThan(20).';
const plain = (source: string, property: string, comparison: string, target = '10') => request({ assertions: [{ source, property, comparison, target, regex: null }] });

const rules: Array<[string, Partial<TracerouteMonitorProps>, Expected[]]> = [
  [
    'accepts every builder and setting',
    {
      ...request({
        protocol: 'UDP', port: 33434, ipFamily: 'IPv6', maxHops: 64, maxUnknownHops: 30, ptrLookup: false, timeout: 30,
        assertions: [TracerouteAssertionBuilder.responseTime().lessThan(100), TracerouteAssertionBuilder.responseTime('stdDev').notEquals(0), TracerouteAssertionBuilder.hopCount().lessThan(20), TracerouteAssertionBuilder.packetLoss().equals(0)],
      }),
      degradedResponseTime: 5000,
      maxResponseTime: 30000,
    },
    [],
  ],
  ['rejects a missing url', request({ url: undefined }), [error('request.url', '"request.url" is required')]],
  ['rejects maxHops above 64', request({ maxHops: 65 }), [error('request.maxHops', '"request.maxHops" must be less than or equal to 64')]],
  ['rejects maxUnknownHops of 0', request({ maxUnknownHops: 0 }), [error('request.maxUnknownHops', '"request.maxUnknownHops" must be greater than or equal to 1')]],
  ['rejects a timeout above 30 seconds', request({ timeout: 31 }), [error('request.timeout', '"request.timeout" must be less than or equal to 30')]],
  ['rejects a port above 65535', request({ port: 70000 }), [error('request.port', '"request.port" must be less than or equal to 65535')]],
  [
    'rejects a maxResponseTime above 30000',
    { maxResponseTime: 30001 },
    [error('maxResponseTime', '"maxResponseTime" must be less than or equal to 30000', "A traceroute monitor's response-time limits are milliseconds between 0 and 30000.")],
  ],
  ['rejects a port with ICMP probes', request({ protocol: 'ICMP', port: 443 }), [error('request.port', '"request.port" is not used by ICMP probes', 'Remove "request.port", or set "request.protocol" to "TCP", "UDP" or "SCTP".')]],
  [
    'rejects a url with a scheme',
    request({ url: 'https://edge.example.com' }),
    [error('request.url', '"request.url" must be a host name or IP address without scheme or path, got "https://edge.example.com"', 'Put the host alone in url, e.g. "example.com".')],
  ],
  ['rejects a url with a port', request({ url: 'edge.example.com:443' }), [error('request.url', '"request.url" must not include a port, got "edge.example.com:443"', 'Set "request.port": 443 and "request.url": "edge.example.com".')]],
  [
    'rejects a response-time statistic that does not exist',
    plain('RESPONSE_TIME', 'p95', 'LESS_THAN'),
    [error('request.assertions[0].property', '"request.assertions[0].property" "p95" is not a response-time statistic', "Use one of avg, min, max, stdDev, e.g. TracerouteAssertionBuilder.responseTime('max').lessThan(500).")],
  ],
  ['rejects a property on a hop count', plain('HOP_COUNT', 'avg', 'LESS_THAN'), [error('request.assertions[0].property', '"request.assertions[0].property" must be empty for HOP_COUNT, got "avg"', ASSERTION_HINT)]],
  ['rejects NOT_EQUALS on packet loss', plain('PACKET_LOSS', '', 'NOT_EQUALS'), [error('request.assertions[0].comparison', '"request.assertions[0].comparison" "NOT_EQUALS" is not a comparison PACKET_LOSS takes', 'Use one of EQUALS, GREATER_THAN, LESS_THAN.')]],
  ['rejects a target that is not a number', plain('HOP_COUNT', '', 'LESS_THAN', 'many'), [error('request.assertions[0].target', '"request.assertions[0].target" must be a number, got "many"', ASSERTION_HINT)]],
  [
    'rejects doubleCheck, as Checkly monitors do',
    { doubleCheck: true } as Partial<TracerouteMonitorProps>,
    [error('doubleCheck', '"doubleCheck" is not supported by TracerouteMonitor', 'Use retryStrategy instead, e.g. RetryStrategyBuilder.fixedStrategy({ maxRetries: 1 }), or RetryStrategyBuilder.noRetries().')],
  ],
];

describe('TracerouteMonitor rules', () => {
  it.each(rules)('%s', async (_name, props, expected) => {
    const project = await load(() => {
      new TracerouteMonitor('edge', { ...base, ...props }); // @at:rule
    });
    const source = markerLocation(import.meta.url, 'rule');
    expect(project.validate()).toEqual(expected.map((e) => ({ ...e, address: 'traceroute-monitor.edge', source })));
  });
});

describe('TracerouteMonitor payload', () => {
  it("synthesises the create body of POST /v1/checks/traceroute with the real service's defaults", async () => {
    const project = await load(() => {
      new TracerouteMonitor('edge', base);
    });
    expect(specOf(project, 'traceroute-monitor.edge').payload).toMatchObject({
      checkType: 'TRACEROUTE', doubleCheck: false, degradedResponseTime: 10000, maxResponseTime: 20000,
      request: { url: 'edge.example.com', protocol: 'TCP', port: null, ipFamily: 'IPv4', maxHops: 30, maxUnknownHops: 15, ptrLookup: true, timeout: 10, assertions: [] },
    });
  });

  it('builds assertions as Checkly does', () => {
    expect(TracerouteAssertionBuilder.responseTime().lessThan(100)).toEqual({ source: 'RESPONSE_TIME', property: 'avg', comparison: 'LESS_THAN', target: '100', regex: null });
    expect(TracerouteAssertionBuilder.hopCount().greaterThan(2)).toEqual({ source: 'HOP_COUNT', property: '', comparison: 'GREATER_THAN', target: '2', regex: null });
  });
});
