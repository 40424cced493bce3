/**
 * Remote state with the real CLI: projects whose config says `state: { backend: 'http', address }`,
 * applied against a real `vigil server`, with state on a loopback server speaking Terraform's http
 * backend protocol. Two checkouts of one project share it with no state file in either: one plans
 * what the other applied, concurrent applies take turns, a killed apply is finished from the other
 * checkout, and pull, push, migrate and unlock work on it. The same with state on the `vigil server`
 * itself (backend `service`), reached through a proxy that can hold its state writes, whose locks
 * expire unless renewed: a lock left by a runner killed elsewhere is reported stale once it expired,
 * and `vigil state unlock` removes it. The state server's bearer token never appears in any output or
 * document.
 */
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startServer, type RunningServer } from '@vigil/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startVigil, targetEnv, vigil, waitFor, type VigilResult } from '../support/cli.js';
import { applyConcurrently } from '../support/concurrent-applies.js';
import { generateProject, type GeneratedProject } from '../support/generate-project.js';
import { startHoldingProxy, type HoldingProxy } from '../support/holding-proxy.js';
import { startTerraformStateServer, type TerraformStateServer } from '../support/terraform-http-state-server.js';

const TOKEN = 'state-token-5f1c9a';
const SIZE = { files: 2, checksPerFile: 6 };

let states: TerraformStateServer;
let service: RunningServer;
/** The service as the `service` backend's checkouts reach it: a proxy that can hold state writes. */
let serviceProxy: HoldingProxy;
let requestLog: string;
let workspace: string;
const outputs: VigilResult[] = [];

beforeAll(async () => {
  workspace = await mkdtemp(path.join(tmpdir(), 'vigil-e2e-remote-'));
  requestLog = path.join(workspace, 'requests.jsonl');
  states = await startTerraformStateServer({ credentials: { token: TOKEN } });
  service = await startServer({ port: 0, dataDir: ':memory:', requestLog });
  // Document writes only: locks (POST …/lock, LOCK) and reads go straight through.
  serviceProxy = await startHoldingProxy(service.url, (request, url) => request.method === 'POST' && /^\/v1\/state\/[^/]+$/.test(url.pathname));
});

afterAll(async () => {
  await serviceProxy.close();
  await service.close();
  await states.close();
  await rm(workspace, { recursive: true, force: true });
  // No command printed the state server's credential, whatever it did.
  for (const output of outputs) expect(`${output.stdout}${output.stderr}`).not.toContain(TOKEN);
});

/** A checkout of the generated project whose state lives at `<state server>/states/<name>`. */
async function checkout(dir: string, options: { state: string; logicalId: string; frequency?: number }): Promise<GeneratedProject> {
  const project = await generateProject({ root: path.join(workspace, dir), ...SIZE, ...(options.frequency === undefined ? {} : { frequency: options.frequency }) });
  const config = await readFile(project.configPath, 'utf8');
  const state =
    options.state === 'local' ? "{ backend: 'local' }" : options.state === 'service' ? "{ backend: 'service' }" : `{ backend: 'http', address: '${states.url}/states/${options.state}' }`;
  await writeFile(project.configPath, config.replace("logicalId: 'generated',", `logicalId: '${options.logicalId}',\n  state: ${state},`));
  return project;
}

async function run(project: GeneratedProject, args: string[]): Promise<VigilResult> {
  return runVia(project, args, service.url);
}

async function runVia(project: GeneratedProject, args: string[], serviceUrl: string): Promise<VigilResult> {
  const result = await vigil(args, { cwd: project.root, env: targetEnv(serviceUrl, { VIGIL_STATE_HTTP_TOKEN: TOKEN }) });
  outputs.push(result);
  return result;
}

function stored(name: string): { lineage: string; serial: number; journal: unknown[]; resources: Record<string, { remoteId: string | number }> } {
  const text = states.document(`/states/${name}`);
  if (text === undefined) throw new Error(`no state stored at /states/${name}`);
  expect(text).not.toContain(TOKEN);
  return JSON.parse(text) as ReturnType<typeof stored>;
}

async function exists(file: string): Promise<boolean> {
  return stat(file).then(
    () => true,
    () => false,
  );
}

