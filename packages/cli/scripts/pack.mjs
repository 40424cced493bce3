/**
 * `pnpm pack:cli`: builds the publishable package (named in packages/cli/package.json, the one place
 * the name is written; its bin is `vigil`) and writes its tarball to <repo>/dist/.
 * The last line of output is the tarball's absolute path (scripts and tests read it).
 *
 * The package is assembled in <repo>/dist/pack/package/ (git-ignored), never in packages/cli/dist/,
 * which the repository's own CLI runs from while this builds:
 * - dist/*.mjs: the same ESM bundle as `pnpm build` (build.mjs), CLI and `<name>`/`<name>/constructs`;
 * - dist/{index,constructs}.cjs: a CommonJS copy of the constructs for `require('<name>/constructs')`.
 *   It is a second copy of the code, which the constructs are built for: they are recognised by a
 *   `Symbol.for` brand and register into a Project held under a `Symbol.for` key of globalThis;
 * - dist/*.d.ts, *.d.cts: the constructs' and config's types in one file, bundled by
 *   dts-bundle-generator from the workspace sources (@vigil/constructs and @vigil/schema inlined).
 *   Chosen over rollup-plugin-dts (would add rollup) and api-extractor (needs a tsc emit first and
 *   rejects `export *`): it reads the TypeScript sources directly with the compiler the repo pins;
 * - package.json: no `workspace:` left. Its dependencies are derived, not listed by hand: every
 *   package the bundles and declarations import from outside, plus every package build.mjs keeps
 *   external that a bundled workspace package depends on (e.g. @playwright/test, which the runner
 *   may only resolve at run time), each with the range the workspace's package.json files declare.
 *   The CLI's optional peers (better-sqlite3) are not dependencies: npm installs an optional peer
 *   only when asked, so planning against a remote service never compiles native code. Their
 *   ranges must equal what the bundled packages declare (checked here).
 */
