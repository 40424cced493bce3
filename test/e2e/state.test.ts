import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import path from 'node:path';
import { createLocalBackend, hashSecret, type StateDocument } from '@vigil/engine';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runVigil } from './cli-process.js';

const LINEAGE = '6f1c1f8e-3f0e-4c8e-9a57-2b7a4b8f0d11';

function preparedState(): StateDocument {
  return {
    version: 1,
    lineage: LINEAGE,
    serial: 7,
    project: 'Shop',
    target: { baseUrl: 'http://127.0.0.1:4010', accountId: 'acc-1' },
    resources: {
      'check-group.web': { kind: 'check-group', remoteId: 12, applied: { name: 'Web' }, dependsOn: [] },
      'api-check.home': {
        kind: 'api-check',
        remoteId: 'b7e1c2d4-0000-4000-8000-000000000001',
        applied: { name: 'Home', environmentVariables: [{ key: 'TOKEN', value: hashSecret('s3cret'), secret: true }] },
        dependsOn: ['check-group.web', 'alert-channel.oncall'],
      },
      'alert-channel.oncall': { kind: 'alert-channel', remoteId: 3, applied: { type: 'EMAIL' }, dependsOn: [] },
    },
    journal: [],
  };
}

let root: string;
let config: string;
let statePath: string;

async function writeProject(options: { statePath?: string } = {}): Promise<void> {
  const state = options.statePath === undefined ? '' : `, state: { backend: 'local', path: ${JSON.stringify(options.statePath)} }`;
  await writeFile(config, `import { defineConfig } from 'vigil';\nexport default defineConfig({ projectName: 'Shop', logicalId: 'shop'${state} });\n`);
  statePath = path.join(root, options.statePath ?? '.vigil/state.json');
  await mkdir(path.dirname(statePath), { recursive: true });
  await writeFile(statePath, `${JSON.stringify(preparedState(), null, 2)}\n`);
}

async function storedState(): Promise<StateDocument> {
  return JSON.parse(await readFile(statePath, 'utf8')) as StateDocument;
}

beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'vigil-e2e-state-'));
  config = path.join(root, 'vigil.config.ts');
  await writeProject();
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('vigil state list and show', () => {
  it('lists a remote id the service chose with its control characters escaped', async () => {
    const state = preparedState();
    state.resources = { 'alert-channel.oncall': { kind: 'alert-channel', remoteId: 'id\u001b[2J\nforged', applied: {}, dependsOn: [] } };
    await writeFile(statePath, JSON.stringify(state));
    const result = await runVigil(['state', 'list', '--config', config]);
    expect(result.stdout).toBe('alert-channel.oncall  alert-channel  id\\u001b[2J\\nforged\n');
    expect(result.code).toBe(0);
  });

  it('lists addresses sorted, with kind and remote id, and notes pending operations', async () => {
    const state = preparedState();
    state.journal.push({ id: 'j1', operation: 'create', address: 'api-check.cart', kind: 'api-check', startedAt: '2026-11-22T03:00:00.000Z', idempotencyKey: 'k1' });
    await writeFile(statePath, JSON.stringify(state));
    const result = await runVigil(['state', 'list', '--config', config]);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(
      [
        'alert-channel.oncall  alert-channel  3',
        'api-check.home        api-check      b7e1c2d4-0000-4000-8000-000000000001',
        'check-group.web       check-group    12',
        '',
      ].join('\n'),
    );
    expect(result.stderr).toBe(
      '\n1 pending operation from an interrupted apply (the next vigil apply finishes it):\n  create api-check.cart (started 2026-11-22T03:00:00.000Z)\n',
    );
  });

  it('lists as JSON', async () => {
    const result = await runVigil(['state', 'list', '--json', '--config', config]);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual([
      { address: 'alert-channel.oncall', kind: 'alert-channel', remoteId: 3 },
      { address: 'api-check.home', kind: 'api-check', remoteId: 'b7e1c2d4-0000-4000-8000-000000000001' },
      { address: 'check-group.web', kind: 'check-group', remoteId: 12 },
    ]);
  });

  it('shows one entry as JSON with secrets still hashed', async () => {
    const result = await runVigil(['state', 'show', 'api-check.home', '--config', config]);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ address: 'api-check.home', ...preparedState().resources['api-check.home'] });
    expect(result.stdout).not.toContain('s3cret');
  });

  it('refuses an unknown address, suggesting the closest one', async () => {
    const result = await runVigil(['state', 'show', 'api-check.hom', '--config', config]);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(`Error: no resource api-check.hom in state (${statePath}); did you mean api-check.home?\n`);
  });

  it('names the file and field of a corrupt state', async () => {
    await writeFile(statePath, JSON.stringify({ ...preparedState(), serial: 'seven' }));
    const result = await runVigil(['state', 'list', '--config', config]);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      `Error: state file ${statePath} is invalid at serial: Invalid input: expected number, received string; vigil left it untouched: fix it or restore it (e.g. from version control)\n`,
    );
  });

  it('finds the state at the config\'s state.path, wherever it is run from', async () => {
    await writeProject({ statePath: 'state/prod.json' });
    const result = await runVigil(['state', 'list', '--config', 'vigil.config.ts'], { cwd: root });
    expect(result.code).toBe(0);
    expect(result.stdout.split('\n')[0]).toBe('alert-channel.oncall  alert-channel  3');
  });
});

