import type { Diagnostic, ResourceSpec } from '@vigil/constructs';
import { Graph } from '../graph/index.js';

/**
 * The resource graph of a project: one node per spec address, one edge per reference (a check →
 * its group). `fromId` references carry a literal id and no ref, so they add no edge.
 */
export function buildResourceGraph(specs: readonly ResourceSpec[]): { graph: Graph; diagnostics: Diagnostic[] } {
  const graph = new Graph();
  const byAddress = new Map<string, ResourceSpec>();
  for (const spec of specs) {
    graph.addNode(spec.address);
    if (!byAddress.has(spec.address)) byAddress.set(spec.address, spec);
  }
  for (const spec of specs) {
    for (const ref of spec.refs) graph.addEdge(spec.address, ref.address);
  }

  const diagnostics: Diagnostic[] = [];
  for (const problem of graph.problems()) {
    switch (problem.kind) {
      case 'duplicate-node': {
        for (const spec of specs.filter((candidate) => candidate.address === problem.key).slice(1)) {
          diagnostics.push({
            severity: 'error',
            message: `duplicate address ${problem.key}: ${problem.occurrences} resources share it`,
            hint: 'Logical ids must be unique per kind within a project; rename one of them.',
            address: spec.address,
            source: spec.source,
          });
        }
        break;
      }
      case 'dangling-edge': {
        const from = byAddress.get(problem.from);
        for (const ref of from?.refs.filter((candidate) => candidate.address === problem.to) ?? []) {
          diagnostics.push({
            severity: 'error',
            message: `${ref.path} refers to ${problem.to}, which is not part of this project`,
            hint: 'Make sure the file that creates it is matched by checks.checkMatch, or use X.fromId(id) for a resource vigil does not manage.',
            address: problem.from,
            path: ref.path,
            ...(from ? { source: from.source } : {}),
          });
        }
        break;
      }
      case 'cycle': {
        const first = byAddress.get(problem.cycle[0] ?? '');
        diagnostics.push({
          severity: 'error',
          message: `dependency cycle: ${problem.text}`,
          hint: 'Resources are created in dependency order; remove one of these references.',
          ...(first ? { address: first.address, source: first.source } : {}),
        });
        break;
      }
      default:
        assertNever(problem);
    }
  }
  return { graph, diagnostics };
}

function assertNever(value: never): never {
  throw new Error(`this is a bug in vigil: unexpected graph problem ${JSON.stringify(value)}`);
}
