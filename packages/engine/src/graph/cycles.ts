/**
 * Cycle detection for {@link Graph}. Kept apart from the graph itself because the canonical form of a
 * cycle is a user-facing promise: the same cycle must always read the same, whatever order the files
 * were discovered in, so a user can grep CI logs for it and a test can assert it.
 */

/** Adjacency as the graph stores it: key → the keys it depends on. */
export type Adjacency = ReadonlyMap<string, ReadonlySet<string>>;

/**
 * Every cycle in the graph, one per strongly connected component, each rotated to start at its
 * lexicographically smallest key and closed by repeating that key (`a -> b -> c -> a`).
 *
 * A component with several interleaved cycles reports one of them: the walk from its smallest key
 * that always takes the smallest successor still inside the component. Breaking that cycle makes the
 * next run report the next one, which is how users fix cycles anyway, one edge at a time.
 */
export function findCycles(adjacency: Adjacency): string[][] {
  const cycles: string[][] = [];
  for (const component of stronglyConnectedComponents(adjacency)) {
    const first = component.length === 1 ? component[0] : undefined;
    const isSelfLoop = first !== undefined && (adjacency.get(first)?.has(first) ?? false);
    if (component.length > 1 || isSelfLoop) cycles.push(canonicalCycle(adjacency, new Set(component)));
  }
  return cycles.sort((a, b) => compareKeys(a[0] ?? '', b[0] ?? ''));
}

/** `a -> b -> c -> a`, the form used in diagnostics. */
export function formatCycle(cycle: readonly string[]): string {
  return cycle.join(' -> ');
}

/** Code-unit order, not locale order: the result must not depend on the machine's locale. */
export function compareKeys(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function canonicalCycle(adjacency: Adjacency, component: ReadonlySet<string>): string[] {
  const start = [...component].sort(compareKeys)[0];
  if (start === undefined) throw new Error('this is a bug in vigil: empty strongly connected component');
  // Depth-first search from the smallest key for a path back to it, trying successors in order, so
  // the result does not depend on insertion order.
  const path: string[] = [start];
  const onPath = new Set<string>([start]);
  const deadEnds = new Set<string>();
  const search = (node: string): boolean => {
    const successors = [...(adjacency.get(node) ?? [])].filter((next) => component.has(next)).sort(compareKeys);
    for (const next of successors) {
      if (next === start) return true;
      if (onPath.has(next) || deadEnds.has(next)) continue;
      path.push(next);
      onPath.add(next);
      if (search(next)) return true;
      path.pop();
      onPath.delete(next);
      deadEnds.add(next);
    }
    return false;
  };
  if (!search(start)) throw new Error(`this is a bug in vigil: no cycle through ${start} in its component`);
  return [...path, start];
}

/** Tarjan's algorithm, iterative so a 10,000-node chain cannot overflow the call stack. */
function stronglyConnectedComponents(adjacency: Adjacency): string[][] {
  const index = new Map<string, number>();
  const lowLink = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  let counter = 0;

  for (const root of [...adjacency.keys()].sort(compareKeys)) {
    if (index.has(root)) continue;
    const work: Array<{ node: string; successors: string[]; next: number }> = [];
    const enter = (node: string) => {
      index.set(node, counter);
      lowLink.set(node, counter);
      counter += 1;
      stack.push(node);
      onStack.add(node);
      work.push({ node, successors: [...(adjacency.get(node) ?? [])].sort(compareKeys), next: 0 });
    };
    enter(root);
    while (work.length > 0) {
      const frame = work[work.length - 1]!;
      if (frame.next < frame.successors.length) {
        const successor = frame.successors[frame.next]!;
        frame.next += 1;
        if (!adjacency.has(successor)) continue; // dangling edge: reported elsewhere
        if (!index.has(successor)) enter(successor);
        else if (onStack.has(successor)) {
          lowLink.set(frame.node, Math.min(lowLink.get(frame.node)!, index.get(successor)!));
        }
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) lowLink.set(parent.node, Math.min(lowLink.get(parent.node)!, lowLink.get(frame.node)!));
      if (lowLink.get(frame.node) === index.get(frame.node)) {
        const component: string[] = [];
        let member: string | undefined;
        do {
          member = stack.pop()!;
          onStack.delete(member);
          component.push(member);
        } while (member !== frame.node);
        components.push(component);
      }
    }
  }
  return components;
}
