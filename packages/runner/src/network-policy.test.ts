import http from 'node:http';
import net, { type AddressInfo, type LookupFunction } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { json, startTarget, type Target } from './__fixtures__/targets.js';
import { DEFAULT_SERVICE_DENY_NETWORKS, guardLookup, parseNetworkPolicy } from './network-policy.js';
import { createRunner } from './runner.js';
import type { RunContext, WireCheck } from './types.js';

describe('parseNetworkPolicy: which rule denies an address', () => {
  const policy = parseNetworkPolicy(DEFAULT_SERVICE_DENY_NETWORKS);
  it.each([
    ['169.254.169.254', '169.254.0.0/16'],
    ['169.254.0.1', '169.254.0.0/16'],
    ['169.254.255.255', '169.254.0.0/16'],
    ['169.255.0.1', null],
    ['169.253.255.255', null],
    ['::ffff:169.254.169.254', '169.254.0.0/16'],
    ['::ffff:a9fe:a9fe', '169.254.0.0/16'],
    ['[::ffff:a9fe:a9fe]', '169.254.0.0/16'],
    ['fe80::1', 'fe80::/10'],
    ['febf:ffff::1', 'fe80::/10'],
    ['fec0::1', null],
    ['fd00:ec2::254', 'fd00:ec2::254/128'],
    ['fd00:ec2::253', null],
    ['100.100.100.200', '100.100.100.200/32'],
    ['100.100.100.201', null],
    ['168.63.129.16', '168.63.129.16/32'],
    ['127.0.0.1', null],
    ['::1', null],
    ['10.0.0.1', null],
    ['example.com', null],
  ])('%s → %s', (address, rule) => {
    expect(policy.deniedBy(address)).toBe(rule);
  });

  it.each([
    [['127.0.0.2'], '127.0.0.2', '127.0.0.2/32'],
    [['127.0.0.2'], '127.0.0.3', null],
    [[' 10.0.0.0/8 '], '10.255.1.2', '10.0.0.0/8'],
    [['0.0.0.0/0'], '8.8.8.8', '0.0.0.0/0'],
    [['0.0.0.0/0'], '::ffff:8.8.8.8', '0.0.0.0/0'],
    [['0.0.0.0/0'], '2001:db8::1', null],
    [['::/0'], '2001:db8::1', '::/0'],
    [['2001:db8::/32', '2001:db8:1::/48'], '2001:db8:1::5', '2001:db8::/32'],
    [['::1'], '::1', '::1/128'],
  ])('rules %j: %s → %s', (rules, address, rule) => {
    expect(parseNetworkPolicy(rules).deniedBy(address)).toBe(rule);
  });

  it.each([
    ['169.254.0.0/33', '"169.254.0.0/33" is not a CIDR: the prefix length must be a whole number from 0 to 32 for an IPv4 address'],
    ['fe80::/129', '"fe80::/129" is not a CIDR: the prefix length must be a whole number from 0 to 128 for an IPv6 address'],
    ['10.0.0.0/', '"10.0.0.0/" is not a CIDR: the prefix length must be a whole number from 0 to 32 for an IPv4 address'],
    ['10.0.0.0/8.5', '"10.0.0.0/8.5" is not a CIDR: the prefix length must be a whole number from 0 to 32 for an IPv4 address'],
    ['10.0.0/8', '"10.0.0/8" is not a CIDR: "10.0.0" is not an IPv4 or IPv6 address (expected e.g. 169.254.0.0/16 or fe80::/10)'],
    ['metadata.google.internal', '"metadata.google.internal" is not a CIDR: "metadata.google.internal" is not an IPv4 or IPv6 address (expected e.g. 169.254.0.0/16 or fe80::/10)'],
    ['', '"" is not a CIDR: "" is not an IPv4 or IPv6 address (expected e.g. 169.254.0.0/16 or fe80::/10)'],
  ])('refuses the malformed rule %j', (rule, message) => {
    expect(() => parseNetworkPolicy([rule])).toThrow(message);
  });
});

