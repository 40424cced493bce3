/**
 * The postgres and s3 state backends with the real CLI against a real `vigil server`: state in an
 * embedded PostgreSQL, and in a loopback S3-protocol server with conditional writes
 * (test/support/s3-conditional-server.ts). For each: two checkouts share the state with no file in
 * either; concurrent applies take turns, one naming the backend and the holder while it waits; an
 * apply whose --lock-timeout runs out fails naming the holder; an apply killed with SIGKILL is
 * finished from the other checkout with no check duplicated or lost; local state migrates to it.
 * No password or secret key appears in any output or stored document.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import path from 'node:path';
import { createPostgresBackend, createS3Backend, stateTableName, type StateBackend, type StateDocument } from '@vigil/engine';
import { startServer, type RunningServer } from '@vigil/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startVigil, targetEnv, vigil, type VigilResult } from '../support/cli.js';
import { applyConcurrently } from '../support/concurrent-applies.js';
import { generateProject, type GeneratedProject } from '../support/generate-project.js';
import { useTestPostgres } from '../support/postgres.js';
import { startS3ConditionalServer, type S3ConditionalServer } from '../support/s3-conditional-server.js';

const SIZE = { files: 2, checksPerFile: 6 };
const AWS = { AWS_ACCESS_KEY_ID: 'AKIDE2E', AWS_SECRET_ACCESS_KEY: 'aws-secret-e2e-4d7a' };
const postgres = useTestPostgres();

let s3: S3ConditionalServer;
let service: RunningServer;
let requestLog: string;
let workspace: string;
let databaseUrl: string;
const outputs: VigilResult[] = [];

beforeAll(async () => {
  workspace = await mkdtemp(path.join(tmpdir(), 'vigil-e2e-pg-s3-'));
  requestLog = path.join(workspace, 'requests.jsonl');
  s3 = await startS3ConditionalServer({ accessKeyId: AWS.AWS_ACCESS_KEY_ID, buckets: ['states'] });
  service = await startServer({ port: 0, dataDir: ':memory:', requestLog });
  databaseUrl = await postgres.freshDatabase();
});

afterAll(async () => {
  await service?.close();
  await s3?.close();
  await rm(workspace, { recursive: true, force: true });
  const password = decodeURIComponent(new URL(databaseUrl).password);
  for (const output of outputs) {
    expect(`${output.stdout}${output.stderr}`).not.toContain(AWS.AWS_SECRET_ACCESS_KEY);
    expect(`${output.stdout}${output.stderr}`).not.toContain(password);
  }
});

interface Flavour {
  name: 'postgres' | 's3';
  /** The config's `state` block for a project. */
  state(logicalId: string): string;
  env: () => Record<string, string>;
  /** A backend opened in this process on the same state, to inspect it or hold its lock. */
  open(logicalId: string): StateBackend;
  /** What a lock held by a process killed with SIGKILL needs before the next apply: nothing, or unlock --force. */
  killedLeavesLock: boolean;
  /** Makes every state write wait until the returned function is called, so that a holder stays inside its apply. */
  holdWrites(logicalId: string): Promise<() => Promise<void>>;
}

const flavours: Flavour[] = [
  {
    name: 'postgres',
    state: () => "{ backend: 'postgres' }",
    env: () => ({ VIGIL_STATE_PG_URL: databaseUrl }),
    open: (logicalId) => createPostgresBackend({ connectionString: databaseUrl, workspace: logicalId }),
    killedLeavesLock: false,
    async holdWrites(logicalId) {
      // A whole write reads the document row FOR UPDATE first, so it waits behind this transaction's
      // lock on that row (journal steps, INSERTs, go through: the holder stops at its next whole write).
      const { default: pg } = await import('pg');
      const client = new pg.Client({ connectionString: databaseUrl });
      await client.connect();
      await client.query('BEGIN');
      await client.query(`SELECT 1 FROM ${stateTableName(logicalId)} WHERE kind = 'document' FOR UPDATE`);
      return async () => {
        await client.query('COMMIT');
        await client.end();
      };
    },
  },
  {
    name: 's3',
    state: (logicalId) => `{ backend: 's3', bucket: 'states', key: 'vigil/${logicalId}.json', region: 'us-east-1', endpoint: '${s3.url}' }`,
    env: () => AWS,
    open: (logicalId) => createS3Backend({ bucket: 'states', key: `vigil/${logicalId}.json`, region: 'us-east-1', endpoint: s3.url, credentials: { accessKeyId: AWS.AWS_ACCESS_KEY_ID, secretAccessKey: AWS.AWS_SECRET_ACCESS_KEY } }),
    killedLeavesLock: true,
    holdWrites: async () => {
      const release = s3.holdStateWrites();
      return async () => release();
    },
  },
];

