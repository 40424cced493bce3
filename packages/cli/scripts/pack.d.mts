/** Types of what pack.mjs exports for its tests (test/e2e/pack.test.ts). */
export interface WorkspaceManifest {
  name: string;
  dependencies?: Record<string, string>;
}

/** `@scope/name/sub` → `@scope/name`, `name/sub` → `name`. */
export function packageNameOf(specifier: string): string;

/**
 * The packed manifest's dependencies: `imported` (what the bundles and declarations import from
 * outside) plus every `external` package a manifest depends on, each with the range the manifests
 * declare (the highest floor when several do). Throws for a package no manifest declares, and for
 * ranges of different majors.
 */
export function deriveDependencies(options: {
  imported: Iterable<string>;
  manifests: readonly WorkspaceManifest[];
  external?: readonly string[];
}): Record<string, string>;
