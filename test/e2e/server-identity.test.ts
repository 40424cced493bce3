/**
 * State belongs to the service, not to the port it listens on: a `vigil server` restarted on the
 * same data directory at another address is the same service (its id is kept in the data
 * directory), which `vigil state retarget URL` records after checking; another service is refused
 * naming both. States recorded before services reported an id keep working and adopt it.
 */
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { startVigilServer, targetEnv, vigil, writeProject } from '../support/cli.js';

const running: ChildProcess[] = [];
const roots: string[] = [];

afterEach(async () => {
  for (const child of running.splice(0)) await stop(child);
});
afterAll(async () => {
  for (const root of roots) await rm(root, { recursive: true, force: true });
});

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

async function serve(dataDir: string): Promise<{ child: ChildProcess; url: string }> {
  const service = await startVigilServer(['--data', dataDir]);
  running.push(service.child);
  return service;
}

async function project(): Promise<string> {
  const root = await writeProject('vigil-identity-', {
    'vigil.config.ts': "import { defineConfig } from 'vigil';\nexport default defineConfig({ projectName: 'Shop', logicalId: 'shop' });\n",
    'checks/home.monitor.ts': "import { ApiCheck } from 'vigil/constructs';\nnew ApiCheck('home', { name: 'Home', activated: false, request: { url: 'https://example.com/' } });\n",
  });
  roots.push(root);
  return root;
}

const stateOf = async (root: string) =>
  JSON.parse(await readFile(path.join(root, '.vigil', 'state.json'), 'utf8')) as { target: { baseUrl: string; accountId: string; serviceId?: string } };

const run = (root: string, url: string, args: string[]) => vigil(args, { cwd: root, env: targetEnv(url, { VIGIL_RATE_LIMIT: 'off' }) });