async function checkout(flavour: Flavour, dir: string, logicalId: string, options: { frequency?: number; local?: boolean } = {}): Promise<GeneratedProject> {
  const project = await generateProject({ root: path.join(workspace, dir), ...SIZE, ...(options.frequency === undefined ? {} : { frequency: options.frequency }) });
  const config = await readFile(project.configPath, 'utf8');
  const state = options.local ? "{ backend: 'local' }" : flavour.state(logicalId);
  await writeFile(project.configPath, config.replace("logicalId: 'generated',", `logicalId: '${logicalId}',\n  state: ${state},`));
  return project;
}

async function run(flavour: Flavour, project: GeneratedProject, args: string[]): Promise<VigilResult> {
  const result = await vigil(args, { cwd: project.root, env: targetEnv(service.url, flavour.env()) });
  outputs.push(result);
  return result;
}

async function stored(flavour: Flavour, logicalId: string): Promise<StateDocument> {
  const document = await flavour.open(logicalId).read();
  if (document === undefined) throw new Error(`no ${flavour.name} state for ${logicalId}`);
  return document;
}

async function checksNamed(prefix: string): Promise<string[]> {
  const response = await fetch(`${service.url}/v1/checks?limit=100`, { headers: { authorization: 'Bearer vigil-local' } });
  const checks = (await response.json()) as Array<{ name: string }>;
  return checks.filter((check) => check.name.startsWith(prefix)).map((check) => check.name);
}

function countByName(names: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const name of [...names].sort()) counts.set(name, (counts.get(name) ?? 0) + 1);
  return counts;
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

