import { existsSync } from 'node:fs';
import pLimit from 'p-limit';
import type { Diagnostic, Project, SourceLocation } from '@vigil/constructs';
import { bundleScript, isInsideDirectories, outsideRootHint, realPathOf } from './scripts.js';

/** Stands in for a script whose bundling failed (and was reported). */
const BUNDLING_FAILED = '/* vigil could not bundle this script; see the errors reported with it */';

/** Stands in for a script that was refused (and reported) because it lies outside the project. */
const REFUSED = '/* vigil refused to bundle this script; see the error reported with it */';

/** Structural view of a construct with script entrypoints (it may come from another package copy). */
interface ScriptOwner {
  readonly address: string;
  readonly source: SourceLocation;
  scriptEntrypoints(): Array<{ field: string; path: string; propPath: string }>;
  setBundledScript(field: string, code: string): void;
}

function isScriptOwner(value: unknown): value is ScriptOwner {
  const candidate = value as Partial<ScriptOwner> | null;
  return (
    typeof candidate === 'object' &&
    candidate !== null &&
    typeof candidate.scriptEntrypoints === 'function' &&
    typeof candidate.setBundledScript === 'function'
  );
}

/**
 * Bundles every script entrypoint of the project's constructs (multi-step `code`, API check
 * setup/teardown) and hands the code to its construct before validation. An entrypoint shared by
 * several checks is bundled once. A missing file is left to the construct, which reports it with
 * the prop path the user wrote.
 *
 * Scripts are uploaded, so every file bundled into one must lie in the project root or one of
 * `allowedDirectories` (real paths, from {@link scriptDirectories}); an entrypoint elsewhere
 * (an absolute path, `../..`, a symbolic link pointing out) is an error at the construct.
 */
export async function attachScripts(project: Project, root: string, allowedDirectories: readonly string[]): Promise<Diagnostic[]> {
  const diagnostics: Diagnostic[] = [];
  const bundles = new Map<string, ReturnType<typeof bundleScript>>();
  // esbuild already uses every core for one build; a few builds at once only keep it busy.
  const limit = pLimit(4);
  const work: Array<Promise<void>> = [];
  for (const construct of project.constructs()) {
    if (!isScriptOwner(construct)) continue;
    for (const request of construct.scriptEntrypoints()) {
      if (!existsSync(request.path)) continue;
      const real = realPathOf(request.path);
      if (!isInsideDirectories(real, allowedDirectories)) {
        construct.setBundledScript(request.field, REFUSED);
        const shown = real === request.path ? real : `${request.path} -> ${real}`;
        diagnostics.push({
          severity: 'error',
          message: `"${request.propPath}" (${shown}) is outside the project root, so it cannot be bundled into the check`,
          hint: outsideRootHint(root),
          address: construct.address,
          path: request.propPath,
          source: construct.source,
        });
        continue;
      }
      let bundle = bundles.get(request.path);
      if (bundle === undefined) {
        bundle = limit(() => bundleScript({ root, entrypoint: request.path, allowedDirectories }));
        bundles.set(request.path, bundle);
      }
      const pending = bundle;
      work.push(
        pending.then((result) => {
          // After a failed bundle the construct still gets code, so it does not report the entrypoint as
          // never bundled on top of the real cause; the errors below keep synth from ever using it.
          construct.setBundledScript(request.field, result.script ?? BUNDLING_FAILED);
          for (const diagnostic of result.diagnostics) {
            diagnostics.push({ ...diagnostic, address: construct.address, path: request.propPath });
          }
        }),
      );
    }
  }
  await Promise.all(work);
  return diagnostics;
}
