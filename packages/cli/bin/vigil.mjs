#!/usr/bin/env node
// Runs the bundle in ../dist (scripts/build.mjs: `pnpm build`, also run on install) while it is newer
// than every source file; otherwise the TypeScript sources through tsx, so an edit is never shadowed
// by a stale build. VIGIL_FROM_SOURCE=1 forces the sources.
import { bundleIsFresh } from '../scripts/sources.mjs';

let main;
if (process.env.VIGIL_FROM_SOURCE !== '1' && bundleIsFresh()) {
  ({ main } = await import('../dist/main.mjs'));
} else {
  const { register } = await import('tsx/esm/api');
  register();
  ({ main } = await import('../src/main.ts'));
}
process.exitCode = await main(process.argv);
