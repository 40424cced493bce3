/**
 * How a script process is started: the layers between user code and the machine it runs on. Each
 * layer is there because the one before it can be got around; each is tested on its own
 * (./sandbox.test.ts) and docs/sandbox.md says what each one guarantees.
 *
 * 1. Node's permission model, always: the process may read only its own code, the project it runs
 *    for (`vigil test`) and its run directory, write only the run directory, and may not start child
 *    processes or workers, load native addons or reach Node's internal bindings. That shuts out
 *    `/proc/<parent>/environ`, the service's database, `curl` and raw `tcp_wrap` sockets.
 * 2. Resource limits, wherever `prlimit` exists (util-linux): CPU seconds, data memory (what
 *    `Buffer`s take, which V8's heap limit does not count), open files, processes. A process that
 *    passes one is killed by the kernel, and the pool names the limit. User code also runs at a
 *    lower CPU priority (`nice`), so a busy script slows its own run, not the service's API.
 * 3. Where the service runs as root and bubblewrap is installed: a mount namespace holding only
 *    the system's libraries, Node, the worker's code and the run directory; pid, IPC and UTS
 *    namespaces (no other process is visible, `/proc` is the sandbox's own); a uid of its own with no
 *    capabilities and no way to gain any; and, where the cgroup file system is writable, a cgroup per
 *    process with its memory and process count capped.
 *
 * Every layer also ties the process's life to the pool's: it is killed when its parent dies
 * (`--pdeathsig`, bubblewrap's `--die-with-parent`), so no script outlives the service.
 */
import { execFileSync } from 'node:child_process';
import { accessSync, constants, rmdirSync } from 'node:fs';
import { cgroupDirectory, makeCgroup, processesIn, sharedCpuCgroup } from './cgroups.js';
import os from 'node:os';
import path from 'node:path';

export interface SandboxLimits {
  /** Kernel limit on CPU time, whole seconds (RLIMIT_CPU); the process gets SIGXCPU past it. */
  cpuSeconds: number;
  /** Data memory in bytes (RLIMIT_DATA; and the cgroup's memory limit where there is one). */
  memoryBytes: number;
  /** Open file descriptors (RLIMIT_NOFILE): sockets count too. */
  openFiles: number;
  /** Processes and threads of the sandbox (the cgroup's pids.max; RLIMIT_NPROC under its own uid). */
  processes: number;
}

export const DEFAULT_SANDBOX_LIMITS: SandboxLimits = {
  cpuSeconds: 30,
  memoryBytes: 768 * 1024 * 1024,
  openFiles: 256,
  processes: 64,
};

/** What this machine lets the pool use, found once per process. */
export interface SandboxSupport {
  /** `prlimit` is installed: resource limits apply. */
  prlimit: string | null;
  /** `nice` (coreutils) is installed: user code runs at a lower CPU priority than the service. */
  nice: string | null;
  /** `setpriv` is installed: the process dies with its parent, and under root changes its uid. */
  setpriv: string | null;
  /** Running as root with bubblewrap installed: namespaces and a uid of its own. */
  bubblewrap: string | null;
  /** Writable cgroup directories the pool may make children in (cgroup v1 `memory` and `pids`). */
  cgroups: { memory: string | null; pids: string | null; cpu?: string | null };
}

function findProgram(name: string): string | null {
  for (const dir of ['/usr/bin', '/bin', '/usr/sbin', '/sbin', '/usr/local/bin']) {
    const file = path.join(dir, name);
    try {
      accessSync(file, constants.X_OK);
      return file;
    } catch {
      // not here
    }
  }
  return null;
}

/** Whether bubblewrap can actually make its namespaces here (a container may forbid them). */
function bubblewrapWorks(bwrap: string): boolean {
  try {
    execFileSync(bwrap, ['--unshare-pid', '--unshare-ipc', '--die-with-parent', '--ro-bind', '/', '/', '--proc', '/proc', '--', '/bin/true'], { stdio: 'ignore', timeout: 10_000 });
    return true;
  } catch {
    return false;
  }
}

