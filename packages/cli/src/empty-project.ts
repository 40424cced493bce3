/**
 * The guard against the most expensive typo: a `checkMatch` that selects nothing (or files that
 * declare nothing) makes a project with no resources, whose plan deletes everything in state,
 * protected resources included. Deleting everything is `vigil destroy`'s job, so plan and apply
 * refuse such a plan unless `--allow-empty` says it is meant.
 */
import type { LoadedProject, StateDocument } from '@vigil/engine';
import { CliError } from './errors.js';

/** Throws when the project plans no resources while state manages some. */
export async function assertProjectNotEmpty(loaded: LoadedProject, state: StateDocument): Promise<void> {
  const managed = Object.keys(state.resources).length;
  // `testOnly` checks are run by `vigil test` but never deployed, so they do not count.
  const declared = loaded.specs.filter((spec) => spec.testOnly !== true).length;
  if (managed === 0 || declared > 0) return;
  const { DEFAULT_CHECK_MATCH } = await import('@vigil/engine');
  const checkMatch = loaded.config?.checks?.checkMatch;
  const patterns = (checkMatch === undefined ? DEFAULT_CHECK_MATCH : [checkMatch].flat()).map((pattern) => JSON.stringify(pattern)).join(', ');
  const found =
    loaded.files.length === 0
      ? `no file under ${loaded.root} matches checks.checkMatch (${patterns})`
      : loaded.files.length === 1
        ? `the one file under ${loaded.root} matching checks.checkMatch (${patterns}) declares no resources`
        : `the ${loaded.files.length} files under ${loaded.root} matching checks.checkMatch (${patterns}) declare no resources`;
  const resources = managed === 1 ? '1 resource' : `${managed} resources`;
  throw new CliError(
    [
      `${found}, but state manages ${resources}: this plan would delete ${managed === 1 ? 'it' : 'them all'}.`,
      'Fix checks.checkMatch in the config (vigil validate warns about patterns that match nothing),',
      'or pass --allow-empty if deleting everything is intended (vigil destroy does that on purpose).',
    ].join('\n'),
  );
}
