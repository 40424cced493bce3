/**
 * Whether the project will load a generated file: the same globs the loader's discovery applies
 * (`checks.checkMatch`, `checks.ignoreDirectoriesMatch`). Checked before anything is written, since
 * state naming a resource whose code is never loaded would make the next plan delete it.
 */
import picomatch from 'picomatch';
import { DEFAULT_CHECK_MATCH } from '../load/discover.js';

export function isLoadedMonitorFile(options: {
  /** Path relative to the project root, with `/` separators. */
  readonly relativePath: string;
  readonly checkMatch?: string | readonly string[] | undefined;
  readonly ignoreDirectoriesMatch?: readonly string[] | undefined;
}): boolean {
  const { relativePath } = options;
  if (relativePath.startsWith('../') || relativePath.split('/').includes('node_modules')) return false;
  const patterns = options.checkMatch === undefined ? DEFAULT_CHECK_MATCH : [options.checkMatch].flat();
  if (!picomatch([...patterns], { dot: false })(relativePath)) return false;
  const ignored = (options.ignoreDirectoriesMatch ?? []).map((pattern) => pattern.replace(/\/+$/, ''));
  if (ignored.length === 0) return true;
  const isIgnored = picomatch(ignored, { dot: true });
  const parts = relativePath.split('/').slice(0, -1);
  return !parts.some((_, index) => isIgnored(parts.slice(0, index + 1).join('/')));
}
