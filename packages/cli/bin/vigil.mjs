#!/usr/bin/env node
// Runs the bundle in ../dist. In the repository, where the TypeScript sources sit beside it, the
// sources run through tsx instead while any of them is newer than the bundle (scripts/sources.mjs;
// `pnpm build`, also run on install, refreshes it), so an edit is never shadowed by a stale build;
// VIGIL_FROM_SOURCE=1 forces the sources. The published package has no sources: always the bundle.
import { existsSync } from 'node:fs';

let fromSource = false;
if (existsSync(new URL('../src/main.ts', import.meta.url))) {
  const { bundleIsFresh } = await import('../scripts/sources.mjs');
  fromSource = process.env.VIGIL_FROM_SOURCE === '1' || !bundleIsFresh();
}

let main;
if (fromSource) {
  const { register } = await import('tsx/esm/api');
  register();
  ({ main } = await import('../src/main.ts'));
} else {
  ({ main } = await import('../dist/main.mjs'));
}
process.exitCode = await main(process.argv);
