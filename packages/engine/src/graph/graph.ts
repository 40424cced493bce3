import { compareKeys, findCycles, formatCycle, type Adjacency } from './cycles.js';
import { walkGraph, type WalkOptions, type WalkResult } from './walk.js';

/** Something structurally wrong with a graph; the caller turns these into user-facing diagnostics. */
export type GraphProblem =
  | { kind: 'duplicate-node'; key: string; occurrences: number }
  | { kind: 'dangling-edge'; from: string; to: string }
  | { kind: 'cycle'; cycle: string[]; text: string };

/** Thrown by ordering and walking when the graph has a cycle; `validate()` callers never see it. */
export class GraphCycleError extends Error {
  readonly cycles: string[][];

  constructor(cycles: string[][]) {
    super(`dependency cycle: ${cycles.map(formatCycle).join('; ')}`);
    this.name = 'GraphCycleError';
    this.cycles = cycles;
  }
}

/**
 * A directed acyclic graph of string keys. It knows nothing about resources: an edge `from → to`
 * means "`from` depends on `to`" (a check that references its group has an edge check → group).
 *
 * Why deletes walk the edges reversed:
 *
 * ```
 *   api-check.home ──► check-group.web ◄── api-check.login
 *
 *   create / update (topologicalOrder):   check-group.web, api-check.home, api-check.login
 *   delete          (reverse order):      api-check.home, api-check.login, check-group.web
 * ```
 *
 * A check can only be created once the group it points at exists, so creation follows the edges
 * from the far end. Deletion is the mirror image: the service refuses to delete a group while it
 * still holds checks (409), so the checks must go first, which is the same walk with every edge
 * turned around.
 *
 * Every order this class returns is deterministic (ties broken by key), so plans and logs read the
 * same on every run.
 */
export class Graph {
  readonly #dependencies = new Map<string, Set<string>>();
  readonly #occurrences = new Map<string, number>();
  readonly #edges: Array<{ from: string; to: string }> = [];
  /** Adjacency in each direction, computed on first use after the last change. */
  #cache: { forward?: Adjacency; reversed?: Adjacency } = {};

  /** Adds a node; adding the same key twice is recorded and reported by {@link problems}. */
  addNode(key: string): void {
    this.#cache = {};
    this.#occurrences.set(key, (this.#occurrences.get(key) ?? 0) + 1);
    if (!this.#dependencies.has(key)) this.#dependencies.set(key, new Set());
  }

  /** Records that `from` depends on `to`. Either end may be added later; a missing end is reported. */
  addEdge(from: string, to: string): void {
    this.#cache = {};
    this.#edges.push({ from, to });
  }

  has(key: string): boolean {
    return this.#dependencies.has(key);
  }

  /** Every node key, sorted. */
  keys(): string[] {
    return [...this.#dependencies.keys()].sort(compareKeys);
  }

  /** Every edge between existing nodes, sorted by `from` then `to`, without repeats. */
  edges(): Array<{ from: string; to: string }> {
    const adjacency = this.#adjacency(false);
    return this.keys().flatMap((from) =>
      [...(adjacency.get(from) ?? [])].sort(compareKeys).map((to) => ({ from, to })),
    );
  }

  /** The keys `key` depends on directly, sorted. */
  dependenciesOf(key: string): string[] {
    return [...(this.#adjacency(false).get(key) ?? [])].sort(compareKeys);
  }

  /** The keys that depend directly on `key`, sorted. */
  dependentsOf(key: string): string[] {
    return [...(this.#adjacency(true).get(key) ?? [])].sort(compareKeys);
  }

  /** Duplicate nodes, edges to or from missing nodes, and cycles, in that order, each group sorted. */
  problems(): GraphProblem[] {
    const problems: GraphProblem[] = [];
    for (const key of this.keys()) {
      const occurrences = this.#occurrences.get(key) ?? 0;
      if (occurrences > 1) problems.push({ kind: 'duplicate-node', key, occurrences });
    }
    const dangling = this.#edges
      .filter(({ from, to }) => !this.has(from) || !this.has(to))
      .sort((a, b) => compareKeys(a.from, b.from) || compareKeys(a.to, b.to));
    const seen = new Set<string>();
    for (const edge of dangling) {
      const id = `${edge.from}\u0000${edge.to}`;
      if (seen.has(id)) continue;
      seen.add(id);
      problems.push({ kind: 'dangling-edge', from: edge.from, to: edge.to });
    }
    for (const cycle of findCycles(this.#adjacency(false))) {
      problems.push({ kind: 'cycle', cycle, text: formatCycle(cycle) });
    }
    return problems;
  }

  /** Dependencies before dependents (the create/update order). Throws {@link GraphCycleError}. */
  topologicalOrder(): string[] {
    return this.#order(false);
  }

  /** Dependents before dependencies (the delete order). Throws {@link GraphCycleError}. */
  reverseTopologicalOrder(): string[] {
    return this.#order(true);
  }

  /**
   * Visits every node once its dependencies (or, with `reverse`, its dependents) have succeeded,
   * running up to `parallelism` independent visits at once. A failed visit skips everything that
   * depends on it, transitively; independent work still completes. Throws {@link GraphCycleError}.
   */
  async walk(options: WalkOptions): Promise<WalkResult> {
    const adjacency = this.#adjacency(options.reverse ?? false);
    this.#assertAcyclic();
    return walkGraph(adjacency, options);
  }

  /**
   * key → the keys that must be visited first. Edges with a missing end are dropped here (they are
   * reported by problems()); with `reversed`, every edge is turned around.
   */
  #adjacency(reversed: boolean): Adjacency {
    const cached = reversed ? this.#cache.reversed : this.#cache.forward;
    if (cached) return cached;
    const adjacency = new Map<string, Set<string>>();
    for (const key of this.#dependencies.keys()) adjacency.set(key, new Set());
    for (const { from, to } of this.#edges) {
      if (!this.has(from) || !this.has(to)) continue;
      if (reversed) adjacency.get(to)!.add(from);
      else adjacency.get(from)!.add(to);
    }
    if (reversed) this.#cache.reversed = adjacency;
    else this.#cache.forward = adjacency;
    return adjacency;
  }

  #assertAcyclic(): void {
    const cycles = findCycles(this.#adjacency(false));
    if (cycles.length > 0) throw new GraphCycleError(cycles);
  }

  /**
   * Kahn's algorithm in waves: wave 0 holds the nodes with nothing to wait for, wave n+1 the nodes
   * whose last prerequisite was in wave n; each wave sorted by key, so the order is deterministic.
   */
  #order(reversed: boolean): string[] {
    this.#assertAcyclic();
    const prerequisites = this.#adjacency(reversed);
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
    const order: string[] = [];
    let wave = [...waiting].filter(([, count]) => count === 0).map(([key]) => key).sort(compareKeys);
    while (wave.length > 0) {
      order.push(...wave);
      const next: string[] = [];
      for (const done of wave) {
        for (const key of unblocks.get(done) ?? []) {
          const left = waiting.get(key)! - 1;
          waiting.set(key, left);
          if (left === 0) next.push(key);
        }
      }
      wave = next.sort(compareKeys);
    }
    return order;
  }
}