describe('guardLookup: a name resolving to several addresses', () => {
  const policy = parseNetworkPolicy(['169.254.0.0/16', 'fe80::/10']);
  const fakeLookup = (addresses: Array<{ address: string; family: number }>): LookupFunction =>
    ((_hostname: string, _options: unknown, callback: (error: null, addresses: unknown) => void) => callback(null, addresses)) as unknown as LookupFunction;
  const resolve = (addresses: Array<{ address: string; family: number }>, all: boolean) =>
    new Promise<{ error: Error | null; result: unknown }>((done) =>
      guardLookup(policy, fakeLookup(addresses))('target.test', { all }, ((error: Error | null, address: unknown, family?: number) =>
        done({ error, result: all ? address : { address, family } })) as Parameters<LookupFunction>[2]),
    );
  const v4 = (address: string) => ({ address, family: 4 });
  const v6 = (address: string) => ({ address, family: 6 });

  it.each([
    ['an allowed address alone', [v4('127.0.0.1')], { address: '127.0.0.1', family: 4 }],
    ['the allowed one after a denied one', [v4('169.254.169.254'), v4('127.0.0.1')], { address: '127.0.0.1', family: 4 }],
    ['the first allowed one of several', [v4('127.0.0.2'), v4('169.254.1.1'), v6('::1')], { address: '127.0.0.2', family: 4 }],
    ['an allowed IPv6 address after a denied link-local one', [v6('fe80::1'), v6('::1')], { address: '::1', family: 6 }],
  ])('dials %s', async (_name, addresses, expected) => {
    expect(await resolve(addresses, false)).toEqual({ error: null, result: expected });
  });

  it('hands `all` lookups (Happy Eyeballs) only the allowed addresses', async () => {
    expect(await resolve([v4('169.254.169.254'), v4('127.0.0.1'), v6('fe80::1'), v6('::1')], true)).toEqual({ error: null, result: [v4('127.0.0.1'), v6('::1')] });
  });

  it.each([
    ['one denied address', [v4('169.254.169.254')], 'connection to 169.254.169.254 refused by the service\'s network policy (--deny-network 169.254.0.0/16)'],
    ['only denied addresses', [v6('fe80::1'), v4('169.254.1.1')], 'connection to fe80::1 refused by the service\'s network policy (--deny-network fe80::/10)'],
    ['an IPv4-mapped denied address', [v6('::ffff:169.254.169.254')], 'connection to ::ffff:169.254.169.254 refused by the service\'s network policy (--deny-network 169.254.0.0/16)'],
  ])('refuses a name with %s', async (_name, addresses, message) => {
    for (const all of [false, true]) {
      const { error } = await resolve(addresses, all);
      expect(error?.message).toBe(message);
      expect((error as NodeJS.ErrnoException).code).toBe('ERR_VIGIL_NETWORK_POLICY');
    }
  });
});

