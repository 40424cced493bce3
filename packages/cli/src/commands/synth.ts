import type { Command } from 'commander';
import type { LoadedProject, ResourceSpec } from '@vigil/engine';
import { addLoadOptions, loadFromCommand, printDiagnostics, summaryLine } from './validate.js';

/** What a secret value is printed as, here and in plans. */
export const SENSITIVE = '(sensitive)';

/**
 * `vigil synth --json`, format version 1. Stable: fields are only ever added, and a breaking change
 * bumps `formatVersion`.
 *
 * ```
 * {
 *   "formatVersion": 1,
 *   "project": { "projectName": "...", "logicalId": "..." },
 *   "resources": [            // dependencies before dependents; ties by address
 *     { "address": "api-check.home", "kind": "api-check", "logicalId": "home",
 *       "source": { "file": "checks/home.monitor.ts", "line": 3, "column": 1 },
 *       "protect": false,
 *       "dependsOn": ["check-group.web"],
 *       "payload": { ...create body; references as {"$ref": address}; secrets as "(sensitive)" },
 *       "secrets": ["environmentVariables[0].value"] }
 *   ],
 *   "edges": [ { "from": "api-check.home", "to": "check-group.web", "path": "groupId" } ],
 *   "diagnostics": [ { "severity": "warning", "message": "...", ... } ]   // warnings only
 * }
 * ```
 */
export interface SynthJson {
  formatVersion: 1;
  project: { projectName: string | null; logicalId: string | null };
  resources: Array<{
    address: string;
    kind: string;
    logicalId: string;
    source: ResourceSpec['source'];
    protect: boolean;
    dependsOn: string[];
    payload: Record<string, unknown>;
    secrets: string[];
  }>;
  edges: Array<{ from: string; to: string; path: string }>;
  diagnostics: LoadedProject['diagnostics'];
}

/** The JSON document of a project that loaded without errors. */
export function synthJson(loaded: LoadedProject): SynthJson {
  const byAddress = new Map(loaded.specs.map((spec) => [spec.address, spec]));
  const resources = loaded.graph.topologicalOrder().map((address) => {
    const spec = byAddress.get(address)!;
    return {
      address,
      kind: spec.kind,
      logicalId: spec.logicalId,
      source: spec.source,
      protect: spec.protect,
      dependsOn: loaded.graph.dependenciesOf(address),
      payload: maskSecrets(spec.payload, spec.secrets),
      secrets: [...spec.secrets],
    };
  });
  const edges = resources.flatMap(({ address }) =>
    byAddress.get(address)!.refs.map((ref) => ({ from: address, to: ref.address, path: ref.path })),
  );
  return {
    formatVersion: 1,
    project: { projectName: loaded.config?.projectName ?? null, logicalId: loaded.config?.logicalId ?? null },
    resources,
    edges,
    diagnostics: loaded.diagnostics,
  };
}

/** A copy of `payload` with the value at each secret path (`a.b[0].c`) replaced by `(sensitive)`. */
export function maskSecrets(payload: Record<string, unknown>, secrets: readonly string[]): Record<string, unknown> {
  const copy = structuredClone(payload);
  for (const secret of secrets) {
    const segments = parsePath(secret);
    let node: unknown = copy;
    for (const [index, segment] of segments.entries()) {
      if (typeof node !== 'object' || node === null) break;
      const container = node as Record<string | number, unknown>;
      if (index === segments.length - 1) {
        if (segment in container) container[segment] = SENSITIVE;
      } else {
        node = container[segment];
      }
    }
  }
  return copy;
}

/** `environmentVariables[0].value` → `['environmentVariables', 0, 'value']`. */
function parsePath(text: string): Array<string | number> {
  const segments: Array<string | number> = [];
  for (const match of text.matchAll(/([^.[\]]+)|\[(\d+)\]/g)) {
    segments.push(match[2] !== undefined ? Number(match[2]) : match[1]!);
  }
  return segments;
}

/** The human-readable graph: each resource with its source, payload and dependencies. */
export function synthText(document: SynthJson): string {
  const lines: string[] = [];
  const edgesFrom = new Map<string, SynthJson['edges']>();
  for (const edge of document.edges) edgesFrom.set(edge.from, [...(edgesFrom.get(edge.from) ?? []), edge]);
  for (const resource of document.resources) {
    const { file, line, column } = resource.source;
    lines.push(`${resource.address}  (${file}:${line}:${column})${resource.protect ? '  [protected]' : ''}`);
    for (const edge of edgesFrom.get(resource.address) ?? []) {
      lines.push(`  ${edge.path} -> ${edge.to}`);
    }
    for (const payloadLine of JSON.stringify(resource.payload, null, 2).split('\n')) lines.push(`  ${payloadLine}`);
    lines.push('');
  }
  return lines.join('\n');
}

export function registerSynth(program: Command): void {
  addLoadOptions(
    program.command('synth').description('print the resource graph the project declares: addresses, kinds, payloads and dependencies (offline)'),
  )
    .option('--json', 'print the graph as JSON (formatVersion 1, stable)')
    .addHelpText(
      'after',
      [
        '',
        'Secret values are shown as (sensitive). Resources come in dependency order.',
        'JSON: {formatVersion: 1, project, resources: [{address, kind, logicalId, source, protect,',
        'dependsOn, payload, secrets}], edges: [{from, to, path}], diagnostics}.',
        'With errors, the diagnostics are printed as by `vigil validate` and the exit code is 1.',
      ].join('\n'),
    )
    .action(async (options: { json?: boolean }, command: Command) => {
      const loaded = await loadFromCommand(command);
      const write = (text: string) => process.stdout.write(text);
      if (loaded.diagnostics.some((diagnostic) => diagnostic.severity === 'error')) {
        printDiagnostics(loaded.diagnostics, write);
        write(`${summaryLine(loaded.diagnostics, loaded.project.constructs().length)}\n`);
        process.exitCode = 1;
        return;
      }
      const document = synthJson(loaded);
      if (options.json) {
        write(`${JSON.stringify(document, null, 2)}\n`);
        return;
      }
      printDiagnostics(loaded.diagnostics, write);
      write(synthText(document));
      write(`${document.resources.length} resource${document.resources.length === 1 ? '' : 's'}, ${document.edges.length} edge${document.edges.length === 1 ? '' : 's'}\n`);
    });
}