describe.each(flavours)('state on the $name backend, shared by two checkouts', (flavour) => {
  const id = (suffix: string) => `${flavour.name}-${suffix}`;

  it('applies from one checkout, plans nothing from the other, and concurrent applies take turns naming the backend and the holder', async () => {
    const a = await checkout(flavour, id('a'), id('shared'));
    const b = await checkout(flavour, id('b'), id('shared'));
    const applied = await run(flavour, a, ['apply', '--auto-approve']);
    expect(applied.stderr).toBe('');
    expect(applied.code).toBe(0);
    expect(Object.keys((await stored(flavour, id('shared'))).resources).sort()).toEqual([...a.addresses].sort());
    const planned = await run(flavour, b, ['plan', '--detailed-exitcode']);
    expect(planned.stdout).toBe('No changes. Your monitoring matches the code.\n');

    const a2 = await checkout(flavour, id('a'), id('shared'), { frequency: 5 });
    const b2 = await checkout(flavour, id('b'), id('shared'), { frequency: 5 });
    const env = targetEnv(service.url, flavour.env());
    const location = flavour.open(id('shared')).describe();
    // The first apply is kept inside its lock (its state writes wait) until the second has said it waits.
    const { first, second } = await applyConcurrently({
      cwd: [a2.root, b2.root],
      env,
      holdWrites: () => flavour.holdWrites(id('shared')),
      // Both backends read the lock without taking it.
      holdsLock: async (pid) => (await flavour.open(id('shared')).lockHolder())?.owner?.pid === pid,
    });
    outputs.push(first, second);
    expect([first.code, second.code]).toEqual([0, 0]);
    expect(first.stderr).toBe('');
    expect(second.stderr).toMatch(new RegExp(`^Waiting up to 2m for the lock on ${escape(location)}, held by pid ${first.pid} on .+ \\(user .+, "vigil apply", since .+\\)…\\n$`));
    expect((await stored(flavour, id('shared'))).journal).toEqual([]);
    expect((await run(flavour, b2, ['plan', '--detailed-exitcode'])).code).toBe(0);
  }, 180_000);

  it('fails an apply whose --lock-timeout runs out, naming the holder, and leaves the state as it was', async () => {
    const a = await checkout(flavour, id('a'), id('shared'), { frequency: 10 });
    const backend = flavour.open(id('shared'));
    const before = await stored(flavour, id('shared'));
    const held = await backend.lock({ timeoutMs: 0, command: 'vigil state mv (held by the test)' });
    try {
      const refused = await run(flavour, a, ['apply', '--auto-approve', '--lock-timeout', '1s']);
      expect(refused.code).toBe(1);
      const holder = `pid ${process.pid} on ${hostname()} \\(user [^,]+, "vigil state mv \\(held by the test\\)", since [^)]+\\)`;
      expect(refused.stderr).toMatch(
        new RegExp(
          `^Waiting up to 1s for the lock on ${escape(backend.describe())}, held by ${holder}…\\n` +
            `Error: state ${escape(backend.describe())} is locked by ${holder}; gave up after waiting 1s \\(--lock-timeout\\)\\. If that process is gone, remove the lock with: vigil state unlock --force\\n$`,
        ),
      );
    } finally {
      await held.release();
    }
    expect(await stored(flavour, id('shared'))).toEqual(before);
  }, 60_000);

  it('finishes from the other checkout an apply killed with SIGKILL, with no check duplicated or lost', async () => {
    const a = await checkout(flavour, id('crash-a'), id('crash'));
    const b = await checkout(flavour, id('crash-b'), id('crash'));
    // The request log appears with the service's first request.
    const creates = () =>
      readFile(requestLog, 'utf8').then(
        (text) => text.split('\n').filter((line) => line.includes('"POST"')).length,
        () => 0,
      );
    const before = await creates();
    const namesBefore = await checksNamed('Check ');
    const { child, done } = startVigil(['apply', '--auto-approve'], { cwd: a.root, env: targetEnv(service.url, flavour.env()) });
    while ((await creates()) < before + 5 && child.exitCode === null) await new Promise((resolve) => setTimeout(resolve, 2));
    child.kill('SIGKILL');
    expect((await done).signal).toBe('SIGKILL');
    const location = flavour.open(id('crash')).describe();
    // What the killed apply left is a valid document (stored() validates it) holding only this project's resources.
    const interrupted = await stored(flavour, id('crash'));
    expect(Object.keys(interrupted.resources).filter((address) => !b.addresses.includes(address))).toEqual([]);

    if (flavour.killedLeavesLock) {
      // The lock object outlives its writer: reported stale, then removed naming its owner.
      const refused = await run(flavour, b, ['apply', '--auto-approve']);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(new RegExp(`^Error: state ${escape(location)} is locked by pid ${child.pid} on .+, but that process is no longer running`));
      const unlocked = await run(flavour, b, ['state', 'unlock', '--force']);
      expect(unlocked.stdout).toMatch(new RegExp(`^Removed the lock on ${escape(location)}, held by pid ${child.pid} on .+ \\(user .+, "vigil apply", since .+\\)\\.\\n$`));
    } else {
      // PostgreSQL released the advisory lock when the killed process's session ended.
      const unlocked = await run(flavour, b, ['state', 'unlock', '--force']);
      expect(unlocked.stdout).toBe(`No lock on ${location}; nothing to do.\n`);
    }
    const finished = await run(flavour, b, ['apply', '--auto-approve']);
    expect(finished.stderr).toBe('');
    expect(finished.code).toBe(0);
    const state = await stored(flavour, id('crash'));
    expect(state.journal).toEqual([]);
    expect(Object.keys(state.resources).sort()).toEqual([...b.addresses].sort());
    // Other projects of this file have checks of the same names: the crashed project added exactly one of each.
    const expected = countByName(namesBefore);
    for (const name of b.checkNames) expected.set(name, (expected.get(name) ?? 0) + 1);
    expect(countByName(await checksNamed('Check '))).toEqual(expected);
    expect((await run(flavour, a, ['plan', '--detailed-exitcode'])).code).toBe(0);
  }, 180_000);

  it('pulls, pushes (refused unless newer, then forced), moves and removes entries in it', async () => {
    const a = await checkout(flavour, id('a'), id('shared'), { frequency: 10 });
    const location = flavour.open(id('shared')).describe();
    const pulled = await run(flavour, a, ['state', 'pull']);
    expect(pulled.code).toBe(0);
    const before = await stored(flavour, id('shared'));
    expect(JSON.parse(pulled.stdout)).toEqual(before);
    const file = path.join(workspace, `${flavour.name}-pulled.json`);
    await writeFile(file, pulled.stdout);
    const refused = await run(flavour, a, ['state', 'push', file]);
    expect(refused.stderr).toBe(
      `Error: refusing to replace state ${location} (serial ${before.serial}) with ${file} (serial ${before.serial}): it is not newer, so it would undo later writes (e.g. an apply made since it was pulled). ` +
        `If ${file} really should replace it, run it again with --force (vigil state push --force FILE).\n`,
    );
    const forced = await run(flavour, a, ['state', 'push', '--force', file]);
    expect(forced.stdout).toBe(`Pushed ${file} to ${location}: lineage ${before.lineage}, serial ${before.serial + 1} (it held serial ${before.serial}).\n`);

    const [first] = Object.keys(before.resources).filter((address) => address.startsWith('api-check.')).sort();
    const moved = await run(flavour, a, ['state', 'mv', first!, `${first!}-renamed`]);
    expect(moved.code).toBe(0);
    expect(Object.keys((await stored(flavour, id('shared'))).resources)).toContain(`${first!}-renamed`);
    expect((await run(flavour, a, ['state', 'mv', `${first!}-renamed`, first!])).code).toBe(0);
    const pushedBack = path.join(workspace, `${flavour.name}-after-rm.json`);
    const removed = await run(flavour, a, ['state', 'rm', first!]);
    expect(removed.stdout).toMatch(new RegExp(`^Removed ${escape(first!)} from state`));
    expect(Object.keys((await stored(flavour, id('shared'))).resources)).not.toContain(first);
    // Put the entry back, so the remote check stays managed.
    await writeFile(pushedBack, JSON.stringify({ ...before, serial: (await stored(flavour, id('shared'))).serial + 1 }));
    expect((await run(flavour, a, ['state', 'push', pushedBack])).code).toBe(0);
    expect((await stored(flavour, id('shared'))).resources).toEqual(before.resources);
  }, 120_000);

  it('migrates a project applied with local state to it with one command, read back and compared', async () => {
    const project = await checkout(flavour, id('migrate'), id('migrated'), { local: true });
    expect((await run(flavour, project, ['apply', '--auto-approve'])).code).toBe(0);
    const local = JSON.parse(await readFile(path.join(project.root, '.vigil', 'state.json'), 'utf8')) as { lineage: string; serial: number };
    await writeFile(project.configPath, (await readFile(project.configPath, 'utf8')).replace("{ backend: 'local' }", flavour.state(id('migrated'))));
    const migrated = await run(flavour, project, ['state', 'migrate', '--from', 'local']);
    expect(migrated.stderr).toBe('');
    const location = flavour.open(id('migrated')).describe();
    expect(migrated.stdout).toBe(
      `Copied the state from .vigil/state.json to ${location}: lineage ${local.lineage}, serial ${local.serial}, ${project.addresses.length} resources; read back and identical.\n` +
        '.vigil/state.json was left as it is: once the config change is committed, remove it (and its .wal log) from the repository so that nobody applies with it.\n',
    );
    expect(await stored(flavour, id('migrated'))).toMatchObject({ lineage: local.lineage, serial: local.serial });
    await rm(path.join(project.root, '.vigil'), { recursive: true, force: true });
    const listed = await run(flavour, project, ['state', 'list']);
    expect(listed.stdout.trim().split('\n')).toHaveLength(project.addresses.length);
    expect((await run(flavour, project, ['plan', '--detailed-exitcode'])).stdout).toBe('No changes. Your monitoring matches the code.\n');
  }, 120_000);
});

