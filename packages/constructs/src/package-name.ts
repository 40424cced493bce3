/**
 * The npm package users install and import: its bin is `vigil`, its entry points `@vigil-mon/cli`
 * (`defineConfig`) and `@vigil-mon/cli/constructs`. Scoped, because on the npm registry the bare
 * name `vigil` belongs to an unrelated package: a dependency on it would install someone else's code.
 * packages/cli/package.json carries the same name (its tests hold the two together); pack.mjs and
 * the published manifest read it from there.
 */
export const PACKAGE_NAME = '@vigil-mon/cli';

/**
 * The name projects written before the rename import (`vigil`, `vigil/constructs`). The loader
 * still serves these specifiers from its own modules, so such projects load unchanged; they never
 * resolve from node_modules, where `vigil` would be that unrelated package.
 */
export const LEGACY_PACKAGE_NAME = 'vigil';

/**
 * Whether PACKAGE_NAME is published on the npm registry by this project. Until it is, `vigil init`
 * writes no registry range for it (a range on an unpublished name installs whoever publishes it
 * first), only a `file:` dependency on a tarball vendored in the project. Set it when publishing.
 */
export const PUBLISHED_ON_REGISTRY = false;

/** The file `npm pack` writes for PACKAGE_NAME (`@scope/name` → `scope-name-1.2.3.tgz`). */
export function tarballName(version: string): string {
  return `${PACKAGE_NAME.replace(/^@/, '').replace('/', '-')}-${version}.tgz`;
}

/** Where a project keeps that tarball until the package is on the registry (docs/getting-started.md). */
export const VENDOR_DIR = 'vendor';
