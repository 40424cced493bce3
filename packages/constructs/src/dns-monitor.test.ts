import { describe, expect, it } from 'vitest';
import { load, markerLocation, specOf } from './__fixtures__/load.js';
import { DnsAssertionBuilder } from './dns-assertion.js';
import { DnsMonitor, type DnsMonitorProps } from './dns-monitor.js';
import { Frequency } from './frequency.js';
import { RetryStrategyBuilder } from './retry-strategy.js';
import type { Diagnostic } from './types.js';

const base: DnsMonitorProps = { name: 'Resolver', request: { recordType: 'A', query: 'api.example.com' } };

type Expected = Pick<Diagnostic, 'severity' | 'path' | 'message' | 'hint'>;
const error = (path: string, message: string, hint?: string): Expected => ({ severity: 'error', path, message, ...(hint ? { hint } : {}) });
const warning = (path: string, message: string, hint?: string): Expected => ({ severity: 'warning', path, message, ...(hint ? { hint } : {}) });
const request = (extra: Record<string, unknown>) => ({ request: { ...base.request, ...extra } as DnsMonitorProps['request'] });

const rules: Array<[string, Partial<DnsMonitorProps>, Expected[]]> = [
  ['accepts a sub-minute frequency, as the real service does', { frequency: Frequency.EVERY_20S }, []],
  ['accepts a name server with its port over TCP', request({ nameServer: '127.0.0.1', port: 5353, protocol: 'TCP' }), []],
  ['accepts every builder', request({ assertions: [DnsAssertionBuilder.responseCode().equals('NOERROR'), DnsAssertionBuilder.jsonAnswer('$.Answer[0].data').equals('192.0.2.10'), DnsAssertionBuilder.textAnswer().contains('IN A'), DnsAssertionBuilder.responseTime().lessThan(200)] }), []],
  ['rejects an unknown record type', request({ recordType: 'SRV' }), [error('request.recordType', '"request.recordType" must be one of [A, AAAA, CNAME, MX, NS, TXT, SOA, HTTPS]')]],
  ['rejects an empty query', request({ query: '' }), [error('request.query', '"request.query" is not allowed to be empty')]],
  ['rejects a port out of range', request({ nameServer: '127.0.0.1', port: 70000 }), [error('request.port', '"request.port" must be less than or equal to 65535')]],
  ['rejects a name server without its port', request({ nameServer: '127.0.0.1' }), [error('request.port', '"request.port" is required when "request.nameServer" is set', "Give the name server's DNS port, usually 53.")]],
  ['rejects a port without a name server', request({ port: 53 }), [error('request.nameServer', '"request.nameServer" is required when "request.port" is set', 'Name the server to ask, or leave out both to ask the system resolver.')]],
  [
    'rejects a JSON_ANSWER path that does not parse',
    request({ assertions: [DnsAssertionBuilder.jsonAnswer('$.Answer[').equals('x')] }),
    [error('request.assertions[0].property', 'the JSONPath "$.Answer[" does not parse: unclosed "[" at character 9', "Write a JSONPath such as '$.items[0].id' or \"$['a key']\"; see docs/testing.md#assertions.")],
  ],
  [
    'rejects doubleCheck, as Checkly monitors do',
    { doubleCheck: true } as Partial<DnsMonitorProps>,
    [error('doubleCheck', '"doubleCheck" is not supported by DnsMonitor', 'Use retryStrategy instead, e.g. RetryStrategyBuilder.fixedStrategy({ maxRetries: 1 }), or RetryStrategyBuilder.noRetries().')],
  ],
  ['rejects maxResponseTime above 5000', { maxResponseTime: 6000 }, [error('maxResponseTime', '"maxResponseTime" must be less than or equal to 5000', "A DNS monitor's response-time limits are milliseconds between 0 and 5000.")]],
  [
    'rejects degradedResponseTime above the default maxResponseTime',
    { degradedResponseTime: 1500 },
    [error('degradedResponseTime', '"degradedResponseTime" (1500) must be less than or equal to the default "maxResponseTime" (1000)', 'Set "maxResponseTime" too if the check may take longer.')],
  ],
  ['warns about an unknown request prop (Checkly ignores it)', request({ server: 'x' }), [warning('request.server', '"request.server" is not a prop of the request', 'Known props: recordType, query, nameServer, port, protocol, assertions.')]],
];

describe('DnsMonitor rules', () => {
  it.each(rules)('%s', async (_name, props, expected) => {
    const project = await load(() => {
      new DnsMonitor('resolver', { ...base, ...props }); // @at:rule
    });
    const source = markerLocation(import.meta.url, 'rule');
    expect(project.validate()).toEqual(expected.map((e) => ({ ...e, address: 'dns-monitor.resolver', source })));
  });
});

describe('DnsMonitor payload', () => {
  it('synthesises the create body of POST /v1/checks/dns with its defaults', async () => {
    const project = await load(() => {
      new DnsMonitor('resolver', {
        ...base,
        frequency: Frequency.EVERY_1M,
        retryStrategy: RetryStrategyBuilder.noRetries(),
        request: { ...base.request, nameServer: '127.0.0.1', port: 5353, assertions: [DnsAssertionBuilder.textAnswer('IN\\s+A\\s+(\\S+)').equals('192.0.2.10')] },
      });
    });
    const payload = specOf(project, 'dns-monitor.resolver').payload;
    expect(payload).toMatchObject({
      checkType: 'DNS',
      name: 'Resolver',
      frequency: 1,
      degradedResponseTime: 500,
      maxResponseTime: 1000,
      retryStrategy: null,
      doubleCheck: false,
      request: {
        recordType: 'A',
        query: 'api.example.com',
        nameServer: '127.0.0.1',
        port: 5353,
        protocol: 'UDP',
        assertions: [{ source: 'TEXT_ANSWER', comparison: 'EQUALS', property: 'IN\\s+A\\s+(\\S+)', target: '192.0.2.10', regex: null }],
      },
    });
  });

  it('sends doubleCheck: false, as Checkly\'s monitors do, so the service\'s default does not retry it once', async () => {
    const project = await load(() => {
      new DnsMonitor('plain', base);
    });
    expect(specOf(project, 'dns-monitor.plain').payload.doubleCheck).toBe(false);
  });
});