describe('state bound to the identity of the service', () => {
  it('follows the same service to a new port only through vigil state retarget, and refuses another service naming both', async () => {
    const root = await project();
    const data = path.join(root, 'service-data');
    const first = await serve(data);
    const applied = await run(root, first.url, ['apply', '--auto-approve']);
    expect(applied.stderr).toBe('');
    const { target } = await stateOf(root);
    expect(target).toEqual({ baseUrl: first.url, accountId: 'local', serviceId: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    await stop(first.child);

    const again = await serve(data);
    expect(again.url).not.toBe(first.url);
    const moved = await run(root, again.url, ['plan']);
    expect(moved.stderr).toBe(
      `Error: state at .vigil/state.json belongs to service ${target.serviceId} at ${first.url}, and the configured target ${again.url} is that same service (account local) at a new address. ` +
        `Run \`vigil state retarget ${again.url}\` to record the new address, then run this command again.\n`,
    );
    expect(moved.code).toBe(1);

    const retargeted = await run(root, again.url, ['state', 'retarget', again.url]);
    expect(retargeted.stderr).toBe('');
    expect(retargeted.stdout).toBe(
      `.vigil/state.json now targets ${again.url} (service ${target.serviceId}, account local), was ${first.url}. Point VIGIL_API_URL at ${again.url} for plan and apply.\n`,
    );
    expect(retargeted.code).toBe(0);
    const plan = await run(root, again.url, ['plan']);
    expect(plan.stdout).toContain('No changes.');
    expect(plan.code).toBe(0);

    const other = await serve(path.join(root, 'other-data'));
    const otherId = ((await (await fetch(`${other.url}/v1/accounts/me`, { headers: { authorization: 'Bearer vigil-local' } })).json()) as { serviceId: string }).serviceId;
    const refused = await run(root, other.url, ['plan']);
    expect(refused.stderr).toBe(
      `Error: state at .vigil/state.json belongs to service ${target.serviceId} (${again.url} account local), ` +
        `but the configured target ${other.url} is another service, ${otherId} (account local), which holds none of its resources. ` +
        "Point VIGIL_API_URL at the state's service, or give this target its own state file (state.path in vigil.config.ts).\n",
    );
    expect(refused.code).toBe(1);
    const notRetargeted = await run(root, other.url, ['state', 'retarget', other.url]);
    expect(notRetargeted.stderr).toBe(
      `Error: state at .vigil/state.json belongs to service ${target.serviceId} (${again.url} account local), but ${other.url} is another service, ${otherId} (account local); state was left as it is.\n`,
    );
    expect(notRetargeted.code).toBe(1);
    expect((await stateOf(root)).target.baseUrl).toBe(again.url);
  }, 180_000);

  it('lets a state recorded with a URL only adopt the service id on first contact, and retarget it after a move once the service is shown to hold its resources', async () => {
    const root = await project();
    const data = path.join(root, 'service-data');
    const first = await serve(data);
    expect((await run(root, first.url, ['apply', '--auto-approve'])).code).toBe(0);
    const statePath = path.join(root, '.vigil', 'state.json');
    const urlOnly = async () => {
      const document = JSON.parse(await readFile(statePath, 'utf8')) as { target: Record<string, unknown> };
      delete document.target.serviceId;
      await writeFile(statePath, JSON.stringify(document, null, 2));
    };
    await urlOnly();
    const serviceId = ((await (await fetch(`${first.url}/v1/accounts/me`, { headers: { authorization: 'Bearer vigil-local' } })).json()) as { serviceId: string }).serviceId;

    const plan = await run(root, first.url, ['plan']);
    expect(plan.stdout).toContain(
      `Note: .vigil/state.json recorded no service id; it is now bound to service ${serviceId}, the service at ${first.url}, so it stays usable when that service moves (vigil state retarget URL) (recorded by the next apply).\n`,
    );
    expect(plan.stdout).toContain('No changes.');
    expect((await run(root, first.url, ['apply', '--auto-approve'])).code).toBe(0);
    expect((await stateOf(root)).target.serviceId).toBe(serviceId);

    await urlOnly();
    await stop(first.child);
    const again = await serve(data);
    const retargeted = await run(root, again.url, ['state', 'retarget', again.url]);
    expect(retargeted.stderr).toBe('');
    expect(retargeted.code).toBe(0);
    expect(await stateOf(root)).toMatchObject({ target: { baseUrl: again.url, accountId: 'local', serviceId } });

    // Another service holds none of the resources: a URL-only state is not moved there.
    await urlOnly();
    const other = await serve(path.join(root, 'other-data'));
    const refused = await run(root, other.url, ['state', 'retarget', other.url]);
    expect(refused.stderr).toBe(
      `Error: state at .vigil/state.json recorded no service id, and ${other.url} does not hold every resource it manages, so it is not the service state belongs to (${again.url} account local); state was left as it is.\n`,
    );
    expect(refused.code).toBe(1);
  }, 180_000);

  it('refuses a retarget to something that is not a URL, or without a key to ask the service with', async () => {
    const root = await project();
    const notUrl = await vigil(['state', 'retarget', '127.0.0.1:4010'], { cwd: root, env: { VIGIL_API_KEY: 'vigil-local' } });
    expect(notUrl.stderr).toBe('Error: vigil state retarget: "127.0.0.1:4010" is not an http(s) URL, e.g. http://127.0.0.1:4010\n');
    expect(notUrl.code).toBe(2);
    const keyless = await vigil(['state', 'retarget', 'http://127.0.0.1:4010'], { cwd: root, env: { VIGIL_API_KEY: '' } });
    expect(keyless.stderr).toBe('Error: vigil state retarget asks the service at http://127.0.0.1:4010 who it is: set VIGIL_API_KEY (and VIGIL_ACCOUNT_ID to pick an account)\n');
    expect(keyless.code).toBe(1);
  }, 60_000);

  it('vigil server keeps its data on disk by default, under .vigil/server in the directory it starts in', async () => {
    const root = await project();
    const help = await vigil(['server', '--help'], { cwd: root });
    const flat = help.stdout.replace(/\s+/g, ' ');
    expect(flat).toContain('--port <n> port to listen on, on 127.0.0.1 (0 picks a free port) (default: "4010")');
    expect(flat).toContain('--data <dir> directory for the database (vigil.db), relative to the current directory; :memory: keeps nothing (default: ".vigil/server")');
    const { spawn } = await import('node:child_process');
    const { VIGIL_BIN } = await import('../support/cli.js');
    const child = spawn(process.execPath, [VIGIL_BIN, 'server', '--port', '0', '--no-scheduler'], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    running.push(child);
    await new Promise<void>((resolve, reject) => {
      let out = '';
      child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
        out += chunk;
        if (out.includes('listening on')) resolve();
      });
      child.once('exit', (code) => reject(new Error(`vigil server exited ${code}`)));
    });
    expect(existsSync(path.join(root, '.vigil', 'server', 'vigil.db'))).toBe(true);
  }, 60_000);
});
