/**
 * Bundles the CLI into packages/cli/dist/ with esbuild (`pnpm build`; also run on install and before
 * `pnpm test` and `pnpm bench`). bin/vigil.mjs runs the bundle while it is newer than every source
 * file, and the TypeScript sources through tsx otherwise (see sources.mjs).
 *
 * Why: through tsx every command first sent each of its ~300 modules through tsx's loader thread,
 * about 0.3 s before any work on an idle machine and over a second on a busy one, plus a second V8
 * isolate's memory. A bundle starts in a fraction of that.
 *
 * Three entry points share chunks (`splitting`), so `vigil`, `vigil/constructs` and the CLI itself
 * are one module instance: user code loaded by the CLI imports them from here (validate.ts,
 * cliModuleAliases). Packages with native code or their own binaries stay external and resolve from
 * packages/cli/node_modules, which is why the CLI depends on them directly.
 */
import { build } from 'esbuild';
import { rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const cliRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const outdir = path.join(cliRoot, 'dist');

await rm(outdir, { recursive: true, force: true });
await build({
  absWorkingDir: cliRoot,
  entryPoints: { main: 'src/main.ts', index: 'src/index.ts', constructs: 'src/constructs.ts' },
  outdir,
  outExtension: { '.js': '.mjs' },
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  external: ['better-sqlite3', 'esbuild', 'ts-morph', 'typescript', 'tsx'],
  define: { __VIGIL_BUNDLED__: 'true' },
  // CommonJS dependencies (commander, deep-diff) call require() for Node built-ins.
  banner: { js: "import { createRequire as __vigilCreateRequire } from 'node:module'; const require = __vigilCreateRequire(import.meta.url);" },
  logLevel: 'warning',
});
// Written last: its time is the bundle's, which bin/vigil.mjs compares with the sources'.
await writeFile(path.join(outdir, 'BUILT'), `${new Date().toISOString()}\n`);
