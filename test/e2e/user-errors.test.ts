/**
 * Failures that are the user's to fix end with their message and exit 1 under every command, never
 * with "this is a bug in vigil" and a stack: a damaged state file or step log, an API key the
 * service refuses, a directory where the state lock goes.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startServer, type RunningServer } from '@vigil/server';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { targetEnv, vigil } from '../support/cli.js';

let root: string;
let server: RunningServer;

beforeAll(async () => {
  server = await startServer({ port: 0, dataDir: ':memory:' });
});
afterAll(() => server.close());

beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'vigil-e2e-user-errors-'));
  await writeFile(path.join(root, 'vigil.config.ts'), "import { defineConfig } from 'vigil';\nexport default defineConfig({ projectName: 'shop', logicalId: 'shop' });\n");
  await mkdir(path.join(root, '.vigil'));
  await mkdir(path.join(root, 'monitors'));
  await writeFile(path.join(root, 'monitors', 'home.monitor.ts'), "import { ApiCheck } from 'vigil/constructs';\nnew ApiCheck('home', { name: 'Home', request: { url: 'https://example.com/' } });\n");
  return () => rm(root, { recursive: true, force: true });
});

const run = (args: string[], env: Record<string, string> = {}) => vigil(args, { cwd: root, env: targetEnv(server.url, env) });
const untouched = 'vigil left it untouched: fix it or restore it (e.g. from version control)';
const VALID_STATE = {
  version: 1,
  lineage: '6f1c1f8e-3f0e-4c8e-9a57-2b7a4b8f0d11',
  serial: 1,
  project: 'shop',
  target: { baseUrl: '', accountId: 'local' },
  resources: {},
  journal: [],
};

describe('plan with a damaged state', () => {
  it.each([
    ['empty', '', `Error: state file .vigil/state.json is empty; ${untouched}, or delete it if nothing was ever applied\n`],
    ['truncated', '{"version": 1, "lin', `Error: state file .vigil/state.json is not valid JSON (Unterminated string in JSON at position 19); ${untouched}\n`],
    ['not a state', '[1, 2]', `Error: state file .vigil/state.json is not a vigil state document (expected a JSON object); ${untouched}\n`],
  ])('reports the %s state.json by name, exit 1', async (_, text, message) => {
    await writeFile(path.join(root, '.vigil', 'state.json'), text);
    const result = await run(['plan']);
    expect(result.stderr).toBe(message);
    expect(result.code).toBe(1);
  }, 60_000);

  it('reports an invalid step log by name and line, exit 1', async () => {
    await writeFile(path.join(root, '.vigil', 'state.json'), JSON.stringify({ ...VALID_STATE, target: { baseUrl: server.url, accountId: 'local' } }));
    await writeFile(path.join(root, '.vigil', 'state.json.wal'), 'not a step\n');
    const result = await run(['plan']);
    expect(result.stderr).toBe(
      'Error: state log .vigil/state.json.wal line 1 is not a journal step (Unexpected token \'o\', "not a step" is not valid JSON); ' +
        'vigil left it untouched: fix or remove it (removing it forgets the steps it holds)\n',
    );
    expect(result.code).toBe(1);
  }, 60_000);
});

describe('a wrong API key', () => {
  it.each([
    [['plan'], {}, '/v1/accounts/me'],
    [['apply', '--auto-approve'], {}, '/v1/accounts/me'],
    [['plan'], { VIGIL_ACCOUNT_ID: 'local' }, '/v1/accounts/me'],
    [['apply', '--auto-approve'], { VIGIL_ACCOUNT_ID: 'local' }, '/v1/accounts/me'],
  ])('under %j (%j) says the service refused it, exit 1', async (args, env, route) => {
    const result = await run(args, { VIGIL_API_KEY: 'not-the-key', ...env });
    expect(result.stderr).toBe(`Error: the service refused the API key: [GET] "${route}": 401 Unauthorized — Bad Token. Check VIGIL_API_KEY.\n`);
    expect(result.code).toBe(1);
  }, 60_000);
});

describe('state unlock --force with a directory where the lock goes', () => {
  it('says what is there and leaves it, exit 1', async () => {
    await mkdir(path.join(root, '.vigil', 'state.json.lock'));
    const result = await run(['state', 'unlock', '--force']);
    expect(result.stderr).toBe(
      'Error: the state lock .vigil/state.json.lock is a directory, not a lock file vigil wrote; if nothing else uses it, remove it yourself (rm -r .vigil/state.json.lock) and try again\n',
    );
    expect(result.code).toBe(1);
  }, 60_000);
});
