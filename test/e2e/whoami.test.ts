/**
 * `vigil whoami` as a user runs it: the CLI in a child process, aimed by environment variables at a
 * real server on a loopback port 0.
 */
import { execFile } from 'node:child_process';
import { startServer, type RunningServer } from '@vigil/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, VIGIL_BIN, type CliRun } from './cli-process.js';

function whoami(args: readonly string[], env: Record<string, string>): Promise<CliRun> {
  const clean = { ...process.env };
  for (const name of ['VIGIL_API_URL', 'VIGIL_API_KEY', 'VIGIL_ACCOUNT_ID', 'VIGIL_RATE_LIMIT']) delete clean[name];
  return new Promise((resolve) => {
    execFile(process.execPath, [VIGIL_BIN, 'whoami', ...args], { cwd: REPO_ROOT, env: { ...clean, NO_COLOR: '1', ...env } }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
    });
  });
}

// Concurrent: each case is a separate process, and CLI start-up (tsx) dominates their time.
describe.concurrent('vigil whoami', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startServer({
      port: 0,
      accounts: [
        { apiKey: 'team-key', accountId: 'acme', name: 'Acme' },
        { apiKey: 'team-key', accountId: 'acme-staging', name: 'Acme staging' },
        { apiKey: 'odd-key', accountId: 'odd', name: 'Odd\u001b[2J\nforged line' },
      ],
    });
  });
  afterAll(() => server.close());

  it("prints the key's own account", async () => {
    const run = await whoami([], { VIGIL_API_URL: server.url, VIGIL_API_KEY: 'team-key' });
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(run.stdout).toBe(`account  Acme (acme)\napi      ${server.url}\n`);
  });

  it('prints an account name with its control characters and line breaks escaped', async () => {
    const run = await whoami([], { VIGIL_API_URL: server.url, VIGIL_API_KEY: 'odd-key' });
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(run.stdout).toBe(`account  Odd\\u001b[2J\\nforged line (odd)\napi      ${server.url}\n`);
  });

  it('prints the account VIGIL_ACCOUNT_ID selects, as JSON on request', async () => {
    const run = await whoami(['--json'], { VIGIL_API_URL: server.url, VIGIL_API_KEY: 'team-key', VIGIL_ACCOUNT_ID: 'acme-staging' });
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ id: 'acme-staging', name: 'Acme staging', baseUrl: server.url });
  });

  it('fails with the service error for a key it refuses', async () => {
    const run = await whoami([], { VIGIL_API_URL: server.url, VIGIL_API_KEY: 'wrong' });
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(`Error: cannot read the account at ${server.url}: [GET] "/v1/accounts": 401 Unauthorized — Bad Token\n`);
  });

  it('fails for an account the key does not belong to', async () => {
    const run = await whoami([], { VIGIL_API_URL: server.url, VIGIL_API_KEY: 'team-key', VIGIL_ACCOUNT_ID: 'globex' });
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(`Error: cannot read the account at ${server.url}: [GET] "/v1/accounts": 403 Forbidden — API key has no access to account globex\n`);
  });

  it('says which variables to set when no target is configured', async () => {
    const run = await whoami([], {});
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      'Error: no API target configured: set VIGIL_API_URL (e.g. http://127.0.0.1:4010, where `vigil server` listens) and VIGIL_API_KEY, and optionally VIGIL_ACCOUNT_ID\n',
    );
  });

  it('asks for the key when only the URL is set', async () => {
    const run = await whoami([], { VIGIL_API_URL: server.url });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('set VIGIL_API_KEY');
  });

  it('goes unpaced with VIGIL_RATE_LIMIT=off', async () => {
    const run = await whoami([], { VIGIL_API_URL: server.url, VIGIL_API_KEY: 'team-key', VIGIL_RATE_LIMIT: 'off' });
    expect(run).toMatchObject({ code: 0, stderr: '' });
  });

  it.each(['600', '0/60', 'fast'])('refuses VIGIL_RATE_LIMIT=%s, naming the variable and the format', async (value) => {
    const run = await whoami([], { VIGIL_API_URL: server.url, VIGIL_API_KEY: 'team-key', VIGIL_RATE_LIMIT: value });
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      `Error: VIGIL_RATE_LIMIT: invalid rate limit "${value}": expected REQUESTS/SECONDS with both at least 1, e.g. 600/60, or "off" for a service without a rate limit\n`,
    );
  });

  it('describes itself in --help', async () => {
    const run = await whoami(['--help'], {});
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('print the account the configured API key acts on (GET /v1/accounts)');
    expect(run.stdout).toContain('VIGIL_ACCOUNT_ID');
  });
});