describe('API checks under a network policy (loopback targets only)', () => {
  const context: RunContext = { location: 'local', variables: [], retries: 0 };
  let allowed: Target;
  let deniedServer: http.Server;
  let deniedPort: number;
  let deniedConnections = 0;

  beforeAll(async () => {
    deniedServer = http.createServer((_request, response) => response.writeHead(200).end('should never be reached'));
    deniedServer.on('connection', () => (deniedConnections += 1));
    await new Promise<void>((resolve) => deniedServer.listen(0, '127.0.0.2', resolve));
    deniedPort = (deniedServer.address() as AddressInfo).port;
    allowed = await startTarget({
      '/ok': json(200, { ok: true }),
      '/to-denied': (_request, response) => response.writeHead(302, { location: `http://127.0.0.2:${deniedPort}/ok` }).end(),
    });
  });

  afterAll(async () => {
    await allowed.close();
    await new Promise((resolve) => deniedServer.close(resolve));
  });

  afterEach(() => {
    vi.restoreAllMocks();
  });

  const check = (url: string, extra: Record<string, unknown> = {}): WireCheck => ({ checkType: 'API', name: 'probe', request: { method: 'GET', url, followRedirects: true }, ...extra });

  it('fails a run to a denied literal IP with the policy error and opens no connection', async () => {
    const runner = createRunner({ denyNetworks: ['127.0.0.2/32'] });
    const { final } = await runner.run(check(`http://127.0.0.2:${deniedPort}/ok`), context);
    await runner.close();
    const message = "connection to 127.0.0.2 refused by the service's network policy (--deny-network 127.0.0.2/32)";
    expect(final).toMatchObject({ hasFailures: true, hasErrors: false, error: message });
    expect(final.apiCheckResult?.requestError).toBe(message);
    expect(deniedConnections).toBe(0);
  });

  it('checks every redirect hop: a redirect to a denied address fails without reaching it', async () => {
    const runner = createRunner({ denyNetworks: ['127.0.0.2/32'] });
    const { final } = await runner.run(check(`${allowed.url}/to-denied`), context);
    await runner.close();
    expect(final.error).toBe("connection to 127.0.0.2 refused by the service's network policy (--deny-network 127.0.0.2/32)");
    expect(allowed.seen.map((request) => request.url)).toContain('/to-denied');
    expect(deniedConnections).toBe(0);
  });

  it('checks a hostname after DNS resolution (localhost → 127.0.0.1)', async () => {
    const runner = createRunner({ denyNetworks: ['127.0.0.0/8'] });
    const before = allowed.seen.length;
    const { final } = await runner.run(check(`http://localhost:${allowed.port}/ok`, { request: { method: 'GET', url: `http://localhost:${allowed.port}/ok`, ipFamily: 'IPv4' } }), context);
    await runner.close();
    expect(final.error).toBe("connection to 127.0.0.1 refused by the service's network policy (--deny-network 127.0.0.0/8)");
    expect(allowed.seen.length).toBe(before);
  });

  it('lets an allowed loopback address through under the service defaults', async () => {
    const runner = createRunner({ denyNetworks: DEFAULT_SERVICE_DENY_NETWORKS });
    const { final } = await runner.run(check(`${allowed.url}/ok`), context);
    await runner.close();
    expect(final).toMatchObject({ hasFailures: false, error: null });
  });

  it.each([
    ['http://169.254.169.254/latest/meta-data/', '169.254.169.254', '169.254.0.0/16'],
    ['http://[::ffff:169.254.169.254]/latest/meta-data/', '::ffff:a9fe:a9fe', '169.254.0.0/16'],
    ['http://2852039166/', '169.254.169.254', '169.254.0.0/16'],
    ['http://[fe80::1]:8080/', 'fe80::1', 'fe80::/10'],
    ['http://[fd00:ec2::254]/latest/meta-data/', 'fd00:ec2::254', 'fd00:ec2::254/128'],
    ['http://100.100.100.200/latest/meta-data/', '100.100.100.200', '100.100.100.200/32'],
  ])('refuses %s under the service defaults before any socket connects', async (url, address, rule) => {
    // Never dial out: a connect that got past the policy fails the test instead of leaving loopback.
    const connect = vi.spyOn(net.Socket.prototype, 'connect').mockImplementation(() => {
      throw new Error('the policy let a non-loopback connection through');
    });
    const runner = createRunner({ denyNetworks: DEFAULT_SERVICE_DENY_NETWORKS });
    const { final } = await runner.run(check(url), context);
    await runner.close();
    expect(final.error).toBe(`connection to ${address} refused by the service's network policy (--deny-network ${rule})`);
    expect(connect).not.toHaveBeenCalled();
  });

  it('refuses to create a runner with a malformed rule', () => {
    expect(() => createRunner({ denyNetworks: ['169.254.0.0/99'] })).toThrow('"169.254.0.0/99" is not a CIDR');
  });
});
