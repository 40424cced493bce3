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