async function checksNamed(prefix: string): Promise<string[]> {
  const response = await fetch(`${service.url}/v1/checks?limit=100`, { headers: { authorization: 'Bearer vigil-local' } });
  const checks = (await response.json()) as Array<{ name: string; tags: string[] }>;
  return checks.filter((check) => check.name.startsWith(prefix)).map((check) => check.name);
}

function countByName(names: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const name of [...names].sort()) counts.set(name, (counts.get(name) ?? 0) + 1);
  return counts;
}

/** The pid in the lock info holding `path` on the state server, read without taking the lock. */
function lockHolderPid(path: string): number | undefined {
  const info = states.lock(path);
  if (info === undefined) return undefined;
  return (JSON.parse((JSON.parse(info) as { Info: string }).Info) as { pid?: number }).pid;
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
const posts = (name: string) => states.requests.filter((request) => request.method === 'POST' && request.path.startsWith(`/states/${name}?`)).length;
const location = (name: string) => `http state at ${states.url}/states/${name}`;

describe('state on an http backend, shared by two checkouts', () => {
  it('applies from one checkout and plans nothing from the other, with no state file in either', async () => {
    const a = await checkout('shared-a', { state: 'shared', logicalId: 'shared' });
    const b = await checkout('shared-b', { state: 'shared', logicalId: 'shared' });
    const applied = await run(a, ['apply', '--auto-approve']);
    expect(applied.stderr).toBe('');
    expect(applied.code).toBe(0);
    expect(Object.keys(stored('shared').resources).sort()).toEqual([...a.addresses].sort());
    expect(stored('shared').serial).toBe(posts('shared'));

    const planned = await run(b, ['plan', '--detailed-exitcode']);
    expect(planned.stdout).toBe('No changes. Your monitoring matches the code.\n');
    expect(planned.code).toBe(0);
    for (const project of [a, b]) expect(await exists(path.join(project.root, '.vigil', 'state.json'))).toBe(false);
    expect(states.requests.every((request) => request.authorization === `Bearer ${TOKEN}`)).toBe(true);
  }, 120_000);

  it('lets two concurrent applies take turns: one waits, naming the backend and the holder, and the serial counts every write', async () => {
    const a = await checkout('shared-a', { state: 'shared', logicalId: 'shared', frequency: 5 });
    const b = await checkout('shared-b', { state: 'shared', logicalId: 'shared', frequency: 5 });
    const env = targetEnv(service.url, { VIGIL_STATE_HTTP_TOKEN: TOKEN });
    // The first apply is kept inside its lock (its state writes wait) until the second has said it waits.
    const { first, second } = await applyConcurrently({
      cwd: [a.root, b.root],
      env,
      holdWrites: async () => {
        const release = states.holdStateWrites();
        return async () => release();
      },
      holdsLock: async (pid) => lockHolderPid('/states/shared') === pid,
    });
    outputs.push(first, second);
    expect([first.code, second.code]).toEqual([0, 0]);
    expect(first.stderr).toBe('');
    // Terraform's protocol says nothing of expiry: the notice names the holder only.
    expect(second.stderr).toMatch(new RegExp(`^Waiting up to 2m for the lock on ${escape(location('shared'))}, held by pid ${first.pid} on .+ \\(user .+, "vigil apply", since .+\\)…\\n$`));
    const state = stored('shared');
    expect(state.serial).toBe(posts('shared'));
    expect(state.journal).toEqual([]);
    expect((await run(a, ['plan', '--detailed-exitcode'])).code).toBe(0);
  }, 180_000);

  it('finishes from the other checkout an apply killed with SIGKILL: the lock is reported stale, unlocked naming its owner, and nothing is duplicated or lost', async () => {
    const a = await checkout('crash-a', { state: 'crash', logicalId: 'crash' });
    const b = await checkout('crash-b', { state: 'crash', logicalId: 'crash' });
    const env = targetEnv(service.url, { VIGIL_STATE_HTTP_TOKEN: TOKEN });
    const creates = () => readFile(requestLog, 'utf8').then((text) => text.split('\n').filter((line) => line.includes('"POST"')).length);
    const before = await creates();
    const namesBefore = await checksNamed('Check ');
    const { child, done } = startVigil(['apply', '--auto-approve'], { cwd: a.root, env });
    while ((await creates()) < before + 5 && child.exitCode === null) await new Promise((resolve) => setTimeout(resolve, 2));
    child.kill('SIGKILL');
    const killed = await done;
    expect(killed.signal).toBe('SIGKILL');

    const refused = await run(b, ['apply', '--auto-approve']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(
      `Error: state ${location('crash')} is locked by pid ${child.pid} on ${(await import('node:os')).hostname()} (user ${refused.stderr.match(/\(user ([^,]+),/)?.[1]}, "vigil apply", since ${refused.stderr.match(/since ([^)]+)\)/)?.[1]}), ` +
        'but that process is no longer running (it crashed or was killed), so the lock is stale. If no other vigil is using this state, remove the lock with: vigil state unlock --force\n',
    );
    const unlocked = await run(b, ['state', 'unlock', '--force']);
    expect(unlocked.code).toBe(0);
    expect(unlocked.stdout).toMatch(new RegExp(`^Removed the lock on ${location('crash').replace(/[.]/g, '\\.')}, held by pid ${child.pid} on .+ \\(user .+, "vigil apply", since .+\\)\\.\\n$`));

    const finished = await run(b, ['apply', '--auto-approve']);
    expect(finished.stderr).toBe('');
    expect(finished.code).toBe(0);
    const state = stored('crash');
    expect(state.journal).toEqual([]);
    expect(Object.keys(state.resources).sort()).toEqual([...b.addresses].sort());
    // Other projects of this file have checks of the same names: the crashed project added exactly one of each.
    expect(countByName(await checksNamed('Check '))).toEqual(new Map([...countByName(namesBefore)].map(([name, count]) => [name, count + 1])));
    expect((await run(a, ['plan', '--detailed-exitcode'])).code).toBe(0);
  }, 180_000);

  it('pulls the document, refuses to push one that is not newer, and pushes it with --force', async () => {
    const a = await checkout('shared-a', { state: 'shared', logicalId: 'shared', frequency: 5 });
    const pulled = await run(a, ['state', 'pull']);
    expect(pulled.code).toBe(0);
    expect(JSON.parse(pulled.stdout)).toEqual(stored('shared'));
    const file = path.join(workspace, 'pulled.json');
    await writeFile(file, pulled.stdout);
    const serial = stored('shared').serial;

    const refused = await run(a, ['state', 'push', file]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(
      `Error: refusing to replace state ${location('shared')} (serial ${serial}) with ${file} (serial ${serial}): it is not newer, so it would undo later writes (e.g. an apply made since it was pulled). ` +
        `If ${file} really should replace it, run it again with --force (vigil state push --force FILE).\n`,
    );
    const forced = await run(a, ['state', 'push', '--force', file]);
    expect(forced.stderr).toBe('');
    expect(forced.stdout).toBe(`Pushed ${file} to ${location('shared')}: lineage ${stored('shared').lineage}, serial ${serial + 1} (it held serial ${serial}).\n`);
    expect(stored('shared').serial).toBe(serial + 1);
  }, 60_000);

  it('migrates a project applied with local state to the http backend with one command, after which plan finds nothing to do', async () => {
    const project = await checkout('migrate', { state: 'local', logicalId: 'migrated' });
    // Its own names, so the shared project's checks are not adopted or duplicated.
    const applied = await run(project, ['apply', '--auto-approve']);
    expect(applied.code).toBe(0);
    const local = JSON.parse(await readFile(path.join(project.root, '.vigil', 'state.json'), 'utf8')) as { lineage: string; serial: number };
    await writeFile(project.configPath, (await readFile(project.configPath, 'utf8')).replace("{ backend: 'local' }", `{ backend: 'http', address: '${states.url}/states/migrated' }`));

    const migrated = await run(project, ['state', 'migrate', '--from', 'local']);
    expect(migrated.stderr).toBe('');
    expect(migrated.stdout).toBe(
      `Copied the state from .vigil/state.json to ${location('migrated')}: lineage ${local.lineage}, serial ${local.serial}, ${project.addresses.length} resources; read back and identical.\n` +
        '.vigil/state.json was left as it is: once the config change is committed, remove it (and its .wal log) from the repository so that nobody applies with it.\n',
    );
    expect(stored('migrated')).toMatchObject({ lineage: local.lineage, serial: local.serial });
    const again = await run(project, ['state', 'migrate', '--from', 'local']);
    expect(again.stdout).toBe(`${location('migrated')} already holds this state (lineage ${local.lineage}, serial ${local.serial}); nothing to copy.\n`);
    await rm(path.join(project.root, '.vigil'), { recursive: true, force: true });
    const planned = await run(project, ['plan', '--detailed-exitcode']);
    expect(planned.stdout).toBe('No changes. Your monitoring matches the code.\n');
  }, 120_000);

  it('unlocks a lock another host holds, naming its owner', async () => {
    const a = await checkout('shared-a', { state: 'shared', logicalId: 'shared', frequency: 5 });
    const info = { pid: 4242, host: 'build-7', user: 'ci', command: 'vigil apply', createdAt: '2026-11-22T03:00:00.000Z' };
    const lock = await fetch(`${states.url}/states/shared`, {
      method: 'LOCK',
      headers: { authorization: `Bearer ${TOKEN}` },
      body: JSON.stringify({ ID: 'held-elsewhere', Operation: 'vigil apply', Info: JSON.stringify(info), Who: 'ci@build-7', Version: '1', Created: info.createdAt, Path: '' }),
    });
    expect(lock.status).toBe(200);
    const blocked = await run(a, ['state', 'rm', 'api-check.check-0-0']);
    expect(blocked.stderr).toBe(
      `Error: state ${location('shared')} is locked by pid 4242 on build-7 (user ci, "vigil apply", since 2026-11-22T03:00:00.000Z); ` +
        'retry when it is done, or wait for it with --lock-timeout (e.g. --lock-timeout 5m). If that process is gone, remove the lock with: vigil state unlock --force\n',
    );
    const refused = await run(a, ['state', 'unlock']);
    expect(refused.code).toBe(1);
    const unlocked = await run(a, ['state', 'unlock', '--force']);
    expect(unlocked.stdout).toBe(`Removed the lock on ${location('shared')}, held by pid 4242 on build-7 (user ci, "vigil apply", since 2026-11-22T03:00:00.000Z).\n`);
    expect(states.lock('/states/shared')).toBeUndefined();
    const nothing = await run(a, ['state', 'unlock', '--force']);
    expect(nothing.stdout).toBe(`No lock on ${location('shared')}; nothing to do.\n`);
  }, 60_000);
});

describe("state on the target service (state: { backend: 'service' })", () => {
  const run = (project: GeneratedProject, args: string[]) => runVia(project, args, serviceProxy.url);
  const serviceState = async (project: string) => {
    const response = await fetch(`${service.url}/v1/state/${project}`, { headers: { authorization: 'Bearer vigil-local' } });
    return response.status === 404 ? undefined : ((await response.json()) as { lineage: string; serial: number; journal: unknown[]; resources: Record<string, unknown> });
  };
  const serviceLocation = (project: string) => `http state at ${serviceProxy.url}/v1/state/${project}`;
  const OWNER = 'pid 4242 on build-7 (user ci, "vigil apply", since 2026-11-22T03:00:00.000Z)';
  /** Takes the lock as a runner on another machine did before it was killed: with a TTL, never renewed. */
  const lockFromElsewhere = async (project: string, id: string, ttlSeconds?: number) => {
    const info = { pid: 4242, host: 'build-7', user: 'ci', command: 'vigil apply', createdAt: '2026-11-22T03:00:00.000Z' };
    const response = await fetch(`${service.url}/v1/state/${project}/lock`, {
      method: 'POST',
      headers: { authorization: 'Bearer vigil-local', 'content-type': 'application/json' },
      body: JSON.stringify({ ID: id, Operation: 'vigil apply', Info: JSON.stringify(info), Who: 'ci@build-7', Version: '1', Created: info.createdAt, Path: '', ...(ttlSeconds === undefined ? {} : { ttlSeconds }) }),
    });
    expect(response.status).toBe(200);
    return (await response.json()) as { ID: string; expiresAt: string };
  };
  /** The service's answer to someone else asking for the lock (423 with the holder): it never takes a held lock. */
  const heldLock = async (project: string) => {
    const response = await fetch(`${service.url}/v1/state/${project}/lock`, {
      method: 'POST',
      headers: { authorization: 'Bearer vigil-local', 'content-type': 'application/json' },
      body: JSON.stringify({ ID: 'the-test-asking' }),
    });
    expect(response.status).toBe(423);
    return (await response.json()) as { expired: boolean };
  };

  it('applies from one checkout, plans nothing from the other, and concurrent applies take turns on the lock', async () => {
    const a = await checkout('svc-a', { state: 'service', logicalId: 'svc' });
    const b = await checkout('svc-b', { state: 'service', logicalId: 'svc' });
    const applied = await run(a, ['apply', '--auto-approve']);
    expect(applied.stderr).toBe('');
    expect(applied.code).toBe(0);
    expect(Object.keys((await serviceState('svc'))!.resources).sort()).toEqual([...a.addresses].sort());
    const planned = await run(b, ['plan', '--detailed-exitcode']);
    expect(planned.stdout).toBe('No changes. Your monitoring matches the code.\n');
    for (const project of [a, b]) expect(await exists(path.join(project.root, '.vigil', 'state.json'))).toBe(false);

    const a2 = await checkout('svc-a', { state: 'service', logicalId: 'svc', frequency: 5 });
    const b2 = await checkout('svc-b', { state: 'service', logicalId: 'svc', frequency: 5 });
    // The first apply is kept inside its lock (the proxy holds its state writes) until the second has said it waits.
    const { first, second } = await applyConcurrently({
      cwd: [a2.root, b2.root],
      env: targetEnv(serviceProxy.url),
      holdWrites: async () => {
        const release = serviceProxy.hold();
        return async () => release();
      },
      // Asking the service would take the lock: a write held in the proxy is made under it, and only the first apply runs.
      holdsLock: async () => serviceProxy.waiting() > 0,
    });
    outputs.push(first, second);
    expect([first.code, second.code]).toEqual([0, 0]);
    expect(first.stderr).toBe('');
    expect(second.stderr).toMatch(
      new RegExp(`^Waiting up to 2m for the lock on ${escape(serviceLocation('svc'))}, held by pid ${first.pid} on .+ \\(user .+, "vigil apply", since .+\\); it expires at \\S+Z unless its holder renews it…\\n$`),
    );
    expect((await serviceState('svc'))!.journal).toEqual([]);
    expect((await run(b2, ['plan', '--detailed-exitcode'])).code).toBe(0);
  }, 180_000);

  it('migrates local state to the service, and unlocks a lock left by a killed apply naming its owner', async () => {
    const project = await checkout('svc-migrate', { state: 'local', logicalId: 'svc-migrated' });
    expect((await run(project, ['apply', '--auto-approve'])).code).toBe(0);
    const local = JSON.parse(await readFile(path.join(project.root, '.vigil', 'state.json'), 'utf8')) as { lineage: string; serial: number };
    await writeFile(project.configPath, (await readFile(project.configPath, 'utf8')).replace("{ backend: 'local' }", "{ backend: 'service' }"));
    const migrated = await run(project, ['state', 'migrate', '--from', 'local']);
    expect(migrated.stderr).toBe('');
    expect(migrated.stdout).toContain(`Copied the state from .vigil/state.json to ${serviceLocation('svc-migrated')}: lineage ${local.lineage}, serial ${local.serial}`);
    expect(await serviceState('svc-migrated')).toMatchObject({ lineage: local.lineage, serial: local.serial });
    await rm(path.join(project.root, '.vigil'), { recursive: true, force: true });
    expect((await run(project, ['plan', '--detailed-exitcode'])).code).toBe(0);

    const changed = await checkout('svc-migrate', { state: 'service', logicalId: 'svc-migrated', frequency: 5 });
    const { child, done } = startVigil(['apply', '--auto-approve'], { cwd: changed.root, env: targetEnv(serviceProxy.url) });
    while ((await serviceState('svc-migrated'))!.serial === local.serial && child.exitCode === null) await new Promise((resolve) => setTimeout(resolve, 2));
    child.kill('SIGKILL');
    await done;
    const pulled = await run(changed, ['state', 'pull']);
    expect(JSON.parse(pulled.stdout)).toEqual(await serviceState('svc-migrated'));
    const unlocked = await run(changed, ['state', 'unlock', '--force']);
    expect(unlocked.stdout).toMatch(new RegExp(`^Removed the lock on ${serviceLocation('svc-migrated').replace(/[.]/g, '\\.')}, held by pid ${child.pid} on .+ \\(user .+, "vigil apply", since .+\\)\\.\\n$`));
    const finished = await run(changed, ['apply', '--auto-approve']);
    expect(finished.code).toBe(0);
    expect((await serviceState('svc-migrated'))!.journal).toEqual([]);
    expect((await run(changed, ['plan', '--detailed-exitcode'])).code).toBe(0);
  }, 180_000);

  it('reports a lock left by a runner killed on another machine as stale once it expired, and vigil state unlock removes it naming its owner', async () => {
    const project = await checkout('svc-expired', { state: 'service', logicalId: 'svc-expired' });
    const location = serviceLocation('svc-expired');
    // A live lock, renewed or not yet due, needs --force (or a person at a terminal) to be removed.
    const live = await lockFromElsewhere('svc-expired', 'runner-live');
    const waited = await run(project, ['state', 'rm', 'api-check.check-0-0', '--lock-timeout', '1s']);
    expect(waited.stderr).toBe(
      `Waiting up to 1s for the lock on ${location}, held by ${OWNER}; it expires at ${live.expiresAt} unless its holder renews it…\n` +
        `Error: state ${location} is locked by ${OWNER}; gave up after waiting 1s (--lock-timeout). If that process is gone, remove the lock with: vigil state unlock --force\n`,
    );
    const refused = await run(project, ['state', 'unlock']);
    expect(refused.stderr).toBe(`Error: vigil state unlock removes the lock on ${location} whoever holds it; if you are sure no vigil is using this state, run it again with --force\n`);
    expect((await heldLock('svc-expired')).expired).toBe(false);
    expect((await run(project, ['state', 'unlock', '--force'])).stdout).toBe(`Removed the lock on ${location}, held by ${OWNER}.\n`);

    const { expiresAt } = await lockFromElsewhere('svc-expired', 'runner-killed', 1);
    await waitFor('the lock of the killed runner to expire on the service', async () => ((await heldLock('svc-expired')).expired ? true : undefined), { intervalMs: 100 });
    const stale =
      `${OWNER}, but that lock expired at ${expiresAt} without being renewed (a running vigil renews its lock), so it is stale: its holder was killed or lost its connection. ` +
      'If no other vigil is using this state, remove the lock with: vigil state unlock --force';
    const blocked = await run(project, ['apply', '--auto-approve']);
    expect(blocked.code).toBe(1);
    expect(blocked.stderr).toBe(`Error: state ${location} is locked by ${stale}\n`);
    const waitedOnStale = await run(project, ['apply', '--auto-approve', '--lock-timeout', '1s']);
    expect(waitedOnStale.stderr).toBe(
      `Waiting up to 1s for the lock on ${location}, held by ${OWNER}; that lock expired at ${expiresAt} without being renewed, so it is stale: its holder was killed or lost its connection. ` +
        'If no other vigil is using this state, remove it with: vigil state unlock --force\n' +
        `Error: state ${location} is locked by ${stale}\n`,
    );

    const unlocked = await run(project, ['state', 'unlock']);
    expect(unlocked.stderr).toBe('');
    expect(unlocked.stdout).toBe(`Removed the lock on ${location}, held by ${OWNER}; it had expired at ${expiresAt} without being renewed.\n`);
    expect((await run(project, ['state', 'unlock'])).stdout).toBe(`No lock on ${location}; nothing to do.\n`);
    const applied = await run(project, ['apply', '--auto-approve']);
    expect(applied.stderr).toBe('');
    expect(applied.code).toBe(0);
  }, 120_000);
});