let detected: SandboxSupport | undefined;

export function sandboxSupport(): SandboxSupport {
  if (detected) return detected;
  const root = process.getuid?.() === 0;
  const bwrap = root ? findProgram('bwrap') : null;
  const setpriv = findProgram('setpriv');
  detected = {
    prlimit: findProgram('prlimit'),
    nice: findProgram('nice'),
    setpriv,
    // Without setpriv the process would keep root inside the namespaces: not a sandbox worth the name.
    bubblewrap: bwrap !== null && setpriv !== null && bubblewrapWorks(bwrap) ? bwrap : null,
    cgroups: root ? { memory: cgroupDirectory('memory'), pids: cgroupDirectory('pids'), cpu: cgroupDirectory('cpu') } : { memory: null, pids: null, cpu: null },
  };
  return detected;
}

/**
 * The one notice `vigil server` prints at start: which layers user code runs under here, and, in
 * plain words, what is missing and how to get it.
 */
export function describeSandbox(support: SandboxSupport = sandboxSupport()): string {
  const layers = ["Node's permission model"];
  if (support.prlimit) layers.push('resource limits');
  if (support.bubblewrap) layers.push('namespaces and a uid of their own (bubblewrap)');
  if (support.cgroups.memory || support.cgroups.pids || support.cgroups.cpu) layers.push('cgroup limits');
  const missing: string[] = [];
  if (!support.prlimit) missing.push('prlimit (util-linux) is not installed, so CPU, memory and open-file limits do not apply');
  if (process.getuid?.() !== 0) {
    missing.push('the service does not run as root, so scripts run as its own user, see the same processes and share its network namespace');
  } else if (!support.bubblewrap) {
    missing.push(support.setpriv ? 'bubblewrap is not installed or cannot make namespaces here (apt-get install bubblewrap), so scripts run as root with the service\'s view of the machine' : 'setpriv (util-linux) is not installed, so scripts cannot be given a uid of their own');
  } else if (!support.cgroups.memory && !support.cgroups.pids) {
    missing.push('the cgroup file system is not writable, so memory and processes are limited per process only');
  }
  const head = `user code runs in processes of its own account under ${layers.join(', ')}`;
  return missing.length === 0 ? `${head}.` : `${head}; ${missing.join('; ')} (docs/sandbox.md).`;
}

export interface SandboxRequest {
  /** Node's own flags (heap size, loaders). */
  nodeArgs: readonly string[];
  /** The worker's entry file and its arguments. */
  entry: string;
  entryArgs: readonly string[];
  /** Directories the process may read besides its run directory (its code, the project). */
  readRoots: readonly string[];
  /** The run's own directory: its cwd, the only place it may write. */
  runDirectory: string;
  /** A number unique among live sandboxes: names the cgroups, and picks the uid unless `uidKey` does. */
  slot: number;
  /** Picks the uid instead of `slot`: the same key, the same uid (a tenant's runs sharing its cache). */
  uidKey?: number;
  limits: SandboxLimits;
  /**
   * Only the tests turn Node's permission model off, to show the layers below it hold on their own
   * (a child process that bubblewrap's pid namespace takes down, a fork bomb the cgroup stops).
   */
  permissionModel?: boolean;
  /**
   * Off for Playwright runs: a browser needs child processes (so no permission model either) and
   * reserves far more address space and CPU than a script's limits allow; their deadline kills the
   * whole run instead, and the namespaces and cgroups still apply.
   */
  resourceLimits?: boolean;
  /** Directories the process may write besides its run directory (none for scripts). */
  writeRoots?: readonly string[];
}

export interface SandboxCommand {
  command: string;
  args: string[];
  /** The uid the process runs as under bubblewrap (the run directory must be its own), else null. */
  uid: number | null;
  /** Removes what the sandbox made outside the process (its cgroups); call once the process is gone. */
  release(): void;
  /** Kills every process left in the sandbox's cgroups (belt and braces after killing the process itself). */
  killAll(): void;
}

