import { DnsCheckCreate } from '@vigil/schema';
import { describe, expect, it } from 'vitest';
import { planImport } from '../import/plan-import.js';
import type { Code } from '../import/code.js';
import type { Candidate } from '../import/select.js';
import { emptyState } from '../state/index.js';

const STATE = emptyState({ project: 'names', target: { baseUrl: 'http://127.0.0.1:1', accountId: '' } });

function dnsMonitor(request: Record<string, unknown>, fields: Record<string, unknown> = {}): Candidate {
  const remote = { ...DnsCheckCreate.parse({ name: 'Resolver', request: { recordType: 'A', query: 'api.example.com', ...request }, ...fields }), id: 'd1', frequencyOffset: 3 };
  return { kind: 'dns-monitor', remoteId: 'd1', remote, name: 'Resolver' };
}

function requestOf(candidate: Candidate): Record<string, unknown> {
  const [resource] = planImport({ candidates: [candidate], state: STATE, projectAddresses: [], env: {}, existingFiles: [] }).resources;
  const props = resource!.props as Extract<Code, { type: 'object' }>;
  const request = props.entries.find(([key]) => key === 'request')![1] as Extract<Code, { type: 'object' }>;
  return Object.fromEntries(request.entries.map(([key, value]) => [key, value.type === 'literal' ? value.value : value.type === 'array' ? value.items.map((item) => (item.type === 'call' ? item.text : item.type)) : value.type]));
}

describe('importing a DNS monitor', () => {
  it('writes the query and only the request fields that differ from the defaults', () => {
    expect(requestOf(dnsMonitor({}))).toEqual({ recordType: 'A', query: 'api.example.com' });
    expect(requestOf(dnsMonitor({ nameServer: '9.9.9.9', port: 53, protocol: 'TCP' }))).toEqual({ recordType: 'A', query: 'api.example.com', nameServer: '9.9.9.9', port: 53, protocol: 'TCP' });
  });

  const assertions: Array<[string, Record<string, unknown>, string]> = [
    ['a response code', { source: 'RESPONSE_CODE', comparison: 'EQUALS', target: 'NXDOMAIN' }, "DnsAssertionBuilder.responseCode().equals('NXDOMAIN')"],
    ['a response time', { source: 'RESPONSE_TIME', comparison: 'LESS_THAN', target: '200' }, 'DnsAssertionBuilder.responseTime().lessThan(200)'],
    ["Checkly's textAnswer(regex)", { source: 'TEXT_ANSWER', comparison: 'CONTAINS', property: 'alpn="([^"]*)"', target: 'h3' }, `DnsAssertionBuilder.textAnswer('alpn="([^"]*)"').contains('h3')`],
    ['a JSON answer path', { source: 'JSON_ANSWER', comparison: 'NOT_EMPTY', property: '$.Answer' }, "DnsAssertionBuilder.jsonAnswer('$.Answer').notEmpty()"],
    ['an assertion no builder yields (a regex) as data', { source: 'TEXT_ANSWER', comparison: 'EQUALS', target: 'x', regex: 'IN (\\S+)' }, 'object'],
    ['a response code with a property as data', { source: 'RESPONSE_CODE', comparison: 'EQUALS', property: 'x', target: 'NOERROR' }, 'object'],
  ];
  it.each(assertions)('writes %s', (_name, assertion, code) => {
    expect(requestOf(dnsMonitor({ assertions: [assertion] })).assertions).toEqual([code]);
  });
});