import { execFileSync } from 'node:child_process';
import { copyFile, mkdir, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { isBuiltin } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { CLI_ROOT, COMMON_OPTIONS, EXTERNAL, buildCli } from './build.mjs';

const REPO_ROOT = path.resolve(CLI_ROOT, '../..');
const OUT_DIR = path.join(REPO_ROOT, 'dist');
const STAGE = path.join(OUT_DIR, 'pack', 'package');
const STAGE_DIST = path.join(STAGE, 'dist');

const log = (line) => process.stdout.write(`${line}\n`);

/**
 * Packages the bundles import that the published package must not depend on: `pg` requires
 * pg-native (a libpq binding compiled from source) only when its `pg.native` getter is read, which
 * nothing in Vigil does.
 */
export const NEVER_DEPENDENCIES = ['pg-native'];

/** `@scope/name/sub` → `@scope/name`, `name/sub` → `name`. */
export function packageNameOf(specifier) {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

function isPackageSpecifier(specifier) {
  return !isBuiltin(specifier) && !specifier.startsWith('node:') && !specifier.startsWith('.') && !specifier.startsWith('/') && !specifier.startsWith('file:');
}

/** Packages an esbuild metafile's outputs import but did not bundle. */
function externalPackages(metafile) {
  const names = new Set();
  for (const output of Object.values(metafile.outputs)) {
    for (const imported of output.imports) {
      if (imported.external && isPackageSpecifier(imported.path)) names.add(packageNameOf(imported.path));
    }
  }
  return names;
}

/** Packages a declaration file imports (`import … from 'zod'`, `import('zod')`). */
function declarationImports(text) {
  const names = new Set();
  for (const match of text.matchAll(/(?:from\s+|import\s*\(\s*)['"]([^'"]+)['"]/g)) {
    if (isPackageSpecifier(match[1])) names.add(packageNameOf(match[1]));
  }
  return names;
}

/** The CLI's package.json and those of the workspace packages it depends on, transitively. */
async function bundledWorkspacePackages(root) {
  const packagesDir = path.join(REPO_ROOT, 'packages');
  const byName = new Map();
  for (const entry of await readdir(packagesDir)) {
    try {
      const manifest = JSON.parse(await readFile(path.join(packagesDir, entry, 'package.json'), 'utf8'));
      byName.set(manifest.name, manifest);
    } catch {
      // Not a package.
    }
  }
  const reached = new Map();
  const visit = (name) => {
    const manifest = byName.get(name);
    if (!manifest || reached.has(name)) return;
    reached.set(name, manifest);
    for (const [dependency, range] of Object.entries(manifest.dependencies ?? {})) {
      if (String(range).startsWith('workspace:')) visit(dependency);
    }
  };
  visit(root);
  return [...reached.values()];
}

/** `^4.5.0` → [4, 5, 0]: the lowest version a simple range accepts. */
function floorOf(range) {
  const match = /(\d+)\.(\d+)\.(\d+)/.exec(range);
  return match ? match.slice(1).map(Number) : undefined;
}

/**
 * The range for `name` that satisfies every workspace package declaring it: the one with the highest
 * floor (`^4.5.0` over `^4.1.0`). Ranges of different majors cannot both hold: that is an error.
 */
function rangeFor(name, manifests) {
  const declared = manifests
    .map((manifest) => ({ from: manifest.name, range: manifest.dependencies?.[name] }))
    .filter((entry) => entry.range !== undefined && !String(entry.range).startsWith('workspace:'));
  if (declared.length === 0) {
    throw new Error(`the published package needs "${name}", but no workspace package it bundles lists it in "dependencies"`);
  }
  const floors = declared.map((entry) => ({ ...entry, floor: floorOf(entry.range) }));
  if (floors.some((entry) => entry.floor === undefined)) return declared[0].range;
  const majors = new Set(floors.map((entry) => entry.floor[0]));
  if (majors.size > 1) {
    throw new Error(`workspace packages want different majors of "${name}": ${declared.map((entry) => `${entry.from} ${entry.range}`).join(', ')}`);
  }
  floors.sort((a, b) => b.floor[1] - a.floor[1] || b.floor[2] - a.floor[2]);
  return floors[0].range;
}

export function deriveDependencies({ imported, manifests, external = EXTERNAL, peers = {} }) {
  const names = new Set(imported);
  for (const manifest of manifests) {
    for (const name of Object.keys(manifest.dependencies ?? {})) if (external.includes(name)) names.add(name);
  }
  for (const [name, range] of Object.entries(peers)) {
    const needed = rangeFor(name, manifests);
    if (range !== needed) throw new Error(`the CLI's peer "${name}" is ${range}, but the packages it bundles declare ${needed}: make them equal`);
    names.delete(name);
  }
  return Object.fromEntries([...names].sort().map((name) => [name, rangeFor(name, manifests)]));
}

/** The CommonJS copy: constructs.cjs, and index.cjs re-exporting it (as index.ts re-exports the ESM one). */
async function buildCommonJs() {
  const options = {
    ...COMMON_OPTIONS,
    outdir: STAGE_DIST,
    outExtension: { '.js': '.cjs' },
    format: 'cjs',
    // Code that works out its own location (source-location.ts) reads import.meta.url.
    define: { 'import.meta.url': '__vigilImportMetaUrl' },
    banner: { js: "const __vigilImportMetaUrl = require('node:url').pathToFileURL(__filename).href;" },
  };
  const constructs = await build({ ...options, entryPoints: { constructs: 'src/constructs.ts' } });
  const index = await build({
    ...options,
    entryPoints: { index: 'src/index.ts' },
    plugins: [
      {
        name: 'constructs-from-sibling',
        setup(builder) {
          builder.onResolve({ filter: /^@vigil\/constructs$/ }, () => ({ path: './constructs.cjs', external: true }));
        },
      },
    ],
  });
  return [constructs.metafile, index.metafile];
}

/** One declaration file for `<name>/constructs`; `<name>` re-exports it, as the code does. */
async function buildDeclarations() {
  const { generateDtsBundle } = (await import('dts-bundle-generator')).default;
  const [constructs] = generateDtsBundle(
    [{ filePath: path.join(CLI_ROOT, 'src', 'constructs.ts'), output: { noBanner: true } }],
    { preferredConfigPath: path.join(CLI_ROOT, 'scripts', 'tsconfig.dts.json') },
  );
  const header = '// The types of the constructs and defineConfig, bundled by packages/cli/scripts/pack.mjs.\n';
  await writeFile(path.join(STAGE_DIST, 'constructs.d.ts'), header + constructs);
  await writeFile(path.join(STAGE_DIST, 'constructs.d.cts'), header + constructs);
  await writeFile(path.join(STAGE_DIST, 'index.d.ts'), "export * from './constructs.js';\n");
  await writeFile(path.join(STAGE_DIST, 'index.d.cts'), "export * from './constructs.cjs';\n");
  return declarationImports(constructs);
}

function entryPoint(name) {
  return {
    import: { types: `./dist/${name}.d.ts`, default: `./dist/${name}.mjs` },
    require: { types: `./dist/${name}.d.cts`, default: `./dist/${name}.cjs` },
  };
}

async function main() {
  const source = JSON.parse(await readFile(path.join(CLI_ROOT, 'package.json'), 'utf8'));
  const root = JSON.parse(await readFile(path.join(REPO_ROOT, 'package.json'), 'utf8'));
  await rm(path.join(OUT_DIR, 'pack'), { recursive: true, force: true });

  log('bundling the CLI (ESM)…');
  const esm = await buildCli(STAGE_DIST);
  await rm(path.join(STAGE_DIST, 'BUILT'));
  log('bundling the CommonJS copy of the constructs…');
  const cjs = await buildCommonJs();
  log('bundling the declarations…');
  const declared = await buildDeclarations();

  const imported = new Set([...externalPackages(esm), ...cjs.flatMap((metafile) => [...externalPackages(metafile)]), ...declared]);
  for (const name of NEVER_DEPENDENCIES) imported.delete(name);
  const peerDependencies = source.peerDependencies ?? {};
  const dependencies = deriveDependencies({ imported, manifests: await bundledWorkspacePackages(source.name), peers: peerDependencies });
  const manifest = {
    name: source.name,
    version: source.version,
    description: 'Monitoring as code: plan and apply checks, groups and maintenance windows from *.monitor.ts files.',
    type: 'module',
    engines: root.engines,
    bin: { vigil: 'bin/vigil.mjs' },
    main: './dist/index.cjs',
    module: './dist/index.mjs',
    types: './dist/index.d.ts',
    exports: { '.': entryPoint('index'), './constructs': entryPoint('constructs'), './package.json': './package.json' },
    // For TypeScript's older `moduleResolution: node`, which does not read `exports`.
    typesVersions: { '*': { constructs: ['./dist/constructs.d.ts'] } },
    files: ['bin', 'dist'],
    dependencies,
    peerDependencies,
    peerDependenciesMeta: source.peerDependenciesMeta,
  };
  await writeFile(path.join(STAGE, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  await mkdir(path.join(STAGE, 'bin'));
  await copyFile(path.join(CLI_ROOT, 'bin', 'vigil.mjs'), path.join(STAGE, 'bin', 'vigil.mjs'));
  await copyFile(path.join(REPO_ROOT, 'README.md'), path.join(STAGE, 'README.md'));
  log(`dependencies: ${Object.entries(dependencies).map(([name, range]) => `${name}@${range}`).join(', ')}`);
  log(`optional peers: ${Object.entries(peerDependencies).map(([name, range]) => `${name}@${range}`).join(', ')}`);

  const packed = execFileSync('npm', ['pack', '--pack-destination', OUT_DIR, '--silent'], { cwd: STAGE, encoding: 'utf8' });
  const file = packed.trim().split('\n').pop();
  log(path.join(OUT_DIR, file));
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
