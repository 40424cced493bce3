import { describe, expect, it } from 'vitest';
import { DnsCheck, DnsCheckCreate, DnsCheckUpdate } from './dns-checks.js';
import { expectAccepted, expectRejected } from './test-support.js';

const dns = (request: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) => ({
  name: 'resolver',
  request: { recordType: 'A', query: 'example.com', ...request },
  ...extra,
});

describe('DnsCheckCreate (the real OpenAPI ChecksV1DnsMonitorCreate)', () => {
  it('fills the documented defaults: UDP, no assertions, 500/1000 ms, checkType DNS', () => {
    const parsed = expectAccepted(DnsCheckCreate, dns());
    expect(parsed).toMatchObject({
      checkType: 'DNS',
      frequency: 10,
      degradedResponseTime: 500,
      maxResponseTime: 1000,
      request: { recordType: 'A', query: 'example.com', protocol: 'UDP', assertions: [] },
    });
    expect(parsed.request.port).toBeUndefined();
    expect(parsed.request.nameServer).toBeUndefined();
  });

  const valid: Array<[string, Record<string, unknown>]> = [
    ['every record type', dns({ recordType: 'HTTPS' })],
    ['a name server, port and TCP', dns({ nameServer: '127.0.0.1', port: 5353, protocol: 'TCP' })],
    ['every assertion source', dns({ assertions: ['RESPONSE_CODE', 'RESPONSE_TIME', 'TEXT_ANSWER', 'JSON_ANSWER'].map((source) => ({ source, comparison: 'EQUALS', target: 'x' })) })],
    ['response times at 5000', dns({}, { degradedResponseTime: 5000, maxResponseTime: 5000 })],
    ['frequency 0 with offset 10, as the real document allows', dns({}, { frequency: 0, frequencyOffset: 10 })],
  ];
  it.each(valid)('accepts %s', (_name, input) => {
    expectAccepted(DnsCheckCreate, input);
  });

  const invalid: Array<[string, unknown, string[], string]> = [
    ['a missing record type', { name: 'x', request: { query: 'example.com' } }, ['request.recordType'], '"request.recordType" is required'],
    ['an unknown record type', dns({ recordType: 'SRV' }), ['request.recordType'], '"request.recordType" must be one of [A, AAAA, CNAME, MX, NS, TXT, SOA, HTTPS]'],
    ['an empty query', dns({ query: '' }), ['request.query'], '"request.query" is not allowed to be empty'],
    ['port 0', dns({ port: 0 }), ['request.port'], '"request.port" must be greater than or equal to 1'],
    ['port 65536', dns({ port: 65536 }), ['request.port'], '"request.port" must be less than or equal to 65535'],
    ['an unknown protocol', dns({ protocol: 'QUIC' }), ['request.protocol'], '"request.protocol" must be one of [UDP, TCP]'],
    ['an API assertion source', dns({ assertions: [{ source: 'STATUS_CODE', comparison: 'EQUALS' }] }), ['request.assertions.0.source'], '"request.assertions[0].source" must be one of [RESPONSE_CODE, RESPONSE_TIME, TEXT_ANSWER, JSON_ANSWER]'],
    ['maxResponseTime over 5000', dns({}, { maxResponseTime: 5001 }), ['maxResponseTime'], '"maxResponseTime" must be less than or equal to 5000'],
    ['frequency 0 with an offset that is not 10, 20 or 30', dns({}, { frequency: 0, frequencyOffset: 15 }), ['frequencyOffset'], '"frequencyOffset" must be 10, 20 or 30 when frequency is 0'],
  ];
  it.each(invalid)('rejects %s', (_name, input, keys, message) => {
    expectRejected(DnsCheckCreate, input, { keys, message });
  });
});

describe('DnsCheckUpdate and DnsCheck', () => {
  it('an update fills nothing in (PUT merges)', () => {
    expect(expectAccepted(DnsCheckUpdate, { name: 'renamed' })).toEqual({ name: 'renamed' });
  });
  it('a response needs the fields the service adds', () => {
    const created = { ...expectAccepted(DnsCheckCreate, dns()), id: 'c1', frequencyOffset: 3, alertChannels: { email: [], webhook: [], slack: [], sms: [] }, created_at: '2026-01-01T00:00:00Z', updated_at: null };
    expect(DnsCheck.safeParse(created).success).toBe(true);
  });
});

describe('DnsCheckCreate is closed, as the real document has it (additionalProperties: false)', () => {
  it.each<[string, Record<string, unknown>, string[], string]>([
    ['an unknown property', dns({}, { colour: 'blue' }), ['colour'], '"colour" is not allowed'],
    ['two unknown properties', dns({}, { colour: 'blue', size: 1 }), ['colour', 'size'], '"colour" is not allowed. "size" is not allowed'],
    ['an unknown retryStrategy property', dns({}, { retryStrategy: { type: 'FIXED', jitter: true } }), ['retryStrategy.jitter'], '"retryStrategy.jitter" is not allowed'],
    [
      'an unknown triggerIncident property',
      dns({}, { triggerIncident: { serviceId: 's', severity: 'MAJOR', name: 'n', description: '', notifySubscribers: false, colour: 'red' } }),
      ['triggerIncident.colour'],
      '"triggerIncident.colour" is not allowed',
    ],
  ])('refuses %s, naming it', (_name, input, keys, message) => {
    expectRejected(DnsCheckCreate, input, { keys, message });
  });

  it('accepts, and drops, properties the document lists that a DNS monitor does not use', () => {
    const parsed = expectAccepted(DnsCheckCreate, dns({}, { aiAutoRepairEnabled: true, script: 'x' })) as Record<string, unknown>;
    expect(JSON.parse(JSON.stringify(parsed))).not.toHaveProperty('script');
    expect(JSON.parse(JSON.stringify(parsed))).not.toHaveProperty('aiAutoRepairEnabled');
  });

  it('requires name on PUT, as the document does', () => {
    expectRejected(DnsCheckUpdate, { frequency: 5 }, { keys: ['name'], message: '"name" is required' });
    expectAccepted(DnsCheckUpdate, { name: 'resolver', frequency: 5 });
  });
});
