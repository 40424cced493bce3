/**
 * State belongs to the account the API key acts on, not only to the URL: two accounts on one
 * `vigil server`, and the same project applied with each key.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startServer, type RunningServer } from '@vigil/server';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { vigil } from '../support/cli.js';

let root: string;
let server: RunningServer;
let requestLog: string;

beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'vigil-e2e-account-'));
  requestLog = path.join(root, 'requests.jsonl');
  server = await startServer({
    port: 0,
    dataDir: ':memory:',
    requestLog,
    accounts: [
      { apiKey: 'key-a', accountId: 'acct-a', name: 'A' },
      { apiKey: 'key-b', accountId: 'acct-b', name: 'B' },
    ],
  });
  await writeFile(path.join(root, 'vigil.config.ts'), "import { defineConfig } from 'vigil';\nexport default defineConfig({ projectName: 'shop', logicalId: 'shop' });\n");
  await mkdir(path.join(root, 'monitors'));
  await writeFile(
    path.join(root, 'monitors', 'home.monitor.ts'),
    "import { ApiCheck } from 'vigil/constructs';\nnew ApiCheck('home', { name: 'Home', request: { url: 'https://example.com/' } });\n",
  );
});

afterEach(async () => {
  await server.close();
  await rm(root, { recursive: true, force: true });
});

const as = (apiKey: string, args: string[]) => vigil(args, { cwd: root, env: { VIGIL_API_URL: server.url, VIGIL_API_KEY: apiKey } });
const statePath = () => path.join(root, '.vigil', 'state.json');
const storedTarget = async () => (JSON.parse(await readFile(statePath(), 'utf8')) as { target: { baseUrl: string; accountId: string; serviceId?: string } }).target;
const bound = (accountId: string) => ({ baseUrl: server.url, accountId, serviceId: expect.stringMatching(/^[0-9a-f-]{36}$/) });

async function checksOf(apiKey: string): Promise<unknown[]> {
  const response = await fetch(`${server.url}/v1/checks`, { headers: { authorization: `Bearer ${apiKey}` } });
  return (await response.json()) as unknown[];
}

async function requestsMade(): Promise<string[]> {
  const lines = (await readFile(requestLog, 'utf8')).trim().split('\n');
  return lines.map((line) => JSON.parse(line) as { method: string; path: string }).map((entry) => `${entry.method} ${entry.path.split('?')[0]}`);
}

function mismatch(accountId: string): string {
  return (
    `Error: state at .vigil/state.json belongs to ${server.url} account acct-a, but the configured target is ${server.url} account ${accountId}. ` +
    'Point VIGIL_API_URL / VIGIL_ACCOUNT_ID at the state\'s target, or give this target its own state file (state.path in vigil.config.ts).\n'
  );
}

describe('state bound to the account the API key acts on', () => {
  it("records the key's account, and refuses another account's key on the same URL before touching either account", async () => {
    const applied = await as('key-a', ['apply', '--auto-approve']);
    expect(applied.stderr).toBe('');
    expect(applied.code).toBe(0);
    expect(await storedTarget()).toEqual(bound('acct-a'));

    for (const command of [['plan'], ['apply', '--auto-approve'], ['destroy', '--auto-approve']]) {
      const refused = await as('key-b', command);
      expect(refused.stderr).toBe(mismatch('acct-b'));
      expect(refused.code).toBe(1);
    }
    expect(await checksOf('key-b')).toEqual([]);
    expect(await checksOf('key-a')).toHaveLength(1);
    expect(await storedTarget()).toEqual(bound('acct-a'));
  }, 120_000);

  it('asks the service who it is (account and service id) once per plan, also when VIGIL_ACCOUNT_ID names the account', async () => {
    await as('key-a', ['apply', '--auto-approve']);
    await writeFile(requestLog, '');
    expect((await as('key-a', ['plan'])).code).toBe(0);
    expect((await requestsMade()).filter((request) => request.startsWith('GET /v1/accounts'))).toEqual(['GET /v1/accounts/me']);

    await writeFile(requestLog, '');
    const named = await vigil(['plan'], { cwd: root, env: { VIGIL_API_URL: server.url, VIGIL_API_KEY: 'key-a', VIGIL_ACCOUNT_ID: 'acct-a' } });
    expect(named.stdout).toContain('No changes.');
    expect((await requestsMade()).filter((request) => request.startsWith('GET /v1/accounts'))).toEqual(['GET /v1/accounts/me']);
  }, 120_000);

  it('binds a state recorded without an account to the first account it is used with, once, with a notice', async () => {
    await as('key-a', ['apply', '--auto-approve']);
    const document = JSON.parse(await readFile(statePath(), 'utf8')) as { target: { accountId: string } };
    document.target.accountId = '';
    await writeFile(statePath(), JSON.stringify(document, null, 2));
    const notice = `Note: .vigil/state.json recorded no account; it is now bound to account acct-a at ${server.url}, the account the API key acts on, and refuses any other`;

    const plan = await as('key-a', ['plan']);
    expect(plan.stdout).toContain(`${notice} (recorded by the next apply).\n`);
    expect(plan.stdout).toContain('No changes.');
    expect((await storedTarget()).accountId).toBe('');

    // A plan saved before the adoption still applies: the account is recorded after it was checked.
    expect((await as('key-a', ['plan', '--out', 'plan.json'])).code).toBe(0);
    const apply = await as('key-a', ['apply', 'plan.json']);
    expect(apply.stdout).toContain(`${notice}.\n`);
    expect(apply.stdout).toContain('No changes. Your monitoring matches the code.');
    expect(apply.code).toBe(0);
    expect(await storedTarget()).toEqual(bound('acct-a'));

    const again = await as('key-a', ['plan']);
    expect(again.stdout).not.toContain('Note:');
    const other = await as('key-b', ['plan']);
    expect(other.stderr).toBe(mismatch('acct-b'));
    expect(other.code).toBe(1);
  }, 120_000);
});