/** How much lower than the service's the CPU priority of user code is (nice(1)'s scale, 19 the lowest). */
const SANDBOX_NICENESS = 10;

/** Sandboxes run as uids no account on the machine has, one per live sandbox. */
const FIRST_SANDBOX_UID = 2_100_000_000;
const SANDBOX_UIDS = 1_000_000;

/** Directories every sandbox needs read-only: the dynamic linker and libraries, and name resolution. */
const SYSTEM_READ_ONLY = ['/usr', '/lib', '/lib64', '/lib32', '/bin', '/sbin', '/etc/resolv.conf', '/etc/hosts', '/etc/nsswitch.conf', '/etc/ssl', '/etc/ca-certificates', '/etc/localtime', '/etc/fonts', '/etc/chromium', '/etc/chromium.d', '/etc/alternatives'];

function exists(file: string): boolean {
  try {
    accessSync(file);
    return true;
  } catch {
    return false;
  }
}

/**
 * bubblewrap's arguments that show `readOnly` and the writable run directory at their own paths.
 * The directories on the way to each are made first, world-readable: bubblewrap would otherwise make
 * them readable by root alone, and the sandbox's uid could not walk through them.
 */
function mountPoints(readOnly: readonly string[], writable: readonly string[]): string[] {
  const made = new Set<string>(['/', '/tmp', '/proc', '/dev']);
  const readOnlyMounts: string[] = [];
  const writableMounts: string[] = [];
  const below = (dir: string, mounts: readonly string[]) => mounts.some((mount) => dir === mount || dir.startsWith(`${mount}/`));
  const args: string[] = [];
  const mount = (dir: string, how: '--ro-bind' | '--bind', same: string[]) => {
    // Already visible as wanted through a mount of the same kind above it.
    if (below(dir, same)) return;
    const parts = dir.split('/').filter(Boolean);
    for (let depth = 1; depth < parts.length; depth++) {
      const ancestor = `/${parts.slice(0, depth).join('/')}`;
      // Inside a mount the directories on the way exist already.
      if (made.has(ancestor) || below(ancestor, readOnlyMounts) || below(ancestor, writableMounts)) continue;
      made.add(ancestor);
      args.push('--perms', '0755', '--dir', ancestor);
    }
    args.push(how, dir, dir);
    same.push(dir);
  };
  for (const dir of [...readOnly].sort((a, b) => a.length - b.length)) mount(dir, '--ro-bind', readOnlyMounts);
  // Writable directories may lie inside a read-only one (a run inside its workspace): bound on top.
  for (const dir of [...writable].sort((a, b) => a.length - b.length)) mount(dir, '--bind', writableMounts);
  return args;
}

