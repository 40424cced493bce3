/** A plan against a real service names the service and the account it would change, in text and markdown. */
import { rm } from 'node:fs/promises';
import { startServer, type RunningServer } from '@vigil/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { targetEnv, vigil, writeProject } from '../support/cli.js';

let server: RunningServer;
let root: string;

beforeAll(async () => {
  server = await startServer({ port: 0, dataDir: ':memory:' });
  root = await writeProject('vigil-plan-target-', {
    'vigil.config.ts': "import { defineConfig } from 'vigil';\nexport default defineConfig({ projectName: 'Shop', logicalId: 'shop' });\n",
    'checks/home.monitor.ts': "import { ApiCheck } from 'vigil/constructs';\nnew ApiCheck('home', { name: 'Home', activated: false, request: { url: 'https://example.com/' } });\n",
  });
});
afterAll(async () => {
  await server.close();
  await rm(root, { recursive: true, force: true });
});

const run = (args: string[]) => vigil(args, { cwd: root, env: targetEnv(server.url, { VIGIL_RATE_LIMIT: 'off' }) });

describe('the plan header', () => {
  it('names the target and account above the changes in text and markdown, and in apply; JSON carries them as target', async () => {
    const text = await run(['plan']);
    expect(text.stdout.startsWith(`Target: ${server.url}, account local\n\nVigil will perform the following actions:\n`)).toBe(true);

    const markdown = await run(['plan', '--format', 'markdown']);
    expect(markdown.stdout.split('\n').slice(0, 4)).toEqual(['### Vigil plan for `Shop`', '', `Target: \`${server.url}\`, account \`local\``, '']);

    const json = await run(['plan', '--json']);
    expect(JSON.parse(json.stdout).target).toEqual({ baseUrl: server.url, accountId: 'local' });

    const applied = await run(['apply', '--auto-approve']);
    expect(applied.stdout.startsWith(`Target: ${server.url}, account local\n\n`)).toBe(true);
    expect(applied.code).toBe(0);

    const none = await run(['plan']);
    expect(none.stdout).toBe('No changes. Your monitoring matches the code.\n');
  }, 120_000);

  it('is left out for the embedded local service, which the first line announces', async () => {
    const local = await vigil(['plan', '--local'], { cwd: root, env: { VIGIL_API_URL: '' } });
    expect(local.stdout).not.toContain('Target:');
    expect(local.stdout.split('\n')[0]).toMatch(/^Using the embedded local service at /);
  }, 120_000);
});
