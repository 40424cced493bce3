/**
 * Which variable of the project's own files holds a managed construct, so imported code refers to
 * it by that variable (and follows it when it is re-created) rather than by a remote id.
 *
 * The file is not parsed: the loader records where each construct was created (`new X(` at
 * file:line:column), and only the declaration ending right there counts: `export const x = new X(`,
 * or `const x = new X(` with `x` in an `export { … }` list. Anything else (a construct made in a
 * loop or a function) has no variable to import, and import says so.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { ManagedResource, StateDocument } from '@vigil/engine';
import type { ResourceSpec } from '@vigil/constructs';

const IDENTIFIER = '[A-Za-z_$][\\w$]*';
const DECLARED = new RegExp(`(?:^|[;\\n}])\\s*(export\\s+)?(?:const|let|var)\\s+(${IDENTIFIER})\\s*(?::[^=;]*)?=\\s*$`);

/** The exported name of the variable declared by the construct at `line`:`column` (1-based) of `text`. */
export function exportedVariableAt(text: string, line: number, column: number): string | undefined {
  const lines = text.split('\n');
  if (line < 1 || line > lines.length) return undefined;
  const before = [...lines.slice(0, line - 1), lines[line - 1]!.slice(0, Math.max(0, column - 1))].join('\n').replace(/new\s+[\w$.]*\s*$/, '');
  const declared = DECLARED.exec(before);
  if (!declared) return undefined;
  const name = declared[2]!;
  if (declared[1] !== undefined) return name;
  for (const list of text.matchAll(/export\s*\{([^}]*)\}/g)) {
    for (const item of list[1]!.split(',')) {
      const [local, exported] = item.trim().split(/\s+as\s+/);
      if (local === name) return exported?.trim() || name;
    }
  }
  return undefined;
}

/** The resources state maps that the project's code declares, each with its exported variable if any. */
export async function managedResources(root: string, specs: readonly ResourceSpec[], state: StateDocument): Promise<ManagedResource[]> {
  const texts = new Map<string, Promise<string | undefined>>();
  const textOf = (file: string) => {
    let text = texts.get(file);
    if (!text) texts.set(file, (text = readFile(path.resolve(root, file), 'utf8').catch(() => undefined)));
    return text;
  };
  const managed: ManagedResource[] = [];
  for (const spec of specs) {
    const entry = state.resources[spec.address];
    if (!entry) continue;
    const file = spec.source.file.split(path.sep).join('/');
    const text = await textOf(spec.source.file);
    const variable = text === undefined ? undefined : exportedVariableAt(text, spec.source.line, spec.source.column);
    managed.push({
      address: spec.address,
      kind: spec.kind,
      remoteId: entry.remoteId,
      source: { file, line: spec.source.line },
      ...(variable === undefined ? {} : { variable }),
    });
  }
  return managed;
}
