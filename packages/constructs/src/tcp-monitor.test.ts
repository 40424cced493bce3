import { describe, expect, it } from 'vitest';
import { load, markerLocation, specOf } from './__fixtures__/load.js';
import { Frequency } from './frequency.js';
import { RetryStrategyBuilder } from './retry-strategy.js';
import { TcpAssertionBuilder } from './tcp-assertion.js';
import { TcpCheck, TcpMonitor, type TcpMonitorProps } from './tcp-monitor.js';
import type { Diagnostic } from './types.js';

const base: TcpMonitorProps = { name: 'Database port', request: { hostname: 'db.example.com', port: 5432 } };

type Expected = Pick<Diagnostic, 'severity' | 'path' | 'message' | 'hint'>;
const error = (path: string, message: string, hint?: string): Expected => ({ severity: 'error', path, message, ...(hint ? { hint } : {}) });
const warning = (path: string, message: string, hint?: string): Expected => ({ severity: 'warning', path, message, ...(hint ? { hint } : {}) });
const request = (extra: Record<string, unknown>) => ({ request: { ...base.request, ...extra } as TcpMonitorProps['request'] });

const rules: Array<[string, Partial<TcpMonitorProps>, Expected[]]> = [
  ['accepts data, IPv6 and every builder', request({ data: 'PING\r\n', ipFamily: 'IPv6', assertions: [TcpAssertionBuilder.responseData().contains('PONG'), TcpAssertionBuilder.responseTime().lessThan(500)] }), []],
  ['accepts a sub-minute frequency, as API checks do', { frequency: Frequency.EVERY_10S }, []],
  ['rejects a missing port', request({ port: undefined }), [error('request.port', '"request.port" is required')]],
  ['rejects a port out of range', request({ port: 70000 }), [error('request.port', '"request.port" must be less than or equal to 65535')]],
  ['rejects an empty hostname', request({ hostname: '' }), [error('request.hostname', '"request.hostname" is not allowed to be empty')]],
  [
    'rejects a hostname with a scheme',
    request({ hostname: 'tcp://db.example.com' }),
    [error('request.hostname', '"request.hostname" must be a host name or IP address without scheme or path, got "tcp://db.example.com"', 'Put the host alone in hostname, e.g. "db.example.com", and the port in "request.port".')],
  ],
  [
    'rejects a hostname with a port',
    request({ hostname: 'db.example.com:5432' }),
    [error('request.hostname', '"request.hostname" must not include a port, got "db.example.com:5432"', 'Set "request.port": 5432 and "request.hostname": "db.example.com".')],
  ],
  ['rejects empty data', request({ data: '' }), [error('request.data', '"request.data" is not allowed to be empty')]],
  [
    'rejects an assertion source of another check type',
    request({ assertions: [{ source: 'STATUS_CODE', comparison: 'EQUALS', property: '', target: '200', regex: null }] }),
    [error('request.assertions[0].source', '"request.assertions[0].source" must be one of [RESPONSE_DATA, RESPONSE_TIME]', "Build assertions with TcpAssertionBuilder, e.g. TcpAssertionBuilder.responseData().contains('220').")],
  ],
  [
    'rejects doubleCheck, as Checkly monitors do',
    { doubleCheck: true } as Partial<TcpMonitorProps>,
    [error('doubleCheck', '"doubleCheck" is not supported by TcpMonitor', 'Use retryStrategy instead, e.g. RetryStrategyBuilder.fixedStrategy({ maxRetries: 1 }), or RetryStrategyBuilder.noRetries().')],
  ],
  [
    'rejects retryStrategy.onlyOn, which Checkly allows only on API checks and URL monitors',
    { retryStrategy: RetryStrategyBuilder.fixedStrategy({ maxRetries: 1, onlyOn: 'NETWORK_ERROR' }) },
    [error('retryStrategy.onlyOn', '"retryStrategy.onlyOn" is only supported by API checks, not by TcpMonitor', 'Leave out onlyOn: this check retries on any failure.')],
  ],
  ['rejects maxResponseTime above 5000', { maxResponseTime: 6000 }, [error('maxResponseTime', '"maxResponseTime" must be less than or equal to 5000', "A TCP monitor's response-time limits are milliseconds between 0 and 5000.")]],
  [
    'rejects degradedResponseTime above maxResponseTime',
    { degradedResponseTime: 2000, maxResponseTime: 1000 },
    [error('degradedResponseTime', '"degradedResponseTime" (2000) must be less than or equal to "maxResponseTime" (1000)', 'A check is degraded before it fails: lower degradedResponseTime or raise maxResponseTime.')],
  ],
  ['warns about an unknown request prop (Checkly ignores it)', request({ send: 'x' }), [warning('request.send', '"request.send" is not a prop of the request', 'Known props: hostname, port, data, ipFamily, assertions.')]],
];

describe('TcpMonitor rules', () => {
  it.each(rules)('%s', async (_name, props, expected) => {
    const project = await load(() => {
      new TcpMonitor('db', { ...base, ...props }); // @at:rule
    });
    const source = markerLocation(import.meta.url, 'rule');
    expect(project.validate()).toEqual(expected.map((e) => ({ ...e, address: 'tcp-monitor.db', source })));
  });
});

describe('TcpMonitor payload', () => {
  it('synthesises the create body of POST /v1/checks/tcp with its defaults', async () => {
    const project = await load(() => {
      new TcpMonitor('db', { ...base, frequency: Frequency.EVERY_30S, request: { ...base.request, data: 'PING', assertions: [TcpAssertionBuilder.responseData().notContains('ERR')] } });
    });
    expect(specOf(project, 'tcp-monitor.db').payload).toMatchObject({
      checkType: 'TCP',
      name: 'Database port',
      doubleCheck: false,
      frequency: 0,
      frequencyOffset: 30,
      degradedResponseTime: 3000,
      maxResponseTime: 5000,
      request: {
        hostname: 'db.example.com',
        port: 5432,
        data: 'PING',
        ipFamily: 'IPv4',
        assertions: [{ source: 'RESPONSE_DATA', comparison: 'NOT_CONTAINS', property: '', target: 'ERR', regex: null }],
      },
    });
  });

  it("keeps Checkly's older name TcpCheck", async () => {
    const project = await load(() => {
      new TcpCheck('db', base);
    });
    expect(specOf(project, 'tcp-monitor.db').payload).toMatchObject({ checkType: 'TCP', request: { data: null, assertions: [] } });
  });
});
