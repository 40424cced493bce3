import { describe, expect, it } from 'vitest';
import { load, markerLocation, specOf } from './__fixtures__/load.js';
import { Frequency } from './frequency.js';
import { RetryStrategyBuilder } from './retry-strategy.js';
import type { Diagnostic } from './types.js';
import { UrlAssertionBuilder } from './url-assertion.js';
import { UrlMonitor, type UrlMonitorProps } from './url-monitor.js';

const base: UrlMonitorProps = { name: 'Homepage', request: { url: 'https://example.com/' } };

type Expected = Pick<Diagnostic, 'severity' | 'path' | 'message' | 'hint'>;
const error = (path: string, message: string, hint?: string): Expected => ({ severity: 'error', path, message, ...(hint ? { hint } : {}) });
const warning = (path: string, message: string, hint?: string): Expected => ({ severity: 'warning', path, message, ...(hint ? { hint } : {}) });
const request = (extra: Record<string, unknown>) => ({ request: { ...base.request, ...extra } as UrlMonitorProps['request'] });

const rules: Array<[string, Partial<UrlMonitorProps>, Expected[]]> = [
  ['accepts every option and a status-code assertion', request({ followRedirects: false, skipSSL: true, ipFamily: 'IPv6', assertions: [UrlAssertionBuilder.statusCode().lessThan(400)] }), []],
  ['accepts a URL object', request({ url: new URL('https://example.com/health') }), []],
  ['accepts retryStrategy.onlyOn NETWORK_ERROR', { retryStrategy: RetryStrategyBuilder.fixedStrategy({ maxRetries: 1, onlyOn: 'NETWORK_ERROR' }) }, []],
  [
    'rejects a URL without scheme',
    request({ url: 'example.com' }),
    [error('request.url', '"request.url" must be an absolute http:// or https:// URL, got "example.com"', 'Did you mean "https://example.com"? {{NAME}} placeholders are allowed, e.g. "{{BASE_URL}}/health".')],
  ],
  [
    'rejects an assertion on anything but the status code',
    request({ assertions: [{ source: 'TEXT_BODY', comparison: 'EQUALS', property: '', target: 'ok', regex: null }] }),
    [error('request.assertions[0].source', '"request.assertions[0].source" must be [STATUS_CODE]', 'Build assertions with UrlAssertionBuilder, e.g. UrlAssertionBuilder.statusCode().equals(200); for other assertions use an ApiCheck.')],
  ],
  ['accepts a sub-minute frequency, as the real service does', { frequency: Frequency.EVERY_10S }, []],
  [
    'rejects a sub-minute offset other than 10, 20, 30',
    { frequency: 0, frequencyOffset: 15 },
    [error('frequencyOffset', '"frequencyOffset" must be 10, 20 or 30 when frequency is 0', 'frequencyOffset spreads runs over time: 10, 20 or 30 with frequency 0, 1..frequency×10 up to an hour, 1..frequency/60 above.')],
  ],
  [
    'rejects doubleCheck, as Checkly monitors do',
    { doubleCheck: true } as Partial<UrlMonitorProps>,
    [error('doubleCheck', '"doubleCheck" is not supported by UrlMonitor', 'Use retryStrategy instead, e.g. RetryStrategyBuilder.fixedStrategy({ maxRetries: 1 }), or RetryStrategyBuilder.noRetries().')],
  ],
  ['rejects maxResponseTime above 30000', { maxResponseTime: 31000 }, [error('maxResponseTime', '"maxResponseTime" must be less than or equal to 30000', "A URL monitor's response-time limits are milliseconds between 0 and 30000.")]],
  [
    'rejects degradedResponseTime above the default maxResponseTime',
    { degradedResponseTime: 6000 },
    [error('degradedResponseTime', '"degradedResponseTime" (6000) must be less than or equal to the default "maxResponseTime" (5000)', 'Set "maxResponseTime" too if the check may take longer.')],
  ],
  [
    'rejects a method other than GET',
    request({ method: 'POST' }),
    [error('request.method', '"request.method" must be GET: a URL monitor only sends GET requests, got "POST"', 'Leave out method, or use an ApiCheck for other methods.')],
  ],
  ['accepts method GET, as Checkly synthesises it', request({ method: 'GET' }), []],
  ['warns about an unknown request prop (Checkly ignores it)', request({ headers: [] }), [warning('request.headers', '"request.headers" is not a prop of the request', 'Known props: url, ipFamily, followRedirects, skipSSL, assertions, method.')]],
];

describe('UrlMonitor rules', () => {
  it.each(rules)('%s', async (_name, props, expected) => {
    const project = await load(() => {
      new UrlMonitor('home', { ...base, ...props }); // @at:rule
    });
    const source = markerLocation(import.meta.url, 'rule');
    expect(project.validate()).toEqual(expected.map((e) => ({ ...e, address: 'url-monitor.home', source })));
  });
});

describe('UrlMonitor payload', () => {
  it('synthesises the create body of POST /v1/checks/url: a GET with its defaults', async () => {
    const project = await load(() => {
      new UrlMonitor('home', { ...base, frequency: Frequency.EVERY_5M, request: { url: new URL('https://example.com/health'), assertions: [UrlAssertionBuilder.statusCode().equals(200)] } });
    });
    expect(specOf(project, 'url-monitor.home').payload).toMatchObject({
      checkType: 'URL',
      name: 'Homepage',
      doubleCheck: false,
      frequency: 5,
      degradedResponseTime: 3000,
      maxResponseTime: 5000,
      request: {
        method: 'GET',
        url: 'https://example.com/health',
        followRedirects: true,
        skipSSL: false,
        ipFamily: 'IPv4',
        assertions: [{ source: 'STATUS_CODE', comparison: 'EQUALS', property: '', target: '200', regex: null }],
      },
    });
  });
});
