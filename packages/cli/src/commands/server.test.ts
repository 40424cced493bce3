/** `vigil server` as a user runs it: a subprocess of the real binary. */
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { serviceDenyNetworks } from './server.js';

const bin = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../bin/vigil.mjs');

function startCli(args: string[]): { child: ChildProcessWithoutNullStreams; url: Promise<string>; exit: Promise<number | null> } {
  // Nothing on disk: the default data directory is relative to where the tests run.
  const child = spawn(process.execPath, [bin, 'server', '--data', ':memory:', ...args], { stdio: 'pipe' });
  let stdout = '';
  const url = new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const match = /^listening on (http:\/\/127\.0\.0\.1:\d+)\n/.exec(stdout);
      if (match) resolve(match[1]!);
    });
    child.once('exit', (code) => reject(new Error(`vigil server exited with ${code} before listening: ${stdout}`)));
  });
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, url, exit };
}

describe('vigil server', () => {
  it('prints exactly the listening line, serves the API, and exits 0 on SIGTERM', async () => {
    const { child, url, exit } = startCli(['--port', '0', '--api-key', 'k1', '--account-id', 'a1', '--rate-limit', '600/60']);
    const base = await url;
    const created = await fetch(`${base}/v1/status-pages/services`, {
      method: 'POST',
      headers: { authorization: 'Bearer k1', 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'cli' }),
    });
    // The real document answers a service create with 200 (docs/design-deviations.md).
    expect(created.status).toBe(200);
    expect((await created.json()) as object).toMatchObject({ accountId: 'a1' });
    const stdoutAfter: string[] = [];
    child.stdout.on('data', (chunk: Buffer) => stdoutAfter.push(chunk.toString()));
    child.kill('SIGTERM');
    expect(await exit).toBe(0);
    expect(stdoutAfter.join('')).toBe('');
  });

  it('exits 0 on SIGINT too', async () => {
    const { child, url, exit } = startCli([]);
    await url;
    child.kill('SIGINT');
    expect(await exit).toBe(0);
  });

  it.each([
    { args: ['--port', 'abc'], message: 'Error: --port must be an integer from 0 to 65535, got "abc"' },
    { args: ['--faults', 'error=2'], message: 'Error: --faults: invalid fault "error=2": expected a fraction between 0 and 1' },
    { args: ['--rate-limit', '5'], message: 'Error: --rate-limit: invalid rate limit "5": expected REQUESTS/SECONDS with both at least 1, e.g. 600/60' },
    { args: ['--api-key', 'k'], message: 'Error: --api-key and --account-id come in pairs: got 1 key(s) and 0 account id(s)' },
    { args: ['--accounts', '/nonexistent/accounts.json'], message: 'Error: cannot read accounts file /nonexistent/accounts.json' },
    { args: ['--seed', '/nonexistent/seed.json'], message: 'Error: --seed /nonexistent/seed.json' },
    {
      args: ['--database', 'postgres://vigil:secret@127.0.0.1:5432/vigil', '--data', '/tmp/vigil-data'],
      message: 'Error: use either --database (or VIGIL_DATABASE_URL) or --data, not both: --data is where SQLite keeps its file',
    },
    { args: ['--database', 'mysql://vigil:secret@127.0.0.1/vigil'], message: 'Error: --database must be a PostgreSQL URL, postgres://user:password@host:port/database' },
    { args: ['--database', 'postgres://vigil:secret@127.0.0.1:5432'], message: 'Error: --database must be a PostgreSQL URL, postgres://user:password@host:port/database' },
    {
      args: ['--database', 'postgres://vigil:secret@127.0.0.1:5432/vigil', '--database-prepared-statements', 'no'],
      message: 'Error: --database-prepared-statements (or VIGIL_DATABASE_PREPARED_STATEMENTS) must be on or off, got "no"',
    },
    {
      args: ['--database-prepared-statements', 'off'],
      message: 'Error: --database-prepared-statements (or VIGIL_DATABASE_PREPARED_STATEMENTS) needs --database (or VIGIL_DATABASE_URL): it is a setting of PostgreSQL connections',
    },
    { args: ['--public-url', 'vigil.example.com'], message: 'Error: --public-url: "vigil.example.com" is not a URL (expected e.g. https://vigil.example.com)' },
    { args: ['--metrics-buckets', '0.5,0.25'], message: 'Error: --metrics-buckets: bounds must increase: 0.25 after 0.5' },
    { args: ['--metrics-buckets', '1s'], message: 'Error: --metrics-buckets: "1s" is not a number of seconds above 0 (write e.g. 0.1,0.5,2 or none)' },
  ])('refuses $args with exit 2 and a clear error', ({ args, message }) => {
    const result = spawnSync(process.execPath, [bin, 'server', ...args], { encoding: 'utf8', timeout: 20_000 });
    expect(result.status).toBe(2);
    expect(result.stderr.startsWith(message)).toBe(true);
    expect(result.stdout).toBe('');
  });

  it('waits for a PostgreSQL database that is down, warning without the password, until a signal ends the start', async () => {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as AddressInfo;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const child = spawn(process.execPath, [bin, 'server', '--port', '0', '--database', `postgres://vigil:n0t-Printed@127.0.0.1:${port}/vigil`], { stdio: 'pipe' });
    let stderr = '';
    const warned = new Promise<void>((resolve) => {
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
        if (stderr.includes('trying again in')) resolve();
      });
    });
    const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    await warned;
    child.kill('SIGTERM');
    expect(await exit).toBe(1);
    expect(stderr).toMatch(new RegExp(`^vigil server: warning: PostgreSQL at 127\\.0\\.0\\.1:${port}/vigil is unavailable: connect ECONNREFUSED 127\\.0\\.0\\.1:${port} \\(attempt 1 of 10\\); trying again in \\d+ ms`));
    expect(stderr).toMatch(new RegExp(`Error: cannot start the server: PostgreSQL at 127\\.0\\.0\\.1:${port}/vigil is unavailable: connect ECONNREFUSED 127\\.0\\.0\\.1:${port} \\(stopped waiting: aborted after \\d+ attempts?\\)\\n$`));
    expect(stderr).not.toContain('n0t-Printed');
  });

  it('takes the database from VIGIL_DATABASE_URL, and refuses it beside --data as it refuses --database', () => {
    const env = { ...process.env, VIGIL_DATABASE_URL: 'postgres://vigil:secret@127.0.0.1:5432/vigil' };
    const result = spawnSync(process.execPath, [bin, 'server', '--data', '/tmp/vigil-data'], { encoding: 'utf8', timeout: 20_000, env });
    expect(result.stderr.trim()).toBe('Error: use either --database (or VIGIL_DATABASE_URL) or --data, not both: --data is where SQLite keeps its file');
    expect(result.status).toBe(2);
  });

  it('takes the prepared statements setting from VIGIL_DATABASE_PREPARED_STATEMENTS, refusing a bad value as it refuses the flag', () => {
    const env = { ...process.env, VIGIL_DATABASE_URL: 'postgres://vigil:secret@127.0.0.1:5432/vigil', VIGIL_DATABASE_PREPARED_STATEMENTS: 'false' };
    const result = spawnSync(process.execPath, [bin, 'server'], { encoding: 'utf8', timeout: 20_000, env });
    expect(result.stderr.trim()).toBe('Error: --database-prepared-statements (or VIGIL_DATABASE_PREPARED_STATEMENTS) must be on or off, got "false"');
    expect(result.status).toBe(2);
  });

  it.each([
    [
      'two Slack App tokens for one account',
      [{ apiKey: 'k1', accountId: 'a1', slackAppToken: 'xoxb-one' }, { apiKey: 'k2', accountId: 'a1', slackAppToken: 'xoxb-two' }],
      'accounts file FILE: account a1 is given two different Slack App tokens; give it one',
    ],
    [
      'an empty Slack App token',
      [{ apiKey: 'k1', accountId: 'a1', slackAppToken: '' }],
      'accounts file FILE: entry 0 must be {apiKey: string, accountId: string, name?: string, slackAppToken?: non-empty string}',
    ],
  ])('refuses an accounts file with %s, with exit 2', (_name, accounts, message) => {
    const dir = mkdtempSync(path.join(tmpdir(), 'vigil-accounts-'));
    try {
      const file = path.join(dir, 'accounts.json');
      writeFileSync(file, JSON.stringify(accounts));
      const result = spawnSync(process.execPath, [bin, 'server', '--accounts', file], { encoding: 'utf8', timeout: 20_000 });
      expect(result.stderr.trim()).toBe(`Error: ${message.replace('FILE', file)}`);
      expect(result.status).toBe(2);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('documents the fault switches in --help', () => {
    const result = spawnSync(process.execPath, [bin, 'server', '--help'], { encoding: 'utf8', timeout: 20_000 });
    expect(result.status).toBe(0);
    for (const text of ['--database-prepared-statements <on|off>', 'VIGIL_DATABASE_PREPARED_STATEMENTS', '--faults <spec>', 'latency=50ms', 'error=0.1', '429=0.2', 'drop=0.05', 'seed=42', '--request-log <file>', '--rate-limit <n/s>']) {
      expect(result.stdout).toContain(text);
    }
  });
});

describe('--deny-network and the default denials', () => {
  const defaults = ['169.254.0.0/16', 'fe80::/10'];
  it.each([
    [[], ['169.254.0.0/16', 'fe80::/10']],
    [['10.0.0.0/8'], ['169.254.0.0/16', 'fe80::/10', '10.0.0.0/8']],
    [['none'], []],
    [['none', '10.0.0.0/8'], ['10.0.0.0/8']],
    [['10.0.0.0/8', 'none', '::1'], ['10.0.0.0/8', '::1']],
  ])('%j denies %j', (flags, denied) => {
    expect(serviceDenyNetworks(flags, defaults)).toEqual(denied);
  });
});

describe('bad --deny-network, --retention, --rollup-retention and --max-runs-in-flight values', () => {
  it.each([
    [['--max-runs-in-flight', '0'], 'Error: --max-runs-in-flight must be a whole number from 1 to 100,000, got "0"'],
    [['--max-runs-in-flight', '1.5'], 'Error: --max-runs-in-flight must be a whole number from 1 to 100,000, got "1.5"'],
    [['--max-runs-in-flight', 'many'], 'Error: --max-runs-in-flight must be a whole number from 1 to 100,000, got "many"'],
    [['--max-runs-in-flight', '100001'], 'Error: --max-runs-in-flight must be a whole number from 1 to 100,000, got "100001"'],
    [['--max-runs-in-flight', '500', '--no-scheduler'], 'Error: --max-runs-in-flight needs the scheduler: drop --no-scheduler'],
    [['--deny-network', '169.254.0.0/40'], 'Error: --deny-network: "169.254.0.0/40" is not a CIDR: the prefix length must be a whole number from 0 to 32 for an IPv4 address'],
    [['--retention', '0'], 'Error: --retention must be a whole number of days from 1 to 3650, got "0"'],
    [['--rollup-retention', '0'], 'Error: --rollup-retention must be a whole number of days from 1 to 3650, got "0"'],
    [['--rollup-retention', 'abc'], 'Error: --rollup-retention must be a whole number of days from 1 to 3650, got "abc"'],
  ])('%j exits 2 before the service starts', (args, message) => {
    const result = spawnSync(process.execPath, [bin, 'server', '--port', '0', ...args], { encoding: 'utf8', timeout: 60_000 });
    expect(result.stderr.trim()).toBe(message);
    expect(result.status).toBe(2);
  });
});
