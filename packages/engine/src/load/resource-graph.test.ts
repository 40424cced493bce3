import { describe, expect, it } from 'vitest';
import type { ResourceSpec } from '@vigil/constructs';
import { buildResourceGraph } from './resource-graph.js';

function spec(address: string, refs: Array<[path: string, address: string]> = [], line = 1): ResourceSpec {
  const [kind, logicalId] = address.split('.') as [ResourceSpec['kind'], string];
  return {
    address,
    kind,
    logicalId,
    payload: {},
    refs: refs.map(([path, to]) => ({ path, address: to })),
    source: { file: 'checks/a.monitor.ts', line, column: 1 },
    protect: false,
    secrets: [],
  };
}

describe('buildResourceGraph', () => {
  it('makes one node per address and one edge per reference', () => {
    const { graph, diagnostics } = buildResourceGraph([
      spec('api-check.home', [['groupId', 'check-group.web']]),
      spec('check-group.web', [['alertChannelSubscriptions[0].alertChannelId', 'alert-channel.pager']]),
      spec('alert-channel.pager'),
    ]);
    expect(diagnostics).toEqual([]);
    expect(graph.topologicalOrder()).toEqual(['alert-channel.pager', 'check-group.web', 'api-check.home']);
  });

  it('reports a second resource with the same address at the second one', () => {
    const { diagnostics } = buildResourceGraph([spec('api-check.home', [], 3), spec('api-check.home', [], 9)]);
    expect(diagnostics).toEqual([
      {
        severity: 'error',
        message: 'duplicate address api-check.home: 2 resources share it',
        hint: 'Logical ids must be unique per kind within a project; rename one of them.',
        address: 'api-check.home',
        source: { file: 'checks/a.monitor.ts', line: 9, column: 1 },
      },
    ]);
  });

  it('reports a reference to an address no resource has, with the referring field', () => {
    const { diagnostics } = buildResourceGraph([spec('api-check.home', [['groupId', 'check-group.gone']], 4)]);
    expect(diagnostics).toEqual([
      {
        severity: 'error',
        message: 'groupId refers to check-group.gone, which is not part of this project',
        hint: 'Make sure the file that creates it is matched by checks.checkMatch, or use X.fromId(id) for a resource vigil does not manage.',
        address: 'api-check.home',
        path: 'groupId',
        source: { file: 'checks/a.monitor.ts', line: 4, column: 1 },
      },
    ]);
  });

  it('reports a cycle once, read from its smallest address, at that resource', () => {
    const { diagnostics } = buildResourceGraph([
      spec('check-group.b', [['x', 'check-group.c']], 2),
      spec('check-group.c', [['x', 'check-group.a']], 3),
      spec('check-group.a', [['x', 'check-group.b']], 1),
    ]);
    expect(diagnostics).toEqual([
      {
        severity: 'error',
        message: 'dependency cycle: check-group.a -> check-group.b -> check-group.c -> check-group.a',
        hint: 'Resources are created in dependency order; remove one of these references.',
        address: 'check-group.a',
        source: { file: 'checks/a.monitor.ts', line: 1, column: 1 },
      },
    ]);
  });
});
