/**
 * Whether packages/cli/dist/ is at least as new as every file it was built from: the sources of the
 * workspace packages it bundles and their package.json files. Scanning ~300 files' times takes a few
 * milliseconds, which buys never running a bundle older than the code beside it.
 */
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const packagesDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const builtStamp = path.join(packagesDir, 'cli', 'dist', 'BUILT');

function newestIn(directory) {
  let newest = 0;
  for (const entry of readdirSync(directory, { withFileTypes: true })) {
    const full = path.join(directory, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestIn(full));
    else newest = Math.max(newest, statSync(full).mtimeMs);
  }
  return newest;
}

export function bundleIsFresh() {
  let built;
  try {
    built = statSync(builtStamp).mtimeMs;
  } catch {
    return false;
  }
  for (const name of readdirSync(packagesDir)) {
    const root = path.join(packagesDir, name);
    try {
      if (statSync(path.join(root, 'package.json')).mtimeMs > built) return false;
      if (newestIn(path.join(root, 'src')) > built) return false;
    } catch {
      // Not a package with sources.
    }
  }
  return true;
}
