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
 * declare (the highest floor when several do), minus `peers`. Throws for a package no manifest
 * declares, for ranges of different majors, and for a peer whose range differs from the manifests'.
 */
export function deriveDependencies(options: {
  imported: Iterable<string>;
  manifests: readonly WorkspaceManifest[];
  external?: readonly string[];
  /** The CLI's peers (name → range): left out of the dependencies, each range checked against the manifests'. */
  peers?: Readonly<Record<string, string>>;
}): Record<string, string>;
