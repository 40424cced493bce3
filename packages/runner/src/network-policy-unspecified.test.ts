/**
 * The unspecified addresses: `0.0.0.0` (and all of 0.0.0.0/8), `0`, `::`, `::ffff:0.0.0.0` are
 * connected by Linux to this host's loopback, so a policy denying loopback must deny them too, in
 * every place that dials: API and URL checks (and their redirects), TCP monitors, a DNS monitor's
 * name server, and user scripts (fetch, net, dgram, their own name servers). Targets listen on
 * 127.0.0.1 and ::1 and count connections: a bypass shows up as a count above zero.
 */
import dgram from 'node:dgram';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseNetworkPolicy } from './network-policy.js';
import { createRunner } from './runner.js';
import { createScriptPool, type ScriptPool } from './scripts/index.js';
import type { RunContext, Runner, WireCheck } from './types.js';

const DENY_LOOPBACK = ['127.0.0.0/8', '::1'];
/** Checks' policy leaves 127.0.0.2 allowed, so a redirect can start there. */
const CHECK_DENY = ['127.0.0.1/32', '::1'];
const context: RunContext = { location: 'local', variables: [], retries: 0 };
const refusedAs = (address: string, rule = '127.0.0.0/8') => `connection to ${address} refused by the service's network policy (--deny-network ${rule})`;

let v4: http.Server;
let v6: http.Server;
let port: number;
let connections = 0;
let udp: dgram.Socket;
let udpPort: number;
let datagrams = 0;
let runner: Runner;
let pool: ScriptPool;
let redirector: http.Server;
let redirectorPort: number;

function listen(server: http.Server, host: string, wanted = 0): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(wanted, host, () => resolve((server.address() as AddressInfo).port));
  });
}

beforeAll(async () => {
  const handler: http.RequestListener = (_request, response) => response.writeHead(200).end('reached loopback');
  v4 = http.createServer(handler);
  v6 = http.createServer(handler);
  for (const server of [v4, v6]) server.on('connection', () => (connections += 1));
  port = await listen(v4, '127.0.0.1');
  await listen(v6, '::1', port);
  udp = dgram.createSocket('udp4');
  udp.on('message', () => (datagrams += 1));
  await new Promise<void>((resolve) => udp.bind(0, '127.0.0.1', resolve));
  udpPort = udp.address().port;
  // Outside the policy's reach on purpose (its own address is allowed): it only points elsewhere.
  redirector = http.createServer((_request, response) => response.writeHead(302, { location: `http://0.0.0.0:${port}/` }).end());
  redirectorPort = await listen(redirector, '127.0.0.2');
  runner = createRunner({ denyNetworks: CHECK_DENY });
  pool = createScriptPool({ size: 1, timeoutMs: 10_000, denyNetworks: DENY_LOOPBACK });
});

afterAll(async () => {
  await runner.close();
  await pool.close();
  udp.close();
  for (const server of [v4, v6, redirector]) await new Promise((resolve) => server.close(resolve));
});

describe('the policy matches unspecified addresses as loopback', () => {
  const policy = parseNetworkPolicy(DENY_LOOPBACK);
  it.each([
    ['0.0.0.0', '127.0.0.0/8'],
    ['0.1.2.3', '127.0.0.0/8'],
    ['::', '127.0.0.0/8'],
    ['[::]', '127.0.0.0/8'],
    ['0:0:0:0:0:0:0:0', '127.0.0.0/8'],
    ['::ffff:0.0.0.0', '127.0.0.0/8'],
    ['[::ffff:0.0.0.0]', '127.0.0.0/8'],
    ['1.0.0.0', null],
    ['::2', null],
  ])('%s → %s', (address, rule) => {
    expect(policy.deniedBy(address)).toBe(rule);
  });

  it('as IPv6 loopback when only ::1 is denied', () => {
    expect(parseNetworkPolicy(['::1']).deniedBy('0.0.0.0')).toBe('::1/128');
  });
});

