/**
 * The cgroups (v1) of the sandbox, where the service runs as root and the cgroup file system is
 * writable: one per sandbox for its memory and processes (./sandbox.ts), and one cpu cgroup that
 * every sandbox of the service shares. Made and removed here; joined by the sandbox's start command.
 */
import { accessSync, constants, mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** The writable v1 hierarchy directory of this process for `controller`, or null. */
export function cgroupDirectory(controller: 'memory' | 'pids' | 'cpu'): string | null {
  try {
    const line = readFileSync('/proc/self/cgroup', 'utf8')
      .split('\n')
      .find((entry) => entry.split(':')[1]?.split(',').includes(controller));
    if (!line) return null;
    const dir = path.join('/sys/fs/cgroup', controller, line.split(':').slice(2).join(':'));
    accessSync(dir, constants.W_OK);
    // A directory that can be written may still refuse children (a read-only cgroup mount): try one.
    const probe = path.join(dir, `vigil-probe-${process.pid}`);
    mkdirSync(probe);
    rmdirSync(probe);
    return dir;
  } catch {
    return null;
  }
}


export function makeCgroup(parent: string | null, name: string, settings: Record<string, string>): string | null {
  if (!parent) return null;
  const dir = path.join(parent, name);
  try {
    mkdirSync(dir);
    for (const [file, value] of Object.entries(settings)) writeFileSync(path.join(dir, file), value);
    return dir;
  } catch {
    try {
      rmdirSync(dir);
    } catch {
      // never made
    }
    return null;
  }
}

export function processesIn(cgroup: string): number[] {
  try {
    return readFileSync(path.join(cgroup, 'cgroup.procs'), 'utf8').split('\n').filter(Boolean).map(Number);
  } catch {
    return [];
  }
}


const cpuCgroups = new Map<string, string | null>();

/** Shared cgroups of services that ended without removing theirs (killed): empty ones go. */
function removeAbandoned(parent: string): void {
  try {
    for (const name of readdirSync(parent)) {
      const owner = /^vigil-sandboxes-(\d+)$/.exec(name)?.[1];
      if (owner === undefined || isRunning(Number(owner))) continue;
      try {
        rmdirSync(path.join(parent, name));
      } catch {
        // still holds a process
      }
    }
  } catch {
    // not listable: nothing to tidy
  }
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * One cpu cgroup for every sandbox of this service, capped at all cores but one (half a core on a
 * single-core machine) and given the least weight: user code that spins cannot take the core the
 * service answers its API on, and yields to the service whenever both want the same core.
 * Niceness alone only shortens the service's turn; a busy machine still makes it wait for a core.
 */
export function sharedCpuCgroup(parent: string | null): string | null {
  if (parent === null) return null;
  const known = cpuCgroups.get(parent);
  if (known !== undefined) return known;
  removeAbandoned(parent);
  const period = 100_000;
  const quota = Math.max(period / 2, (os.availableParallelism() - 1) * period);
  // The least weight there is: under contention the service's threads (weight 1024) run first.
  const dir = makeCgroup(parent, `vigil-sandboxes-${process.pid}`, { 'cpu.cfs_period_us': String(period), 'cpu.cfs_quota_us': String(quota), 'cpu.shares': '2' });
  cpuCgroups.set(parent, dir);
  if (dir) {
    process.once('exit', () => {
      try {
        rmdirSync(dir);
      } catch {
        // a sandbox process is still in it; the kernel keeps an empty cgroup at no cost
      }
    });
  }
  return dir;
}
