import pLimit from 'p-limit';
import { compareKeys, type Adjacency } from './cycles.js';

/**
 * The reason given for every node skipped because something it depends on failed. Callers keep
 * these out of their summary of root causes, so users see only what actually broke.
 */
export const UPSTREAM_FAILED = 'upstream dependencies failed';

export interface WalkOptions {
  /** How many visits may run at once (at least 1). */
  parallelism: number;
  /** Called once per node, after every node it waits for has succeeded; a rejection fails the node. */
  visit: (key: string) => Promise<void>;
  /** Walk dependents before dependencies (deletes). */
  reverse?: boolean;
}

export interface WalkResult {
  /** Nodes whose visit resolved, in completion order. */
  succeeded: string[];
  /** The root causes: nodes whose visit rejected, in completion order. */
  failed: Array<{ key: string; error: unknown }>;
  /** Nodes never visited because a node they wait for failed or was skipped, sorted by key. */
  skipped: Array<{ key: string; reason: typeof UPSTREAM_FAILED }>;
}

/** See Graph.walk; `prerequisites` maps each key to the keys that must succeed before it. */
export async function walkGraph(prerequisites: Adjacency, options: WalkOptions): Promise<WalkResult> {
  if (!Number.isInteger(options.parallelism) || options.parallelism < 1) {
    throw new RangeError(`parallelism must be a positive integer, got ${options.parallelism}`);
  }
  const limit = pLimit(options.parallelism);
  const waiting = new Map<string, number>();
  const unblocks = new Map<string, string[]>();
  for (const [key, before] of prerequisites) {
    waiting.set(key, before.size);
    for (const prerequisite of before) {
        const list = unblocks.get(prerequisite);
        if (list) list.push(key);
        else unblocks.set(prerequisite, [key]);
      }
  }

  const result: WalkResult = { succeeded: [], failed: [], skipped: [] };
  const skipped = new Set<string>();
  const running: Array<Promise<void>> = [];

  const skipDependentsOf = (key: string) => {
    const queue = [...(unblocks.get(key) ?? [])];
    while (queue.length > 0) {
      const next = queue.pop()!;
      if (skipped.has(next)) continue;
      skipped.add(next);
      queue.push(...(unblocks.get(next) ?? []));
    }
  };

  const start = (key: string) => {
    const run = limit(async () => {
      try {
        await options.visit(key);
      } catch (error) {
        result.failed.push({ key, error });
        skipDependentsOf(key);
        return;
      }
      result.succeeded.push(key);
      const ready: string[] = [];
      for (const dependent of unblocks.get(key) ?? []) {
        const left = waiting.get(dependent)! - 1;
        waiting.set(dependent, left);
        if (left === 0 && !skipped.has(dependent)) ready.push(dependent);
      }
      for (const next of ready.sort(compareKeys)) start(next);
    });
    running.push(run);
  };

  for (const key of [...waiting.keys()].sort(compareKeys)) {
    if (waiting.get(key) === 0) start(key);
  }
  // Visits schedule their dependents before settling, so draining the list until it stops growing
  // waits for the whole walk.
  for (let settled = 0; settled < running.length; settled += 1) await running[settled];

  result.skipped = [...skipped].sort(compareKeys).map((key) => ({ key, reason: UPSTREAM_FAILED }));
  return result;
}
