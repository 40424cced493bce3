import { describe, expect, it } from 'vitest';
import { Graph, GraphCycleError } from './graph.js';

type Edge = [from: string, to: string];

function graphOf(nodes: string[], edges: Edge[]): Graph {
  const graph = new Graph();
  for (const node of nodes) graph.addNode(node);
  for (const [from, to] of edges) graph.addEdge(from, to);
  return graph;
}

/** Nodes are the letters used by the edges unless a case lists extra isolated ones. */
function lettersOf(edges: Edge[], extra: string[] = []): string[] {
  return [...new Set([...edges.flat(), ...extra])];
}

describe('Graph ordering', () => {
  const cases: Array<{ name: string; edges: Edge[]; extra?: string[]; order: string[]; reverse: string[] }> = [
    { name: 'an empty graph has an empty order', edges: [], order: [], reverse: [] },
    { name: 'isolated nodes come out sorted', edges: [], extra: ['c', 'a', 'b'], order: ['a', 'b', 'c'], reverse: ['a', 'b', 'c'] },
    { name: 'a dependency comes before its dependent', edges: [['a', 'b']], order: ['b', 'a'], reverse: ['a', 'b'] },
    { name: 'a chain is walked from its far end', edges: [['a', 'b'], ['b', 'c']], order: ['c', 'b', 'a'], reverse: ['a', 'b', 'c'] },
    {
      name: 'checks sharing a group wait for the group and are deleted before it',
      edges: [['check.home', 'group.web'], ['check.login', 'group.web']],
      order: ['group.web', 'check.home', 'check.login'],
      reverse: ['check.home', 'check.login', 'group.web'],
    },
    {
      name: 'a diamond is ordered in waves, ties broken by key',
      edges: [['d', 'b'], ['d', 'c'], ['b', 'a'], ['c', 'a']],
      order: ['a', 'b', 'c', 'd'],
      reverse: ['d', 'b', 'c', 'a'],
    },
    { name: 'a repeated edge counts once', edges: [['a', 'b'], ['a', 'b']], order: ['b', 'a'], reverse: ['a', 'b'] },
  ];
  it.each(cases)('$name', ({ edges, extra, order, reverse }) => {
    const graph = graphOf(lettersOf(edges, extra), edges);
    expect(graph.topologicalOrder()).toEqual(order);
    expect(graph.reverseTopologicalOrder()).toEqual(reverse);
    expect(graph.problems()).toEqual([]);
  });

  it('lists dependencies, dependents and edges sorted', () => {
    const graph = graphOf(['a', 'b', 'c'], [['a', 'c'], ['a', 'b'], ['b', 'c']]);
    expect(graph.dependenciesOf('a')).toEqual(['b', 'c']);
    expect(graph.dependentsOf('c')).toEqual(['a', 'b']);
    expect(graph.edges()).toEqual([{ from: 'a', to: 'b' }, { from: 'a', to: 'c' }, { from: 'b', to: 'c' }]);
  });
});

describe('Graph cycles', () => {
  const cases: Array<{ name: string; edges: Edge[]; cycles: string[] }> = [
    { name: 'a self-reference', edges: [['a', 'a']], cycles: ['a -> a'] },
    { name: 'two nodes pointing at each other', edges: [['b', 'a'], ['a', 'b']], cycles: ['a -> b -> a'] },
    { name: 'a triangle read from its smallest key', edges: [['c', 'a'], ['a', 'b'], ['b', 'c']], cycles: ['a -> b -> c -> a'] },
    { name: 'the same triangle added in another order', edges: [['b', 'c'], ['c', 'a'], ['a', 'b']], cycles: ['a -> b -> c -> a'] },
    { name: 'a cycle behind an acyclic prefix', edges: [['x', 'm'], ['m', 'n'], ['n', 'm']], cycles: ['m -> n -> m'] },
    { name: 'two separate cycles, sorted', edges: [['y', 'z'], ['z', 'y'], ['a', 'b'], ['b', 'a']], cycles: ['a -> b -> a', 'y -> z -> y'] },
    {
      name: 'interleaved cycles report the one through the smallest successors',
      edges: [['a', 'c'], ['c', 'a'], ['a', 'b'], ['b', 'c']],
      cycles: ['a -> b -> c -> a'],
    },
  ];
  it.each(cases)('$name reads "$cycles"', ({ edges, cycles }) => {
    const graph = graphOf(lettersOf(edges), edges);
    const problems = graph.problems();
    expect(problems.map((problem) => (problem.kind === 'cycle' ? problem.text : problem.kind))).toEqual(cycles);
    expect(() => graph.topologicalOrder()).toThrow(GraphCycleError);
    expect(() => graph.topologicalOrder()).toThrow(`dependency cycle: ${cycles.join('; ')}`);
  });

  it('finds a cycle at the end of a 20,000-node chain without overflowing the stack', () => {
    const edges: Edge[] = [];
    for (let i = 0; i < 20_000; i += 1) edges.push([`n${i}`, `n${i + 1}`]);
    edges.push(['n20000', 'n19999']);
    const graph = graphOf(lettersOf(edges), edges);
    expect(graph.problems()).toEqual([{ kind: 'cycle', cycle: ['n19999', 'n20000', 'n19999'], text: 'n19999 -> n20000 -> n19999' }]);
  });
});

describe('Graph problems', () => {
  it('reports a key added twice once, with how often it was added', () => {
    const graph = graphOf(['a', 'b', 'a', 'a'], []);
    expect(graph.problems()).toEqual([{ kind: 'duplicate-node', key: 'a', occurrences: 3 }]);
    expect(graph.keys()).toEqual(['a', 'b']);
  });

  it('reports an edge to a missing node and leaves it out of the order', () => {
    const graph = graphOf(['a', 'b'], [['a', 'ghost'], ['a', 'b'], ['a', 'ghost']]);
    expect(graph.problems()).toEqual([{ kind: 'dangling-edge', from: 'a', to: 'ghost' }]);
    expect(graph.topologicalOrder()).toEqual(['b', 'a']);
  });

  it('reports an edge from a missing node', () => {
    const graph = graphOf(['b'], [['ghost', 'b']]);
    expect(graph.problems()).toEqual([{ kind: 'dangling-edge', from: 'ghost', to: 'b' }]);
  });
});
