import dns from 'node:dns';
import { CheckResult, DnsCheckCreate, type DnsCheckCreateInput } from '@vigil/schema';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpsRecordData, startDnsResponder, type DnsResponder } from '../__fixtures__/dns-responder.js';
import { closedPort } from '../__fixtures__/targets.js';
import { createRunner } from '../runner.js';
import type { RunContext, RunResult } from '../types.js';
import { dnsExecutor } from './dns.js';

const context: RunContext = { location: 'eu-west-1', variables: [], retries: 0 };
const runner = createRunner({ executors: [dnsExecutor] });
let responder: DnsResponder;

beforeAll(async () => {
  responder = await startDnsResponder({
    records: [
      { name: 'api.example.test', type: 'A', ttl: 60, data: '192.0.2.10' },
      { name: 'api.example.test', type: 'AAAA', data: '2001:db8::10' },
      { name: 'www.example.test', type: 'CNAME', data: 'api.example.test' },
      { name: 'example.test', type: 'MX', ttl: 3600, data: { preference: 10, exchange: 'mail.example.test' } },
      { name: 'example.test', type: 'NS', data: 'ns1.example.test' },
      { name: 'example.test', type: 'TXT', data: ['v=spf1 ', 'include:_spf.example.test ~all'] },
      { name: 'example.test', type: 'SOA', data: { mname: 'ns1.example.test', rname: 'admin.example.test', serial: 2026112401, refresh: 7200, retry: 3600, expire: 1209600, minimum: 300 } },
      { name: 'example.test', type: 'HTTPS', data: httpsRecordData(['h3', 'h2']) },
    ],
    rcodes: { 'broken.example.test': 'SERVFAIL' },
  });
});
afterAll(async () => {
  await responder.close();
  await runner.close();
});

function monitor(request: Partial<DnsCheckCreateInput['request']>, extra: Partial<DnsCheckCreateInput> = {}) {
  return DnsCheckCreate.parse({
    name: 'resolver',
    request: { recordType: 'A', query: 'api.example.test', nameServer: '127.0.0.1', port: responder.port, ...request },
    ...extra,
  });
}

async function run(request: Partial<DnsCheckCreateInput['request']>, extra: Partial<DnsCheckCreateInput> = {}, runContext = context): Promise<RunResult> {
  return (await runner.run(monitor(request, extra), runContext)).final;
}

const dnsResult = (result: RunResult) => result.dnsCheckResult as { request: Record<string, unknown>; response: { responseCode: string; textAnswer: string; jsonAnswer: { Answer: Array<{ data: string }> } & Record<string, unknown> }; requestError: string | null };

describe('DNS monitor runs against a loopback name server', () => {
  it('asks over UDP and exposes the response code and the answer as JSON and text', async () => {
    const result = await run({ assertions: [{ source: 'JSON_ANSWER', comparison: 'EQUALS', property: '$.Answer[0].data', target: '192.0.2.10' }] });
    expect(result.hasFailures).toBe(false);
    expect(result.error).toBeNull();
    expect(CheckResult.safeParse(result).success).toBe(true);
    const dns = dnsResult(result);
    expect(dns.response.responseCode).toBe('NOERROR');
    expect(dns.response.jsonAnswer).toEqual({
      Status: 'NOERROR',
      TC: false,
      RD: true,
      RA: true,
      AD: false,
      CD: false,
      Question: [{ name: 'api.example.test.', type: 'A' }],
      Answer: [{ name: 'api.example.test.', type: 'A', TTL: 60, data: '192.0.2.10' }],
    });
    expect(dns.response.textAnswer).toContain(';; ->>HEADER<<- opcode: QUERY, status: NOERROR');
    expect(dns.response.textAnswer).toContain('api.example.test.\t60\tIN\tA\t192.0.2.10');
    expect(dns.request).toMatchObject({ query: 'api.example.test', recordType: 'A', protocol: 'UDP', server: `127.0.0.1:${responder.port}` });
    expect(responder.asked.at(-1)).toBe('udp A api.example.test');
  });

  it('asks over TCP when the protocol says so', async () => {
    const result = await run({ protocol: 'TCP', recordType: 'AAAA' });
    expect(result.hasFailures).toBe(false);
    expect(dnsResult(result).response.jsonAnswer.Answer[0]?.data).toBe('2001:db8::10');
    expect(responder.asked.at(-1)).toBe('tcp AAAA api.example.test');
  });

  const records: Array<[string, string, string]> = [
    ['CNAME', 'www.example.test', 'api.example.test.'],
    ['MX', 'example.test', '10 mail.example.test.'],
    ['NS', 'example.test', 'ns1.example.test.'],
    ['TXT', 'example.test', 'v=spf1 include:_spf.example.test ~all'],
    ['SOA', 'example.test', 'ns1.example.test. admin.example.test. 2026112401 7200 3600 1209600 300'],
    ['HTTPS', 'example.test', '1 . alpn="h3,h2"'],
  ];
  it.each(records)('writes a %s record of %s as "%s"', async (recordType, query, data) => {
    const result = await run({ recordType: recordType as 'A', query });
    expect(result.error).toBeNull();
    expect(dnsResult(result).response.jsonAnswer.Answer[0]?.data).toBe(data);
    expect(dnsResult(result).response.textAnswer).toContain(`\tIN\t${recordType}\t${data}`);
  });

  it("reads Checkly's textAnswer(regex) as the regex's first group", async () => {
    const result = await run({ recordType: 'HTTPS', query: 'example.test', assertions: [{ source: 'TEXT_ANSWER', comparison: 'CONTAINS', property: 'alpn="([^"]*)"', target: 'h3' }] });
    expect(result.hasFailures).toBe(false);
  });

  const codes: Array<[string, string, NonNullable<NonNullable<DnsCheckCreateInput['request']>['assertions']>, string | null]> = [
    ['fails NXDOMAIN when no assertion expects it', 'missing.example.test', [], 'the response code is NXDOMAIN, not NOERROR; assert on it with DnsAssertionBuilder.responseCode() to expect it'],
    ['passes NXDOMAIN that an assertion expects', 'missing.example.test', [{ source: 'RESPONSE_CODE', comparison: 'EQUALS', target: 'NXDOMAIN' }], null],
    ['fails SERVFAIL', 'broken.example.test', [], 'the response code is SERVFAIL, not NOERROR; assert on it with DnsAssertionBuilder.responseCode() to expect it'],
    ['fails a response-code assertion that does not hold', 'api.example.test', [{ source: 'RESPONSE_CODE', comparison: 'EQUALS', target: 'NXDOMAIN' }], 'assertion failed: RESPONSE_CODE EQUALS "NXDOMAIN": actual "NOERROR"'],
    ['fails a JSONPath that does not parse', 'api.example.test', [{ source: 'JSON_ANSWER', comparison: 'EQUALS', property: '$.Answer[', target: 'x' }], 'assertion failed: the JSONPath "$.Answer[" does not parse: unclosed "[" at character 9'],
    ['passes a response time under the limit', 'api.example.test', [{ source: 'RESPONSE_TIME', comparison: 'LESS_THAN', target: '2000' }], null],
  ];
  it.each(codes)('%s', async (_name, query, assertions, error) => {
    const result = await run({ query, assertions });
    expect(result.error).toBe(error);
    expect(result.hasFailures).toBe(error !== null);
    expect(result.hasErrors).toBe(false);
  });

  it('inverts the response-code rule with shouldFail', async () => {
    expect((await run({ query: 'missing.example.test' }, { shouldFail: true })).hasFailures).toBe(false);
    expect((await run({}, { shouldFail: true })).error).toBe('shouldFail is set, so an error response code was expected, but it was NOERROR');
  });

  it('asks the system resolver when no name server is given', async () => {
    // The resolver Node read from /etc/resolv.conf, pointed at the loopback responder for this test.
    const system = dns.getServers();
    dns.setServers([`127.0.0.1:${responder.port}`]);
    try {
      const result = (await runner.run(DnsCheckCreate.parse({ name: 'system', request: { recordType: 'A', query: 'api.example.test' } }), context)).final;
      expect(result.error).toBeNull();
      expect(dnsResult(result).request).toMatchObject({ nameServer: null, port: null, server: `system resolver (127.0.0.1:${responder.port})` });
    } finally {
      dns.setServers(system);
    }
  });

  it('fills {{KEY}} placeholders of the query from the run variables', async () => {
    const result = await run({ query: '{{HOST}}.example.test' }, {}, { ...context, variables: [{ key: 'HOST', value: 'api' }] });
    expect(result.hasFailures).toBe(false);
  });
});

