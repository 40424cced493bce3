/**
 * Two `vigil apply` runs on one shared state whose overlap holds by construction, whatever the
 * machine's speed: the state's writes are held (by the backend's server, or a proxy in front of it)
 * before the first starts, so once it holds the lock it cannot finish; the second starts only then,
 * and the writes go on only once the second has said it waits. Without this, two processes started
 * together overlap by luck, and on a fast machine the first may be done before the second asks.
 */
import { startVigil, waitFor, type VigilResult } from './cli.js';

export interface ConcurrentAppliesOptions {
  /** The two checkouts of one project, and the environment both run with. */
  readonly cwd: readonly [string, string];
  readonly env: Readonly<Record<string, string>>;
  /** Makes the state's writes wait until the returned function is called. */
  holdWrites(): Promise<() => Promise<void>>;
  /**
   * Whether process `pid` holds the state's lock now. It must not take the lock to find out (as an
   * http backend's probe does): the first apply would then wait for the test.
   */
  holdsLock(pid: number): Promise<boolean>;
  /** Passed to both applies; the default waits up to 2m for the lock. */
  readonly args?: readonly string[];
}

export interface ConcurrentApplies {
  readonly first: VigilResult & { readonly pid: number };
  readonly second: VigilResult;
}

export async function applyConcurrently(options: ConcurrentAppliesOptions): Promise<ConcurrentApplies> {
  const args = options.args ?? ['apply', '--auto-approve', '--lock-timeout', '2m'];
  const releaseWrites = await options.holdWrites();
  let released = false;
  const release = async () => {
    if (released) return;
    released = true;
    await releaseWrites();
  };
  const first = startVigil(args, { cwd: options.cwd[0], env: options.env });
  let second: ReturnType<typeof startVigil> | undefined;
  try {
    await waitFor('the first apply to hold the lock', async () => ((await options.holdsLock(first.child.pid!)) ? true : undefined), { timeoutMs: 60_000 });
    second = startVigil(args, { cwd: options.cwd[1], env: options.env });
    let secondStderr = '';
    second.child.stderr!.on('data', (chunk: string) => (secondStderr += chunk));
    await waitFor('the second apply to say it waits for the lock', async () => (secondStderr.includes('Waiting up to') ? true : undefined), { timeoutMs: 60_000 });
    await release();
    const [firstResult, secondResult] = await Promise.all([first.done, second.done]);
    return { first: { ...firstResult, pid: first.child.pid! }, second: secondResult };
  } finally {
    // A failed wait must not leave the applies stuck behind held writes.
    await release();
    first.child.kill();
    second?.child.kill();
  }
}
