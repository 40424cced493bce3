/** A service that does not answer: the error names the address, where it came from, and what to check. */
import { rm } from 'node:fs/promises';
import net, { type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { vigil, writeProject } from '../support/cli.js';

let root: string;
let closedPort: number;

beforeAll(async () => {
  root = await writeProject('vigil-unreachable-', {
    'vigil.config.ts': "import { defineConfig } from 'vigil';\nexport default defineConfig({ projectName: 'Shop', logicalId: 'shop' });\n",
    'checks/home.monitor.ts': "import { ApiCheck } from 'vigil/constructs';\nnew ApiCheck('home', { name: 'Home', request: { url: 'https://example.com/' } });\n",
  });
  const probe = net.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  closedPort = (probe.address() as AddressInfo).port;
  await new Promise((resolve) => probe.close(resolve));
});
afterAll(() => rm(root, { recursive: true, force: true }));

describe('a service that is not running', () => {
  it.each([['plan'], ['whoami']])('vigil %s names VIGIL_API_URL and hints that the service may be down, exit 1', async (command) => {
    const url = `http://127.0.0.1:${closedPort}`;
    const result = await vigil([command], { cwd: root, env: { VIGIL_API_URL: url, VIGIL_API_KEY: 'vigil-local', VIGIL_RATE_LIMIT: 'off' } });
    expect(result.stderr).toMatch(
      new RegExp(
        String.raw`^Error: cannot reach the monitoring service at ${url.replace(/\./g, '\\.')} \(VIGIL_API_URL\): \[GET\] "/v1/[a-z/-]+": .*ECONNREFUSED.*\n` +
          String.raw`hint: is the service running and is that its address\? Start one with \`vigil server\` \(http://127\.0\.0\.1:4010\), or set VIGIL_API_URL to where it listens\.\n$`,
      ),
    );
    expect(result.code).toBe(1);
  }, 120_000);
});
