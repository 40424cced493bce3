/**
 * The API executor's call site for setup/teardown scripts. User scripts never run in the runner's
 * own process; the child-process pool that runs them is `../scripts` (helper-owned), adapted here.
 */
import type { ResolvedRunnerOptions, ScriptHooks } from '../types.js';

const NOT_AVAILABLE = 'setup and teardown scripts cannot run yet in this build of vigil (the script pool is missing)';

/** Hooks that refuse to run scripts: each script fails its run with a clear reason. */
export function unavailableScriptHooks(_options: ResolvedRunnerOptions): ScriptHooks {
  return {
    runSetup: async ({ request }) => ({ value: request, logs: [], error: NOT_AVAILABLE }),
    runTearDown: async () => ({ value: null, logs: [], error: NOT_AVAILABLE }),
    close: async () => undefined,
  };
}
