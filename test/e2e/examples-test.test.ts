/**
 * `vigil test` on the examples as a user would run it before deploying, with the monitored sites
 * replaced by loopback stand-ins through the variables the examples read (`-e`), not by editing code.
 */
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, vigil } from '../support/cli.js';

let site: Server;
let base: string;

/** Answers what the examples' checks expect of the shop, the API and the admin site. */
function standIn(request: import('node:http').IncomingMessage, response: import('node:http').ServerResponse): void {
  const url = new URL(request.url ?? '/', 'http://stand-in');
  const json = (status: number, body: unknown) => response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  if (url.pathname === '/') response.writeHead(200, { 'content-type': 'text/html' }).end('<h1>shop</h1>');
  else if (url.pathname === '/api/products') json(200, [{ id: 1 }]);
  else if (url.pathname === '/payments/health') json(200, { status: 'ok' });
  else if (url.pathname === '/payments/refunds') json(200, []);
  else if (url.pathname === '/search') json(200, { results: [{ id: 'tea' }] });
  else if (url.pathname === '/products/tea-001') json(200, { sku: 'tea-001' });
  else if (url.pathname === '/api/basket' && request.method === 'POST') json(201, { items: 1 });
  else if (url.pathname === '/health') json(200, { ok: true });
  else json(404, { error: 'not found' });
}

beforeAll(async () => {
  site = createServer(standIn);
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
});

afterAll(async () => {
  site.closeAllConnections();
  await new Promise((resolve) => site.close(resolve));
});

async function testExample(name: string, variables: string[]) {
  const copy = await mkdtemp(path.join(tmpdir(), `vigil-example-${name}-`));
  try {
    await cp(path.join(REPO_ROOT, 'examples', name), copy, { recursive: true, filter: (source) => !/[\\/](node_modules|\.vigil)$/.test(source) });
    const args = ['test', '--reporter', 'json', ...variables.flatMap((variable) => ['-e', `${variable}=${base}`])];
    const result = await vigil(args, { cwd: copy });
    return { ...result, document: JSON.parse(result.stdout || '{}') };
  } finally {
    await rm(copy, { recursive: true, force: true });
  }
}

describe('vigil test on the examples', () => {
  it('passes every check of the quickstart', async () => {
    const result = await testExample('quickstart', ['GROUP_BASE_URL']);
    expect(result.stderr).toBe('');
    expect(result.document.summary).toMatchObject({ total: 2, passed: 2, failed: 0 });
    expect(result.code).toBe(0);
  }, 120_000);

  it('passes every check of the advanced example, API and multi-step', async () => {
    const result = await testExample('advanced', ['GROUP_BASE_URL', 'STORE_URL', 'SEARCH_ADMIN_URL']);
    const failures = (result.document.results ?? []).filter((item: { passed: boolean }) => !item.passed);
    expect(failures.map((item: { address: string; error: string }) => `${item.address}: ${item.error}`)).toEqual([]);
    expect(result.document.summary).toMatchObject({ total: 5, passed: 5, failed: 0 });
    expect(result.code).toBe(0);
  }, 240_000);
});
