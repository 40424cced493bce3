import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createScriptPool, type ScriptPool } from './scripts/index.js';
import type { ScriptRequest } from './types.js';

const signal = new AbortController().signal;
const request: ScriptRequest = { url: 'http://127.0.0.1:1/', method: 'GET', headers: {}, queryParameters: {}, body: '' };
let allowed: http.Server;
let denied: http.Server;
let allowedPort: number;
let deniedPort: number;
let deniedConnections = 0;
let pool: ScriptPool;

function listen(server: http.Server, host: string): Promise<number> {
  return new Promise((resolve) => server.listen(0, host, () => resolve((server.address() as AddressInfo).port)));
}

beforeAll(async () => {
  const handler: http.RequestListener = (_request, response) => response.writeHead(200).end('reached');
  allowed = http.createServer(handler);
  denied = http.createServer(handler);
  denied.on('connection', () => (deniedConnections += 1));
  allowedPort = await listen(allowed, '127.0.0.1');
  deniedPort = await listen(denied, '127.0.0.2');
  pool = createScriptPool({ size: 1, timeoutMs: 5_000, denyNetworks: ['127.0.0.2/32', '10.0.0.0/8'] });
  await pool.warm();
});

afterAll(async () => {
  await pool.close();
  for (const server of [allowed, denied]) await new Promise((resolve) => server.close(resolve));
});

/** Runs a setup script and returns what it logged. */
async function logsOf(code: string): Promise<string[]> {
  const outcome = await pool.runSetup({ code, request, env: {}, signal });
  expect(outcome.error).toBeNull();
  return outcome.logs.map((line) => line.msg);
}

const refused = "connection to 127.0.0.2 refused by the service's network policy (--deny-network 127.0.0.2/32)";

describe('setup and teardown scripts under the network policy', () => {
  it.each([
    ['fetch', `try { await fetch('http://127.0.0.2:PORT/'); } catch (error) { console.log(error.cause?.message ?? error.message); }`],
    ['http.get', `const http = require('node:http'); await new Promise((resolve) => http.get('http://127.0.0.2:PORT/', resolve).on('error', (error) => { console.log(error.message); resolve(); }));`],
    ['net.connect(port, host)', `const net = require('node:net'); await new Promise((resolve) => net.connect(PORT, '127.0.0.2').on('error', (error) => { console.log(error.message); resolve(); }).on('connect', resolve));`],
    ['new net.Socket().connect({ host, port })', `const net = require('node:net'); await new Promise((resolve) => new net.Socket().connect({ host: '127.0.0.2', port: PORT }).on('error', (error) => { console.log(error.message); resolve(); }).on('connect', resolve));`],
  ])('refuse a denied address reached through %s, before connecting', async (_name, code) => {
    expect(await logsOf(code.replaceAll('PORT', String(deniedPort)))).toEqual([refused]);
    expect(deniedConnections).toBe(0);
  });

  it('resolve names through the policy: a name resolving only to denied addresses is refused', async () => {
    const code = `const dns = require('node:dns'); const net = require('node:net');
      const lookup = (_name, options, callback) => options.all ? callback(null, [{ address: '10.1.2.3', family: 4 }]) : callback(null, '10.1.2.3', 4);
      await new Promise((resolve) => net.connect({ host: 'internal.test', port: 80, lookup }).on('error', (error) => { console.log(error.message); resolve(); }));`;
    expect(await logsOf(code)).toEqual(["connection to 10.1.2.3 refused by the service's network policy (--deny-network 10.0.0.0/8)"]);
  });

  it('cannot be replaced by the script', async () => {
    const code = `const net = require('node:net'); const before = net.Socket.prototype.connect;
      try { net.Socket.prototype.connect = function () { return this; }; } catch { /* strict code throws, sloppy code is ignored */ }
      console.log(String(net.Socket.prototype.connect === before));`;
    expect(await logsOf(code)).toEqual(['true']);
  });

  it('let allowed addresses through', async () => {
    expect(await logsOf(`console.log(await (await fetch('http://127.0.0.1:${allowedPort}/')).text());`)).toEqual(['reached']);
  });
});