describe('DNS monitor failures before an answer', () => {
  it('gives up at maxResponseTime and says so', async () => {
    const slow = await startDnsResponder({ records: [{ name: 'slow.test', type: 'A', data: '192.0.2.1' }], delayMs: 400 });
    try {
      const result = await (await runner.run(DnsCheckCreate.parse({ name: 'slow', maxResponseTime: 100, degradedResponseTime: 50, request: { recordType: 'A', query: 'slow.test', nameServer: '127.0.0.1', port: slow.port } }), context)).final;
      expect(result.error).toBe(`no response from 127.0.0.1:${slow.port} within maxResponseTime (100 ms)`);
      expect(result.overMaxResponseTime).toBe(true);
      expect(dnsResult(result).requestError).toBe(result.error);
    } finally {
      await slow.close();
    }
  });

  it('counts a slow answer as degraded', async () => {
    const slow = await startDnsResponder({ records: [{ name: 'slow.test', type: 'A', data: '192.0.2.1' }], delayMs: 60 });
    try {
      const result = await (await runner.run(DnsCheckCreate.parse({ name: 'slow', degradedResponseTime: 20, request: { recordType: 'A', query: 'slow.test', nameServer: '127.0.0.1', port: slow.port } }), context)).final;
      expect(result.hasFailures).toBe(false);
      expect(result.isDegraded).toBe(true);
    } finally {
      await slow.close();
    }
  });

  it('says a TCP name server refused the connection, and waits out a silent UDP port', async () => {
    const port = await closedPort();
    const tcp = (await runner.run(DnsCheckCreate.parse({ name: 'closed', request: { recordType: 'A', query: 'x.test', nameServer: '127.0.0.1', port, protocol: 'TCP' } }), context)).final;
    expect(tcp.error).toBe(`TCP query to 127.0.0.1:${port} failed: connect ECONNREFUSED 127.0.0.1:${port}`);
    const udp = (await runner.run(DnsCheckCreate.parse({ name: 'closed', maxResponseTime: 100, degradedResponseTime: 50, request: { recordType: 'A', query: 'x.test', nameServer: '127.0.0.1', port } }), context)).final;
    expect(udp.error).toBe(`no response from 127.0.0.1:${port} within maxResponseTime (100 ms)`);
  });

  it("refuses a name server the network policy denies, with the policy's message", async () => {
    const guarded = createRunner({ executors: [dnsExecutor], denyNetworks: ['127.0.0.1/32'] });
    try {
      const askedBefore = responder.asked.length;
      const result = (await guarded.run(monitor({}), context)).final;
      expect(result.error).toBe("connection to 127.0.0.1 refused by the service's network policy (--deny-network 127.0.0.1/32)");
      expect(responder.asked.length).toBe(askedBefore);
    } finally {
      await guarded.close();
    }
  });
});