describe('vigil state mv and rm', () => {
  it('edits a symlinked state file through the link: the link stays, its target changes, no lock is left beside either', async () => {
    const { lstat, rename, symlink } = await import('node:fs/promises');
    const shared = path.join(root, 'shared-state.json');
    await rename(statePath, shared);
    await symlink(path.relative(path.dirname(statePath), shared), statePath);
    const result = await runVigil(['state', 'mv', 'check-group.web', 'check-group.frontend', '--config', config]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect((await lstat(statePath)).isSymbolicLink()).toBe(true);
    const stored = JSON.parse(await readFile(shared, 'utf8')) as StateDocument;
    expect(Object.keys(stored.resources).sort()).toEqual(['alert-channel.oncall', 'api-check.home', 'check-group.frontend']);
    expect(await readdir(path.dirname(statePath))).toEqual(['state.json']);
    expect((await readdir(root)).filter((name) => name.startsWith('shared-state'))).toEqual(['shared-state.json']);
  });

  it('renames an address, its references follow, the serial moves on, and the lock is gone', async () => {
    const result = await runVigil(['state', 'mv', 'check-group.web', 'check-group.frontend', '--config', config]);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('Moved check-group.web to check-group.frontend; the remote resource (id 12) was not touched.\n');
    const stored = await storedState();
    expect(stored.serial).toBe(8);
    expect(stored.lineage).toBe(LINEAGE);
    expect(stored.resources['check-group.frontend']).toEqual(preparedState().resources['check-group.web']);
    expect(stored.resources['check-group.web']).toBeUndefined();
    expect(stored.resources['api-check.home']?.dependsOn).toEqual(['check-group.frontend', 'alert-channel.oncall']);
    expect(await readdir(path.dirname(statePath))).toEqual(['state.json']);
  });

  it.each([
    ['onto an address that exists', ['api-check.home', 'check-group.web'], 'Error: cannot move api-check.home to check-group.web: check-group.web already exists in state (remove it first with vigil state rm check-group.web)\n'],
    ['to another kind', ['api-check.home', 'multistep-check.home'], 'Error: cannot move api-check.home to multistep-check.home: the resource is of kind api-check, not multistep-check (a remote resource\'s kind cannot change)\n'],
  ])('refuses to move %s and leaves state as it was', async (_name, args, stderr) => {
    const result = await runVigil(['state', 'mv', ...args, '--config', config]);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(stderr);
    expect(await storedState()).toEqual(preparedState());
  });

  it('forgets several resources at once, or none when one of them is unknown', async () => {
    const refused = await runVigil(['state', 'rm', 'alert-channel.oncall', 'check-group.webb', '--config', config]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(`Error: no resource check-group.webb in state (${statePath}); did you mean check-group.web?\n`);
    expect(await storedState()).toEqual(preparedState());

    const removed = await runVigil(['state', 'rm', 'alert-channel.oncall', 'check-group.web', '--config', config]);
    expect(removed.code).toBe(0);
    expect(removed.stdout).toBe(
      'Removed alert-channel.oncall from state (remote id 3).\n' +
        'Removed check-group.web from state (remote id 12).\n' +
        'The remote resources were left untouched and are no longer managed by vigil; delete them in the service if no longer wanted.\n',
    );
    expect(Object.keys((await storedState()).resources)).toEqual(['api-check.home']);
  }, 60_000);

  it('forgets a resource and says the remote one is left untouched', async () => {
    const result = await runVigil(['state', 'rm', 'alert-channel.oncall', '--config', config]);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(
      'Removed alert-channel.oncall from state (remote id 3).\n' +
        'The remote resource was left untouched and is no longer managed by vigil; delete it in the service if no longer wanted.\n',
    );
    const stored = await storedState();
    expect(Object.keys(stored.resources).sort()).toEqual(['api-check.home', 'check-group.web']);
    expect(stored.resources['api-check.home']?.dependsOn).toEqual(['check-group.web']);
  });
});

describe('vigil state and the lock', () => {
  it('says whose lock it waits for, then fails naming the owner and how long it waited', async () => {
    const backend = createLocalBackend({ path: statePath });
    const lock = await backend.lock({ timeoutMs: 0, command: 'vigil apply' });
    try {
      const owner = JSON.parse(await readFile(`${statePath}.lock`, 'utf8')) as { user: string; createdAt: string };
      const result = await runVigil(['state', 'rm', 'alert-channel.oncall', '--lock-timeout', '200ms', '--config', config]);
      expect(result.code).toBe(1);
      const holder = `pid ${process.pid} on ${hostname()} (user ${owner.user}, "vigil apply", since ${owner.createdAt})`;
      expect(result.stderr).toBe(
        `Waiting up to 200ms for the lock on ${statePath}, held by ${holder}…\n` +
          `Error: state ${statePath} is locked by ${holder}; gave up after waiting 200ms (--lock-timeout).\n`,
      );
    } finally {
      await lock.release();
    }
    expect(await storedState()).toEqual(preparedState());
  });

  it('refuses a --lock-timeout without a unit', async () => {
    const result = await runVigil(['state', 'mv', 'api-check.home', 'api-check.index', '--lock-timeout', '30', '--config', config]);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe('Error: invalid --lock-timeout "30": use a duration like 0s, 500ms, 30s or 5m\n');
  });

  it('reports a stale lock with the exact unlock command, which then removes it', async () => {
    const dead = spawnSync(process.execPath, ['-e', '']);
    const owner = { id: 'x', pid: dead.pid, host: hostname(), user: 'ci', command: 'vigil apply', createdAt: '2026-11-22T03:00:00.000Z' };
    await writeFile(`${statePath}.lock`, JSON.stringify(owner));

    const blocked = await runVigil(['state', 'mv', 'api-check.home', 'api-check.index', '--lock-timeout', '30s', '--config', config]);
    expect(blocked.code).toBe(1);
    expect(blocked.stderr).toBe(
      `Error: state ${statePath} is locked by pid ${dead.pid} on ${hostname()} (user ci, "vigil apply", since 2026-11-22T03:00:00.000Z), ` +
        'but that process is no longer running (it crashed or was killed), so the lock is stale. ' +
        `If no other vigil is using this state, remove the lock with: vigil state unlock --force --config ${config}\n`,
    );

    const unforced = await runVigil(['state', 'unlock', '--config', config]);
    expect(unforced.code).toBe(1);
    expect(unforced.stderr).toBe(
      `Error: vigil state unlock removes the lock on ${statePath} whoever holds it; if you are sure no vigil is using this state, run it again with --force\n`,
    );

    const unlocked = await runVigil(['state', 'unlock', '--force', '--config', config]);
    expect(unlocked.code).toBe(0);
    expect(unlocked.stdout).toBe(
      `Removed the lock on ${statePath}, held by pid ${dead.pid} on ${hostname()} (user ci, "vigil apply", since 2026-11-22T03:00:00.000Z).\n`,
    );

    const moved = await runVigil(['state', 'mv', 'api-check.home', 'api-check.index', '--config', config]);
    expect(moved.code).toBe(0);
    expect((await storedState()).resources['api-check.index']).toBeDefined();
  }, 90_000);
});