describe('migrating between the postgres and s3 backends', () => {
  it('copies postgres state to s3 with --from postgres, and back with --from s3://bucket/key', async () => {
    const [pgFlavour, s3Flavour] = flavours as [Flavour, Flavour];
    const logicalId = 'between';
    // An s3 source named by URL takes its region and endpoint from the environment.
    const env = { ...pgFlavour.env(), ...s3Flavour.env(), AWS_REGION: 'us-east-1', AWS_ENDPOINT_URL_S3: s3.url };
    const project = await checkout(pgFlavour, 'between', logicalId);
    const runBoth = async (args: string[]) => {
      const result = await vigil(args, { cwd: project.root, env: targetEnv(service.url, env) });
      outputs.push(result);
      return result;
    };
    expect((await runBoth(['apply', '--auto-approve'])).code).toBe(0);
    const original = await stored(pgFlavour, logicalId);
    await writeFile(project.configPath, (await readFile(project.configPath, 'utf8')).replace(pgFlavour.state(logicalId), s3Flavour.state(logicalId)));
    const toS3 = await runBoth(['state', 'migrate', '--from', 'postgres']);
    expect(toS3.stderr).toBe('');
    expect(toS3.stdout).toContain(`Copied the state from ${pgFlavour.open(logicalId).describe()} to ${s3Flavour.open(logicalId).describe()}: lineage ${original.lineage}, serial ${original.serial}`);
    expect(await stored(s3Flavour, logicalId)).toEqual(original);
    expect((await runBoth(['plan', '--detailed-exitcode'])).code).toBe(0);

    await writeFile(project.configPath, (await readFile(project.configPath, 'utf8')).replace(s3Flavour.state(logicalId), pgFlavour.state(logicalId)));
    const back = await runBoth(['state', 'migrate', '--from', `s3://states/vigil/${logicalId}.json`]);
    expect(back.stderr).toBe('');
    expect(back.stdout).toBe(`${pgFlavour.open(logicalId).describe()} already holds this state (lineage ${original.lineage}, serial ${original.serial}); nothing to copy.\n`);
  }, 120_000);
});