/** The command line that starts `request.entry` inside every layer this machine supports. */
export function sandboxCommand(request: SandboxRequest, support: SandboxSupport = sandboxSupport()): SandboxCommand {
  const { limits } = request;
  const readRoots = [...new Set(request.readRoots.map((dir) => path.resolve(dir)))];
  const permissions = [
    '--experimental-permission',
    // Node 20 aborts on a path given twice (an assertion in its permission tree), so each once.
    ...readRoots.filter((dir) => dir !== request.runDirectory).map((dir) => `--allow-fs-read=${dir}`),
    `--allow-fs-read=${request.runDirectory}`,
    `--allow-fs-write=${request.runDirectory}`,
  ];
  const node = [
    process.execPath,
    ...(request.permissionModel === false ? [] : permissions),
    // The permission model's warning would land in every run's output.
    '--no-warnings',
    ...request.nodeArgs,
    request.entry,
    ...request.entryArgs,
  ];
  let command: string[] = node;
  let uid: number | null = null;
  const cgroups: string[] = [];
  /** Cgroups the process joins that other sandboxes share: never emptied or removed by this one. */
  const joined: string[] = [];
  if (support.bubblewrap && support.setpriv) {
    uid = FIRST_SANDBOX_UID + ((request.uidKey ?? request.slot) % SANDBOX_UIDS);
    const name = `vigil-sandbox-${process.pid}-${request.slot}`;
    const memory = makeCgroup(support.cgroups.memory, name, { 'memory.limit_in_bytes': String(limits.memoryBytes) });
    const pids = makeCgroup(support.cgroups.pids, name, { 'pids.max': String(limits.processes) });
    for (const dir of [memory, pids]) if (dir) cgroups.push(dir);
    const nodeHome = path.dirname(path.dirname(process.execPath));
    const binds = mountPoints([...SYSTEM_READ_ONLY, ...(nodeHome === '/usr' ? [] : [nodeHome]), ...readRoots].filter(exists), [request.runDirectory, ...(request.writeRoots ?? [])]);
    command = [
      support.bubblewrap,
      '--unshare-pid',
      '--unshare-ipc',
      '--unshare-uts',
      '--unshare-cgroup-try',
      '--die-with-parent',
      '--new-session',
      // /tmp first: binds of directories below it (the run directory, a worker built from sources) go on top.
      '--tmpfs',
      '/tmp',
      '--proc',
      '/proc',
      '--dev',
      '/dev',
      ...binds,
      '--chdir',
      request.runDirectory,
      '--',
      support.setpriv,
      `--reuid=${uid}`,
      `--regid=${uid}`,
      '--clear-groups',
      '--inh-caps=-all',
      '--bounding-set=-all',
      '--no-new-privs',
      ...node,
    ];
  } else if (support.setpriv) {
    command = [support.setpriv, '--pdeathsig=KILL', ...node];
  }
  const cpu = sharedCpuCgroup(support.cgroups.cpu ?? null);
  if (cpu) joined.push(cpu);
  // User code yields the CPU to the service: an endless loop in a script must not slow the API down.
  if (support.nice) command = [support.nice, '-n', String(SANDBOX_NICENESS), ...command];
  if (support.prlimit && request.resourceLimits !== false) {
    // Soft limit SIGXCPU (which names the limit), hard limit one second later SIGKILL (which cannot be caught).
    command = [support.prlimit, `--cpu=${limits.cpuSeconds}:${limits.cpuSeconds + 1}`, `--data=${limits.memoryBytes}`, `--nofile=${limits.openFiles}`, ...(uid !== null ? [`--nproc=${limits.processes}`] : []), '--', ...command];
  }
  if (cgroups.length > 0 || joined.length > 0) {
    // The shell puts itself into the cgroups, then becomes the sandbox: every process it starts is
    // inside them from its first instruction. Paths are arguments, never part of the script.
    command = ['/bin/sh', '-c', 'while [ "$1" != -- ]; do echo $$ > "$1" || exit 97; shift; done; shift; exec "$@"', 'vigil-sandbox', ...[...cgroups, ...joined].map((dir) => path.join(dir, 'cgroup.procs')), '--', ...command];
  }
  return {
    command: command[0]!,
    args: command.slice(1),
    uid,
    killAll() {
      for (const dir of cgroups) {
        for (const pid of processesIn(dir)) {
          try {
            process.kill(pid, 'SIGKILL');
          } catch {
            // already gone
          }
        }
      }
    },
    release() {
      for (const dir of cgroups) {
        try {
          rmdirSync(dir);
        } catch {
          // still busy for a moment after its last process; the kernel frees it with the parent
        }
      }
    },
  };
}

/**
 * The signal that ended the sandboxed program. bubblewrap and the shell in front of it exit with
 * 128 + N when the program inside was killed by signal N, so the signal shows up as an exit code.
 */
export function signalOf(code: number | null, signal: NodeJS.Signals | null): NodeJS.Signals | null {
  if (signal !== null || code === null || code <= 128) return signal;
  const name = Object.entries(os.constants.signals).find(([, number]) => number === code - 128)?.[0];
  return (name as NodeJS.Signals | undefined) ?? null;
}
