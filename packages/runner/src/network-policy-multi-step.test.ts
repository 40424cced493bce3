import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { multiStepExecutor } from './executors/multi-step.js';
import { createRunner } from './runner.js';

let allowed: http.Server;
let denied: http.Server;
let allowedHits = 0;
let deniedConnections = 0;

function listen(server: http.Server, host: string): Promise<string> {
  return new Promise((resolve) => server.listen(0, host, () => resolve(`http://${host}:${(server.address() as AddressInfo).port}/`)));
}

let allowedUrl: string;
let deniedUrl: string;

beforeAll(async () => {
  allowed = http.createServer((_request, response) => {
    allowedHits += 1;
    response.writeHead(200).end('ok');
  });
  denied = http.createServer((_request, response) => response.writeHead(200).end('reached'));
  denied.on('connection', () => (deniedConnections += 1));
  allowedUrl = await listen(allowed, '127.0.0.1');
  deniedUrl = await listen(denied, '127.0.0.2');
});

afterAll(async () => {
  for (const server of [allowed, denied]) await new Promise((resolve) => server.close(resolve));
});

const spec = `const { test, expect } = require('@playwright/test');
test('reaches the allowed target, then the denied one', async ({ request }) => {
  expect((await request.get(process.env.ALLOWED_URL)).status()).toBe(200);
  await request.get(process.env.DENIED_URL);
});
`;

describe('multi-step specs under the network policy', () => {
  it('refuse a denied address from the spec (Playwright request fixture) without connecting, and let allowed ones through', async () => {
    const runner = createRunner({ executors: [multiStepExecutor], multiStepTimeoutMs: 60_000, denyNetworks: ['127.0.0.2/32'] });
    try {
      const { final } = await runner.run(
        { checkType: 'MULTI_STEP', name: 'policy', script: spec, retryStrategy: null, doubleCheck: false },
        { location: 'local', variables: [{ key: 'ALLOWED_URL', value: allowedUrl }, { key: 'DENIED_URL', value: deniedUrl }] },
      );
      expect(final.hasFailures).toBe(true);
      expect(final.error).toContain("connection to 127.0.0.2 refused by the service's network policy (--deny-network 127.0.0.2/32)");
      expect(allowedHits).toBe(1);
      expect(deniedConnections).toBe(0);
    } finally {
      await runner.close();
    }
  }, 120_000);
});

describe("multi-step specs' pages under the network policy", () => {
  const page = (body: string) => `const { test, expect } = require('@playwright/test');
test('pages', async ({ page, request }) => {
${body}
});
`;

  it("go through the policy proxy: a denied page fails with the policy's error, without connecting", async () => {
    const runner = createRunner({ executors: [multiStepExecutor], multiStepTimeoutMs: 60_000, denyNetworks: ['127.0.0.2/32'] });
    const before = deniedConnections;
    try {
      const script = page("  await page.goto(process.env.ALLOWED_URL);\n  await expect(page.locator('body')).toHaveText('ok');\n  await page.goto(process.env.DENIED_URL);");
      const { final } = await runner.run(
        { checkType: 'MULTI_STEP', name: 'pages', script, retryStrategy: null, doubleCheck: false },
        { location: 'local', variables: [{ key: 'ALLOWED_URL', value: allowedUrl }, { key: 'DENIED_URL', value: deniedUrl }] },
      );
      expect(final.error).toBe(
        `connection to 127.0.0.2 refused by the service's network policy (--deny-network 127.0.0.2/32) — Error: page.goto: net::ERR_EMPTY_RESPONSE at ${deniedUrl} — ` +
          `Call log:; - navigating to "${deniedUrl}", waiting until "load" (at check script:5:14)`,
      );
      expect(deniedConnections).toBe(before);
    } finally {
      await runner.close();
    }
  }, 120_000);

  it('leave the request fixture outside the proxy: with the proxy\'s own address denied, page and request still reach an allowed target', async () => {
    const runner = createRunner({ executors: [multiStepExecutor], multiStepTimeoutMs: 60_000, denyNetworks: ['127.0.0.1/32'] });
    const other = http.createServer((_request, response) => response.writeHead(200).end('ok'));
    const otherUrl = await listen(other, '127.0.0.2');
    try {
      const script = page("  expect((await request.get(process.env.TARGET_URL)).status()).toBe(200);\n  await page.goto(process.env.TARGET_URL);\n  await expect(page.locator('body')).toHaveText('ok');");
      const { final } = await runner.run(
        { checkType: 'MULTI_STEP', name: 'pages', script, retryStrategy: null, doubleCheck: false },
        { location: 'local', variables: [{ key: 'TARGET_URL', value: otherUrl }] },
      );
      expect(final.error).toBeNull();
    } finally {
      await runner.close();
      await new Promise((resolve) => other.close(resolve));
    }
  }, 120_000);
});
