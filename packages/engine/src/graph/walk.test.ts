import { describe, expect, it } from 'vitest';
import { Graph } from './graph.js';
import { UPSTREAM_FAILED } from './walk.js';

function graphOf(edges: Array<[string, string]>, extra: string[] = []): Graph {
  const graph = new Graph();
  for (const node of new Set([...edges.flat(), ...extra])) graph.addNode(node);
  for (const [from, to] of edges) graph.addEdge(from, to);
  return graph;
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 5));

describe('Graph.walk', () => {
  it('visits a node only after everything it depends on has succeeded', async () => {
    const graph = graphOf([['check.a', 'group.g'], ['check.b', 'group.g'], ['group.g', 'channel.c']]);
    const visited: string[] = [];
    const result = await graph.walk({ parallelism: 4, visit: async (key) => { await tick(); visited.push(key); } });
    expect(visited.indexOf('channel.c')).toBeLessThan(visited.indexOf('group.g'));
    expect(visited.indexOf('group.g')).toBeLessThan(visited.indexOf('check.a'));
    expect(visited.indexOf('group.g')).toBeLessThan(visited.indexOf('check.b'));
    expect(result).toEqual({ succeeded: visited, failed: [], skipped: [] });
  });

  it('with reverse, visits dependents first (the delete order)', async () => {
    const graph = graphOf([['check.a', 'group.g'], ['check.b', 'group.g']]);
    const visited: string[] = [];
    await graph.walk({ parallelism: 1, reverse: true, visit: async (key) => { visited.push(key); } });
    expect(visited).toEqual(['check.a', 'check.b', 'group.g']);
  });

  it('runs independent nodes concurrently, never more than the parallelism', async () => {
    const graph = graphOf([], ['a', 'b', 'c', 'd', 'e']);
    let active = 0;
    let peak = 0;
    await graph.walk({
      parallelism: 2,
      visit: async () => {
        active += 1;
        peak = Math.max(peak, active);
        await tick();
        active -= 1;
      },
    });
    expect(peak).toBe(2);
  });

  it('skips the transitive dependents of a failed node and still completes independent work', async () => {
    const graph = graphOf([['check.a', 'group.g'], ['alert.x', 'check.a'], ['check.b', 'group.h']], ['lonely']);
    const failure = new Error('409 Conflict');
    const result = await graph.walk({
      parallelism: 3,
      visit: async (key) => {
        if (key === 'group.g') throw failure;
      },
    });
    expect(result.failed).toEqual([{ key: 'group.g', error: failure }]);
    expect(result.skipped).toEqual([
      { key: 'alert.x', reason: UPSTREAM_FAILED },
      { key: 'check.a', reason: UPSTREAM_FAILED },
    ]);
    expect([...result.succeeded].sort()).toEqual(['check.b', 'group.h', 'lonely']);
  });

  it('skips a node with two prerequisites when one fails, even if the other succeeds later', async () => {
    const graph = graphOf([['c', 'a'], ['c', 'b']]);
    const visited: string[] = [];
    const result = await graph.walk({
      parallelism: 2,
      visit: async (key) => {
        if (key === 'a') throw new Error('a broke');
        await tick();
        visited.push(key);
      },
    });
    expect(visited).toEqual(['b']);
    expect(result.skipped).toEqual([{ key: 'c', reason: UPSTREAM_FAILED }]);
    expect(result.failed.map((failure) => failure.key)).toEqual(['a']);
  });

  it('refuses a cyclic graph before visiting anything', async () => {
    const graph = graphOf([['a', 'b'], ['b', 'a']]);
    const visited: string[] = [];
    await expect(graph.walk({ parallelism: 1, visit: async (key) => { visited.push(key); } })).rejects.toThrow(
      'dependency cycle: a -> b -> a',
    );
    expect(visited).toEqual([]);
  });

  it('rejects a parallelism below 1', async () => {
    await expect(graphOf([], ['a']).walk({ parallelism: 0, visit: async () => {} })).rejects.toThrow(
      'parallelism must be a positive integer, got 0',
    );
  });
});
