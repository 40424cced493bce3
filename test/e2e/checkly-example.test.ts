/**
 * examples/checkly-project, a project written as the Checkly CLI lays it out (checkly.config.ts,
 * __checks__/*.check.ts importing checkly/constructs, a spec picked up by multiStepChecks.testMatch),
 * runs through validate, plan and test with no edit: a copy of it is used as it is, the shop it
 * watches replaced by loopback stand-ins through variables and the environment.
 */
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTcpServer, type Server as TcpServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, vigil } from '../support/cli.js';

let shop: Server;
let tcp: TcpServer;
let shopUrl: string;
let tcpPort: number;
let copy: string;

function standIn(request: IncomingMessage, response: ServerResponse): void {
  const url = new URL(request.url ?? '/', 'http://stand-in');
  const json = (status: number, body: unknown) => response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  if (url.pathname === '/') response.writeHead(200, { 'content-type': 'text/html' }).end('<h1>Danube</h1>');
  else if (url.pathname === '/api/books') json(200, [{ id: 1, title: 'Haben oder haben' }]);
  else if (url.pathname === '/api/cart' && request.method === 'POST') json(201, { items: 1 });
  else if (url.pathname === '/api/search') json(200, [{ id: 1 }]);
  else json(404, { error: 'not found' });
}

beforeAll(async () => {
  shop = createServer(standIn);
  await new Promise<void>((resolve) => shop.listen(0, '127.0.0.1', resolve));
  shopUrl = `http://127.0.0.1:${(shop.address() as AddressInfo).port}`;
  tcp = createTcpServer((socket) => socket.end());
  await new Promise<void>((resolve) => tcp.listen(0, '127.0.0.1', resolve));
  tcpPort = (tcp.address() as AddressInfo).port;
  copy = await mkdtemp(path.join(tmpdir(), 'vigil-checkly-example-'));
  await cp(path.join(REPO_ROOT, 'examples', 'checkly-project'), copy, { recursive: true, filter: (source) => !/[\\/](node_modules|\.vigil)$/.test(source) });
});

afterAll(async () => {
  shop.closeAllConnections();
  await new Promise((resolve) => shop.close(resolve));
  await new Promise((resolve) => tcp.close(resolve));
  await rm(copy, { recursive: true, force: true });
});

/** What the uptime monitors read from the environment at load time, pointed at the stand-ins. */
const environment = () => ({ SHOP_HOST: '127.0.0.1', SHOP_PORT: String(tcpPort), SHOP_HOME_URL: `${shopUrl}/` });

describe('the Checkly-style example project', () => {
  it('validates with no edit: every construct loads', async () => {
    const result = await vigil(['validate'], { cwd: copy });
    expect(result.stderr).toBe('');
    expect(result.stdout.trim()).toBe('✔ 10 resources valid');
    expect(result.code).toBe(0);
  }, 60_000);

  it('plans every resource against the embedded local service', async () => {
    const result = await vigil(['plan', '--local'], { cwd: copy });
    expect(result.code).toBe(0);
    for (const address of [
      'alert-channel.email-channel-1',
      'alert-channel.teams-channel-1',
      'check-group.shop-group',
      'api-check.books-api',
      'multistep-check.checkout-flow',
      'multistep-check.__checks__/flows/search.spec.ts',
      'tcp-monitor.shop-tcp',
      'url-monitor.shop-home',
      'heartbeat-monitor.nightly-export',
      'maintenance-window.sunday-deploys',
    ]) {
      expect(result.stdout).toContain(`+ ${address}\n`);
    }
    expect(result.stdout).toContain('Plan: 10 to add, 0 to change, 0 to destroy.');
    expect(result.stdout).toContain('"WEBHOOK_MSTEAMS"');
  }, 90_000);

  it('tests every check against the stand-ins in the config’s runLocation; the heartbeat is skipped', async () => {
    const result = await vigil(['test', '--reporter', 'json', '-e', `SHOP_URL=${shopUrl}`], { cwd: copy, env: environment() });
    const document = JSON.parse(result.stdout || '{}') as { summary?: unknown; results?: Array<{ address: string; passed: boolean; error: string | null; runLocation: string; status: string }> };
    const failures = (document.results ?? []).filter((item) => !item.passed);
    expect(failures.map((item) => `${item.address}: ${item.error}`)).toEqual([]);
    expect(document.summary).toMatchObject({ total: 6, passed: 5, failed: 0, skipped: 1 });
    expect(new Set(document.results?.filter((item) => item.status !== 'skipped').map((item) => item.runLocation))).toEqual(new Set(['eu-west-1']));
    expect(result.code).toBe(0);
  }, 240_000);
});
