/**
 * Each layer of the script sandbox on its own: a small program is started through sandboxCommand
 * with only that layer switched on, and shows what it can and cannot do. The pool's own suite
 * (./scripts.test.ts, "hostile scripts") tests them together, as the service runs them.
 *
 * The bubblewrap and cgroup layers need root and Debian's bubblewrap: CI runs as root and installs
 * it (.ci/run), so there they are required; elsewhere they run when the machine allows.
 */
import { spawn } from 'node:child_process';
import { chmodSync, chownSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { waitUntil } from '../__fixtures__/wait.js';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_SANDBOX_LIMITS, describeSandbox, sandboxCommand, signalOf, sandboxSupport, type SandboxLimits, type SandboxSupport } from './sandbox.js';

const NONE: SandboxSupport = { prlimit: null, nice: null, setpriv: null, bubblewrap: null, cgroups: { memory: null, pids: null } };
const machine = sandboxSupport();
const asRootInCi = process.env.CI === 'true' && process.getuid?.() === 0;
const dirs: string[] = [];
let slot = 1;

afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function tempDir(prefix: string): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  dirs.push(dir);
  return dir;
}

interface Ended {
  code: number | null;
  signal: NodeJS.Signals | null;
  output: string;
}

/** Runs `program` (CommonJS) in a sandbox with only the given layers; resolves when it ends. */
function runSandboxed(program: string, support: SandboxSupport, options: { limits?: Partial<SandboxLimits>; permissionModel?: boolean } = {}): Promise<Ended> {
  const codeDir = tempDir('vigil-sandbox-code-');
  const runDirectory = tempDir('vigil-sandbox-run-');
  const entry = path.join(codeDir, 'program.cjs');
  writeFileSync(entry, program, { mode: 0o644 });
  // Readable by the sandbox's own uid, as the worker's code is.
  chmodSync(codeDir, 0o755);
  const command = sandboxCommand(
    { nodeArgs: [], entry, entryArgs: [], readRoots: [codeDir], runDirectory, slot: slot++, limits: { ...DEFAULT_SANDBOX_LIMITS, ...options.limits }, ...(options.permissionModel === false ? { permissionModel: false } : {}) },
    support,
  );
  if (command.uid !== null) chownSync(runDirectory, command.uid, command.uid);
  return new Promise((resolve) => {
    const child = spawn(command.command, command.args, { env: {}, cwd: runDirectory, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.on('exit', (code, signal) => {
      command.killAll();
      command.release();
      resolve({ code, signal, output });
    });
  });
}

/** Each line the program prints is one probe's answer: `name: outcome`. */
const PROBES = `
const fs = require('node:fs');
const probe = (name, action) => { try { console.log(name + ': ' + String(action())); } catch (error) { console.log(name + ': ' + (error.code ?? error.message)); } };
`;

describe("Node's permission model, alone", () => {
  const secretDir = tempDir('vigil-service-data-');
  const database = path.join(secretDir, 'local.db');
  writeFileSync(database, 'other tenants\' secrets');

  it("denies the parent's /proc, the service's files, child processes, workers, addons and bindings; allows the run directory", async () => {
    const ended = await runSandboxed(
      `${PROBES}
probe('parent cmdline', () => fs.readFileSync('/proc/' + process.ppid + '/cmdline', 'utf8'));
probe('parent environ', () => fs.readFileSync('/proc/' + process.ppid + '/environ', 'utf8'));
probe('database', () => fs.readFileSync(${JSON.stringify(database)}, 'utf8'));
probe('write outside', () => fs.writeFileSync(${JSON.stringify(path.join(secretDir, 'planted'))}, 'x'));
probe('child process', () => require('node:child_process').execFileSync('/bin/true'));
probe('worker', () => new (require('node:worker_threads').Worker)('1', { eval: true }));
probe('addon', () => process.dlopen({ exports: {} }, '/nonexistent.node'));
probe('binding', () => process.binding('tcp_wrap'));
probe('run directory', () => { fs.writeFileSync('scratch', 'mine'); return fs.readFileSync('scratch', 'utf8'); });
`,
      NONE,
    );
    expect(ended.output.trim().split('\n')).toEqual([
      'parent cmdline: ERR_ACCESS_DENIED',
      'parent environ: ERR_ACCESS_DENIED',
      'database: ERR_ACCESS_DENIED',
      'write outside: ERR_ACCESS_DENIED',
      'child process: ERR_ACCESS_DENIED',
      'worker: ERR_ACCESS_DENIED',
      'addon: ERR_DLOPEN_DISABLED',
      'binding: ERR_ACCESS_DENIED',
      'run directory: mine',
    ]);
  });
});

describe.runIf(machine.prlimit !== null)('resource limits (prlimit), alone', () => {
  const limitsOnly: SandboxSupport = { ...NONE, prlimit: machine.prlimit };

  it('stops a memory bomb made of Buffers (which the heap limit does not count) at the data limit', async () => {
    const ended = await runSandboxed(`const kept = []; try { for (;;) kept.push(Buffer.alloc(32 * 1024 * 1024, 1)); } catch (error) { console.log(error.message, kept.length * 32 < 256); }`, limitsOnly, { limits: { memoryBytes: 256 * 1024 * 1024 } });
    expect(ended.output.trim()).toBe('Array buffer allocation failed true');
  });

  it('kills an endless loop at the CPU time limit with SIGXCPU', async () => {
    const ended = await runSandboxed('for (;;) {}', limitsOnly, { limits: { cpuSeconds: 1 } });
    expect(ended.signal).toBe('SIGXCPU');
  });

  it('refuses file descriptors past the open-file limit', async () => {
    const ended = await runSandboxed(`${PROBES}probe('open', () => { for (let i = 0; i < 100; i++) fs.openSync('f' + i, 'w'); return 'all'; });`, limitsOnly, { limits: { openFiles: 32 } });
    expect(ended.output.trim()).toBe('open: EMFILE');
  });
});

describe.runIf(machine.nice !== null)('a lower CPU priority (nice), alone', () => {
  it('runs user code at niceness 10, below the service', async () => {
    const ended = await runSandboxed("console.log(require('node:os').getPriority())", { ...NONE, nice: machine.nice });
    expect(ended.output.trim()).toBe(String(Math.min(19, os.getPriority() + 10)));
  });
});

describe.runIf(machine.setpriv !== null)('the tie to the parent (setpriv --pdeathsig), alone', () => {
  it('kills the sandboxed process when the process that started it is killed', async () => {
    const tied: SandboxSupport = { ...NONE, setpriv: machine.setpriv };
    const codeDir = tempDir('vigil-sandbox-code-');
    const entry = path.join(codeDir, 'forever.cjs');
    writeFileSync(entry, 'setInterval(() => {}, 1000);');
    const command = sandboxCommand({ nodeArgs: [], entry, entryArgs: [], readRoots: [codeDir], runDirectory: tempDir('vigil-sandbox-run-'), slot: slot++, limits: DEFAULT_SANDBOX_LIMITS }, tied);
    // A parent that starts the sandbox, says its pid, and waits to be killed.
    const parent = spawn(process.execPath, ['-e', `const c = require('node:child_process').spawn(${JSON.stringify(command.command)}, ${JSON.stringify(command.args)}, { stdio: 'ignore' }); console.log(c.pid); setInterval(() => {}, 1000);`], { stdio: ['ignore', 'pipe', 'inherit'] });
    const pid = await new Promise<number>((resolve) => parent.stdout.once('data', (chunk: Buffer) => resolve(Number(chunk.toString().trim()))));
    expect(isAlive(pid)).toBe(true);
    parent.kill('SIGKILL');
    await waitUntil('the sandboxed process to die with its parent', () => !isAlive(pid));
  });
});

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('bubblewrap: namespaces and a uid of its own, alone (permission model off)', () => {
  const isolated: SandboxSupport = { ...NONE, bubblewrap: machine.bubblewrap, setpriv: machine.setpriv };

  it.runIf(asRootInCi)('is available where CI runs (as root, with bubblewrap installed by .ci/run)', () => {
    expect(machine.bubblewrap, describeSandbox(machine)).not.toBeNull();
  });

  it.runIf(machine.bubblewrap !== null)('runs as an unprivileged uid that sees only its own processes and none of the service\'s files', async () => {
    const outside = tempDir('vigil-service-data-');
    writeFileSync(path.join(outside, 'local.db'), 'secrets');
    const ended = await runSandboxed(
      `${PROBES}
probe('uid', () => process.getuid() >= 2100000000);
probe('processes', () => fs.readdirSync('/proc').filter((name) => /^\\d+$/.test(name)).length <= 3);
probe('database', () => fs.readFileSync(${JSON.stringify(path.join(outside, 'local.db'))}, 'utf8'));
probe('shadow', () => fs.readFileSync('/etc/shadow', 'utf8'));
probe('root home', () => fs.readdirSync('/root').length);
probe('write /usr', () => fs.writeFileSync('/usr/planted', 'x'));
`,
      isolated,
      { permissionModel: false },
    );
    expect(ended.output.trim().split('\n')).toEqual(['uid: true', 'processes: true', 'database: ENOENT', 'shadow: ENOENT', 'root home: ENOENT', 'write /usr: EROFS']);
  });

  it.runIf(machine.bubblewrap !== null)('takes a detached child down with the run', async () => {
    const ended = await runSandboxed(
      `const child = require('node:child_process').spawn('/bin/sh', ['-c', 'sleep 300'], { detached: true, stdio: 'ignore' }); child.unref(); console.log(child.pid);`,
      isolated,
      { permissionModel: false },
    );
    expect(ended.code).toBe(0);
    // The pid is the namespace's own; what matters is that no `sleep 300` of the sandbox's uid is left.
    await waitUntil('the detached child to be gone with its namespace', () => !sandboxSleepers());
  });
});

/** Whether a `sleep 300` run by a sandbox uid is still alive anywhere on the machine. */
function sandboxSleepers(): boolean {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .some((pid) => {
      try {
        return statSync(`/proc/${pid}`).uid >= 2_100_000_000 && readFileSync(`/proc/${pid}/cmdline`, 'utf8').startsWith('sleep');
      } catch {
        return false;
      }
    });
}

describe('cgroups, alone (permission model off)', () => {
  const grouped: SandboxSupport = { ...NONE, bubblewrap: machine.bubblewrap, setpriv: machine.setpriv, cgroups: machine.cgroups };

  it.runIf(machine.bubblewrap !== null && machine.cgroups.pids !== null)('stops a fork bomb at the process limit', async () => {
    const ended = await runSandboxed(
      `const { spawnSync } = require('node:child_process'); const r = spawnSync('/bin/sh', ['-c', 'i=0; while [ $i -lt 200 ]; do sleep 30 >/dev/null 2>&1 & i=$((i+1)); done; echo all started'], { encoding: 'utf8' }); console.log(r.stderr.includes('Cannot fork') ? 'refused' : r.stdout);`,
      grouped,
      { permissionModel: false, limits: { processes: 16 } },
    );
    expect(ended.output).toContain('refused');
  });

  it.runIf(machine.bubblewrap !== null && machine.cgroups.memory !== null)('kills a process past the memory limit', async () => {
    const ended = await runSandboxed(`const kept = []; for (;;) kept.push(Buffer.alloc(16 * 1024 * 1024, 1));`, grouped, { permissionModel: false, limits: { memoryBytes: 128 * 1024 * 1024 } });
    expect(signalOf(ended.code, ended.signal), ended.output).toBe('SIGKILL');
  });
});

describe('the shared cpu cgroup, alone', () => {
  it.runIf(machine.cgroups.cpu != null)('puts every sandbox of the service in one cgroup capped at all cores but one, with the least weight', async () => {
    const codeDir = tempDir('vigil-sandbox-code-');
    const entry = path.join(codeDir, 'spin.cjs');
    writeFileSync(entry, 'setInterval(() => {}, 1000);', { mode: 0o644 });
    chmodSync(codeDir, 0o755);
    const support: SandboxSupport = { ...NONE, cgroups: { memory: null, pids: null, cpu: machine.cgroups.cpu ?? null } };
    const command = sandboxCommand({ nodeArgs: [], entry, entryArgs: [], readRoots: [codeDir], runDirectory: tempDir('vigil-sandbox-run-'), slot: slot++, limits: DEFAULT_SANDBOX_LIMITS }, support);
    const child = spawn(command.command, command.args, { stdio: 'ignore' });
    try {
      const shared = path.join(machine.cgroups.cpu!, `vigil-sandboxes-${process.pid}`);
      await waitUntil('the sandbox to join the shared cpu cgroup', () => readFileSync(path.join(shared, 'cgroup.procs'), 'utf8').split('\n').includes(String(child.pid)));
      const quota = Number(readFileSync(path.join(shared, 'cpu.cfs_quota_us'), 'utf8'));
      expect(quota).toBe(Math.max(50_000, (os.availableParallelism() - 1) * 100_000));
      expect(readFileSync(path.join(shared, 'cpu.shares'), 'utf8').trim()).toBe('2');
    } finally {
      child.kill('SIGKILL');
      command.release();
    }
  });
});

describe('describeSandbox: the notice vigil server prints once at start', () => {
  it('names every layer when all are there', () => {
    const everything: SandboxSupport = { prlimit: '/usr/bin/prlimit', nice: '/usr/bin/nice', setpriv: '/usr/bin/setpriv', bubblewrap: '/usr/bin/bwrap', cgroups: { memory: '/sys/fs/cgroup/memory', pids: '/sys/fs/cgroup/pids' } };
    const root = process.getuid?.() === 0;
    expect(describeSandbox(everything)).toBe(
      root
        ? "user code runs in processes of its own account under Node's permission model, resource limits, namespaces and a uid of their own (bubblewrap), cgroup limits."
        : "user code runs in processes of its own account under Node's permission model, resource limits, namespaces and a uid of their own (bubblewrap), cgroup limits; the service does not run as root, so scripts run as its own user, see the same processes and share its network namespace (docs/sandbox.md).",
    );
  });

  it('says in plain words what is missing', () => {
    const text = describeSandbox(NONE);
    expect(text).toContain('prlimit (util-linux) is not installed, so CPU, memory and open-file limits do not apply');
    expect(text).toContain('(docs/sandbox.md).');
  });
});