describe('checks cannot reach loopback through an unspecified address', () => {
  const api = (url: string): WireCheck => ({ checkType: 'API', name: 'probe', request: { method: 'GET', url, followRedirects: true } });

  it.each([
    ['http://0.0.0.0:PORT/', '0.0.0.0'],
    ['http://0:PORT/', '0.0.0.0'],
    ['http://[::]:PORT/', '::'],
    ['http://[::ffff:0.0.0.0]:PORT/', '::ffff:0:0'],
  ])('API check to %s', async (url, address) => {
    const { final } = await runner.run(api(url.replace('PORT', String(port))), context);
    expect(final.error).toBe(refusedAs(address, '127.0.0.1/32'));
    expect(connections).toBe(0);
  });

  it('a redirect to 0.0.0.0', async () => {
    const { final } = await runner.run(api(`http://127.0.0.2:${redirectorPort}/`), context);
    expect(final.error).toBe(refusedAs('0.0.0.0', '127.0.0.1/32'));
    expect(connections).toBe(0);
  });

  it('URL monitor to http://0.0.0.0', async () => {
    const { final } = await runner.run({ checkType: 'URL', name: 'probe', request: { url: `http://0.0.0.0:${port}/`, followRedirects: true } }, context);
    expect(final.error).toBe(refusedAs('0.0.0.0', '127.0.0.1/32'));
    expect(connections).toBe(0);
  });

  it.each([
    ['0', '0.0.0.0'],
    ['0.0.0.0', '0.0.0.0'],
    ['::', '::'],
  ])('TCP monitor to host %s', async (hostname, address) => {
    const { final } = await runner.run({ checkType: 'TCP', name: 'probe', request: { hostname, port } }, context);
    const shown = hostname.includes(':') ? `[${hostname}]` : hostname;
    expect(final.error).toBe(`could not connect to ${shown}:${port}: ${refusedAs(address, '127.0.0.1/32')}`);
    expect(connections).toBe(0);
  });

  it('DNS monitor with name server 0.0.0.0', async () => {
    const { final } = await runner.run({ checkType: 'DNS', name: 'probe', request: { recordType: 'A', query: 'example.test', nameServer: '0.0.0.0', port: udpPort } }, context);
    expect(final.error).toBe(refusedAs('0.0.0.0', '127.0.0.1/32'));
    expect(datagrams).toBe(0);
  });
});

describe('scripts cannot reach loopback by any door', () => {
  const request = { url: 'http://example.test/', method: 'GET', headers: {}, queryParameters: {}, body: '' };
  const logsOf = async (code: string) => {
    const outcome = await pool.runSetup({ code: code.replaceAll('PORT', String(port)).replaceAll('UDP', String(udpPort)), request, env: {}, signal: new AbortController().signal });
    expect(outcome.error).toBeNull();
    return outcome.logs.map((line) => line.msg);
  };

  it.each([
    ['fetch to 0.0.0.0', `await fetch('http://0.0.0.0:PORT/').catch((error) => console.log(error.cause?.message))`, refusedAs('0.0.0.0')],
    ['fetch to [::]', `await fetch('http://[::]:PORT/').catch((error) => console.log(error.cause?.message))`, refusedAs('::')],
    ['net.connect to "0"', `await new Promise((resolve) => require('node:net').connect(PORT, '0').on('error', (error) => { console.log(error.message); resolve(); }).on('connect', resolve))`, refusedAs('0.0.0.0')],
    ['dgram to 0.0.0.0', `const s = require('node:dgram').createSocket('udp4'); await new Promise((resolve) => s.send('x', UDP, '0.0.0.0', (error) => { console.log(error?.message); s.close(); resolve(); }))`, refusedAs('0.0.0.0')],
    ['dgram to 127.0.0.1', `const s = require('node:dgram').createSocket('udp4'); await new Promise((resolve) => s.send('x', UDP, '127.0.0.1', (error) => { console.log(error?.message); s.close(); resolve(); }))`, refusedAs('127.0.0.1')],
    ['dgram connect to localhost', `const s = require('node:dgram').createSocket('udp4'); await new Promise((resolve) => { s.on('error', (error) => { console.log(error.message); s.close(); resolve(); }); s.connect(UDP, 'localhost'); })`, refusedAs('127.0.0.1')],
    ['its own name server', `try { require('node:dns').setServers(['0.0.0.0:UDP']); } catch (error) { console.log(error.message); }`, refusedAs('0.0.0.0')],
    ['a Resolver of its own', `try { new (require('node:dns').promises.Resolver)().setServers(['[::1]:53']); } catch (error) { console.log(error.message); }`, refusedAs('::1', '::1/128')],
  ])('%s is refused', async (_door, code, message) => {
    expect(await logsOf(code)).toEqual([message]);
    expect(connections).toBe(0);
    expect(datagrams).toBe(0);
  });

  it.each([
    ['a child process (curl)', `try { require('node:child_process').execFileSync('curl', ['http://127.0.0.1:PORT/']); console.log('ran'); } catch (error) { console.log(error.code); }`],
    ['a raw tcp_wrap socket', `try { process.binding('tcp_wrap'); console.log('bound'); } catch (error) { console.log(error.code); }`],
    ['a worker thread', `try { new (require('node:worker_threads').Worker)('1', { eval: true }); console.log('started'); } catch (error) { console.log(error.code); }`],
  ])('%s is not available at all', async (_door, code) => {
    expect(await logsOf(code)).toEqual(['ERR_ACCESS_DENIED']);
    expect(connections).toBe(0);
  });
});
