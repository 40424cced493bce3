import { existsSync, readFileSync } from 'node:fs';
import { createRequire, isBuiltin } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import * as esbuild from 'esbuild';
import type { Diagnostic } from '@vigil/constructs';
import { ALIAS_NAMESPACE, esbuildMessagesToDiagnostics } from './user-errors.js';

export interface BundleProjectOptions {
  /** The project root; esbuild's working directory, and where relative locations start. */
  root: string;
  /** Where the modules are written: a fresh directory of this load, under the root. */
  outdir: string;
  /**
   * Absolute paths of the modules to evaluate (the config, or every monitor file), grouped: each
   * group becomes one output module that imports its members in order.
   */
  groups: ReadonlyArray<readonly string[]>;
  /**
   * Export each group's first member's module namespace as {@link MEMBER_EXPORTS} (how the loader
   * reads the config's default export; a namespace, so a missing default is the loader's to report).
   */
  exportMembers?: boolean;
  /**
   * Bare specifiers (`vigil`, `vigil/constructs`, `@vigil/constructs`) resolved to the very module
   * file the running CLI has loaded, so user code and the loader share one module instance.
   */
  aliases: Readonly<Record<string, string>>;
  /**
   * Modules already evaluated by an earlier bundle: absolute path → URL of that bundle. Importing
   * one of them reuses the evaluated instance instead of running its code a second time.
   */
  evaluated?: Readonly<Record<string, string>>;
}

export interface BundleProjectResult {
  /** URL of the bundled output of each of `groups`, in the same order; absent after errors. */
  entries?: string[];
  diagnostics: Diagnostic[];
}

/**
 * One esbuild build for a set of user modules. Each module is an entry point; code they share (a
 * group file imported by many monitors) is split into chunks, so it exists and runs once. Local
 * imports are inlined, npm packages stay external (resolved from the project's node_modules at
 * evaluation), and tsconfig `paths` are honoured (esbuild reads each file's tsconfig.json).
 *
 * Why one output per group rather than one big file: every construct reads a stack frame to learn
 * where it was created, and V8's cost for a frame's position grows with the size of the code around
 * it, so in a single megabyte-sized bundle 10,000 constructs spend seconds on it. Small modules keep
 * that cheap, and let the loader evaluate (and report failures of) each group separately.
 *
 * Every module keeps its own `__dirname`, `__filename`, `import.meta.url`, `import.meta.dirname`
 * and `import.meta.filename` (Checkly-style files do `path.join(__dirname, 'x.spec.ts')`): bundled
 * code no longer lives at its source's location, so these are replaced by string literals per file
 * at load time. The replacement runs through esbuild's transform with an inline source map, which
 * the bundler composes, so reported lines and columns stay those of the user's file.
 */
export async function bundleProject(options: BundleProjectOptions): Promise<BundleProjectResult> {
  const { root } = options;
  try {
    const result = await esbuild.build({
      absWorkingDir: root,
      entryPoints: options.groups.map((_, index) => `${GROUP_NAMESPACE}:${index}`),
      bundle: true,
      splitting: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      packages: 'external',
      sourcemap: 'inline',
      sourcesContent: false,
      outdir: options.outdir,
      outbase: root,
      entryNames: 'group-[hash]',
      chunkNames: '_chunks/[name]-[hash]',
      outExtension: { '.js': '.mjs' },
      metafile: true,
      write: true,
      logLevel: 'silent',
      // Bundled CommonJS-style code (and `require` in user files) needs a real require in ESM output.
      // It comes from a global rather than an import of node:module: under a module loader with
      // hooks (tsx), every import each module makes is a round trip to the hooks' thread.
      banner: { js: `const require = globalThis[Symbol.for(${JSON.stringify(CREATE_REQUIRE_KEY)})](import.meta.url);` },
      plugins: [vigilLoaderPlugin(options)],
    });
    const outputByEntry = new Map<string, string>();
    for (const [output, meta] of Object.entries(result.metafile.outputs)) {
      if (meta.entryPoint) outputByEntry.set(meta.entryPoint, path.resolve(root, output));
    }
    const entries = options.groups.map((_, index) => {
      const output = outputByEntry.get(`${GROUP_NAMESPACE}:${index}`);
      if (!output) throw new Error(`this is a bug in vigil: esbuild produced no output for group ${index}`);
      return pathToFileURL(output).href;
    });
    const diagnostics = esbuildMessagesToDiagnostics(root, result.warnings, 'warning');
    // Some warnings are errors to vigil (a construct it lacks, see user-errors.ts): nothing to evaluate then.
    if (diagnostics.some((diagnostic) => diagnostic.severity === 'error')) return { diagnostics };
    return { entries, diagnostics };
  } catch (error) {
    if (isBuildFailure(error)) {
      return {
        diagnostics: [
          ...esbuildMessagesToDiagnostics(root, error.errors, 'error'),
          ...esbuildMessagesToDiagnostics(root, error.warnings, 'warning'),
        ],
      };
    }
    throw error;
  }
}

export const LOADERS: Readonly<Record<string, esbuild.Loader>> = {
  '.ts': 'ts',
  '.mts': 'ts',
  '.cts': 'ts',
  '.tsx': 'tsx',
  '.js': 'js',
  '.mjs': 'js',
  '.cjs': 'js',
  '.jsx': 'jsx',
};

const MENTIONS_FILE_LOCATION = /__dirname|__filename|import\.meta/;

/**
 * `Symbol.for` key of the global holding `createRequire`, which every bundled module calls for its
 * `require`; {@link provideCreateRequire} sets it before any of them is evaluated.
 */
export const CREATE_REQUIRE_KEY = 'vigil.createRequire';

export function provideCreateRequire(): void {
  (globalThis as Record<symbol, unknown>)[Symbol.for(CREATE_REQUIRE_KEY)] = createRequire;
}

/** Name under which a group module exports its first member's namespace (see `exportMembers`). */
export const MEMBER_EXPORTS = '__vigilMember';

/** Virtual entry modules: `vigil-group:3` imports the members of group 3, in order. */
const GROUP_NAMESPACE = 'vigil-group';

/** Marks the loader's own `build.resolve` of a bare specifier, which its resolver must not check again. */
const RESOLVING = Symbol('vigil.resolving');

const exportNamesByUrl = new Map<string, Promise<string[]>>();

/** The exports of an aliased module; the CLI has already loaded it, so this costs no evaluation. */
function exportNames(url: string): Promise<string[]> {
  let names = exportNamesByUrl.get(url);
  if (!names) {
    names = import(url).then((namespace: Record<string, unknown>) => Object.keys(namespace));
    exportNamesByUrl.set(url, names);
  }
  return names;
}

/** `const { A, B: b } = require('checkly/constructs')`: the module and the names taken from it. */
const REQUIRE_DESTRUCTURING = /(?:const|let|var)\s*\{([^}]*)\}\s*=\s*require\(\s*(['"])([^'"]+)\2\s*\)/g;

/**
 * The names a file destructures from a `require()` of a vigil alias that the aliased module does
 * not export, as esbuild's own "No matching export" errors at each name (user-errors.ts turns them
 * into "not supported by vigil yet" for a Checkly construct, "has no export named" otherwise).
 */
async function missingRequiredNames(source: string, file: string, aliases: Readonly<Record<string, string>>): Promise<esbuild.PartialMessage[]> {
  const errors: esbuild.PartialMessage[] = [];
  for (const match of source.matchAll(REQUIRE_DESTRUCTURING)) {
    const module = match[3]!;
    const target = aliases[module];
    if (target === undefined) continue;
    const exported = new Set(await exportNames(pathToFileURL(target).href));
    const listStart = match.index + match[0].indexOf('{') + 1;
    for (const entry of match[1]!.matchAll(/[^,]+/g)) {
      const name = entry[0].split(':')[0]!.trim();
      if (name === '' || name.startsWith('...') || exported.has(name)) continue;
      const offset = listStart + entry.index + entry[0].indexOf(name);
      const before = source.slice(0, offset);
      const line = before.split('\n').length;
      const column = offset - (before.lastIndexOf('\n') + 1);
      const lineText = source.split('\n')[line - 1] ?? '';
      errors.push({ text: `No matching export in "${ALIAS_NAMESPACE}:${module}" for import "${name}"`, location: { file, line, column, lineText, namespace: 'file' } });
    }
  }
  return errors;
}

/** `left-pad/x` → `left-pad`, `@scope/name/x` → `@scope/name`. */
function packageName(specifier: string): string {
  const parts = specifier.split('/');
  return (specifier.startsWith('@') ? parts.slice(0, 2) : parts.slice(0, 1)).join('/');
}

/** Whether Node would find the package from `directory`: a `node_modules/<name>` there or above. */
function isInstalled(specifier: string, directory: string): boolean {
  const name = packageName(specifier);
  for (let current = directory; ; current = path.dirname(current)) {
    if (existsSync(path.join(current, 'node_modules', name))) return true;
    if (path.dirname(current) === current) return false;
  }
}

function missingPackageMessage(specifier: string): string {
  return `Cannot find package "${packageName(specifier)}" (imported as "${specifier}"): it is not installed in node_modules of the project or a directory above it`;
}

/** `require()` of a vigil alias: a module re-exporting the aliased ES module (see the plugin). */
const REQUIRED_ALIAS_NAMESPACE = 'vigil-required';

/** Virtual marker modules: `vigil-loaded:3:0` reports that group 3's first member has finished, `vigil-loaded:start:3:0` that it starts. */
const LOADED_NAMESPACE = 'vigil-loaded';

/**
 * `Symbol.for` key of the global function the markers call with the absolute path of each member
 * file that has finished evaluating; set by the loader while it evaluates (see `evaluateModules`).
 */
export const LOADED_KEY = 'vigil.fileLoaded';

/** Like {@link LOADED_KEY}, called before each member file's code runs (`vigil-loaded:start:3:0`). */
export const LOADING_KEY = 'vigil.fileLoading';

function vigilLoaderPlugin(options: BundleProjectOptions): esbuild.Plugin {
  return {
    name: 'vigil-loader',
    setup(build) {
      build.onResolve({ filter: new RegExp(`^${GROUP_NAMESPACE}:\\d+$`) }, (args) => ({
        path: args.path.slice(GROUP_NAMESPACE.length + 1),
        namespace: GROUP_NAMESPACE,
      }));
      build.onLoad({ filter: /.*/, namespace: GROUP_NAMESPACE }, (args) => {
        const members = options.groups[Number(args.path)] ?? [];
        const first = JSON.stringify(members[0]);
        // Imports run in order, so each member's marker runs once that member (top-level awaits
        // included) has finished: what tells the loader which file a stuck load is waiting on.
        const lines = members.flatMap((member, index) => [
          `import "${LOADED_NAMESPACE}:start:${args.path}:${index}";`,
          `import ${JSON.stringify(member)};`,
          `import "${LOADED_NAMESPACE}:${args.path}:${index}";`,
        ]);
        if (options.exportMembers) lines.push(`export * as ${MEMBER_EXPORTS} from ${first};`, `export * from ${first};`);
        return { contents: lines.join('\n'), loader: 'js', resolveDir: options.root };
      });
      build.onResolve({ filter: new RegExp(`^${LOADED_NAMESPACE}:(start:)?\\d+:\\d+$`) }, (args) => ({
        path: args.path.slice(LOADED_NAMESPACE.length + 1),
        namespace: LOADED_NAMESPACE,
      }));
      build.onLoad({ filter: /.*/, namespace: LOADED_NAMESPACE }, (args) => {
        const start = args.path.startsWith('start:');
        const [group, index] = args.path.slice(start ? 'start:'.length : 0).split(':').map(Number) as [number, number];
        const member = JSON.stringify(options.groups[group]?.[index]);
        return { contents: `globalThis[Symbol.for(${JSON.stringify(start ? LOADING_KEY : LOADED_KEY)})]?.(${member});`, loader: 'js' };
      });
      const aliases = withChecklyAliases(options.aliases);
      const aliasNames = Object.keys(aliases);
      if (aliasNames.length > 0) {
        build.onResolve({ filter: new RegExp(`^(${aliasNames.map(escapeRegExp).join('|')})$`) }, (args) =>
          args.kind === 'require-call'
            ? { path: args.path, namespace: REQUIRED_ALIAS_NAMESPACE }
            : { path: args.path, namespace: ALIAS_NAMESPACE },
        );
        // Imports go through a module naming each export of the aliased one, so esbuild checks the
        // names user code imports: every `import { IcmpMonitor } from 'checkly/constructs'` of every
        // file is an error at its line in one build, instead of Node's first "does not provide an
        // export named" at evaluation (see `unsupportedImportDiagnostic`).
        build.onLoad({ filter: /.*/, namespace: ALIAS_NAMESPACE }, async (args) => {
          const url = pathToFileURL(aliases[args.path]!).href;
          const names = await exportNames(url);
          if (!isChecklySpecifier(args.path)) return { contents: `export { ${names.join(', ')} } from ${JSON.stringify(url)};`, loader: 'js' };
          const lines = [`export { ${names.filter((name) => name !== 'CheckGroup').join(', ')} } from ${JSON.stringify(url)};`, ...checklyFlavour(args.path, url, names)];
          return { contents: lines.join('\n'), loader: 'js' };
        });
        // CommonJS user code (`require('vigil/constructs')`) gets the same ES module instance through
        // a module that re-exports it: esbuild hoists its import and hands require() the namespace.
        // A require() of the file itself would fail (a URL, and an ES module Node 20 cannot require).
        build.onLoad({ filter: /.*/, namespace: REQUIRED_ALIAS_NAMESPACE }, async (args) => {
          const url = pathToFileURL(aliases[args.path]!).href;
          const lines = [`export * from ${JSON.stringify(url)};`];
          // An explicit export wins over the star's name of the same name.
          if (isChecklySpecifier(args.path)) lines.push(...checklyFlavour(args.path, url, await exportNames(url)));
          return { contents: lines.join('\n'), loader: 'js' };
        });
      }
      // Packages stay external, so one that is not installed would fail at evaluation, against the
      // temporary bundle's path; found missing here, it is an error at the user's import.
      build.onResolve({ filter: /^[^./]/, namespace: 'file' }, async (args) => {
        if (args.kind !== 'import-statement' || args.pluginData === RESOLVING || isBuiltin(args.path)) return undefined;
        if (args.path.startsWith('file:') || path.isAbsolute(args.path) || isInstalled(args.path, args.resolveDir)) return undefined;
        // Not a package after all when esbuild resolves it to a file (tsconfig `paths`).
        const resolved = await build.resolve(args.path, { kind: args.kind, importer: args.importer, resolveDir: args.resolveDir, pluginData: RESOLVING });
        if (resolved.errors.length > 0 || !resolved.external) return undefined;
        return { errors: [{ text: missingPackageMessage(args.path), notes: [{ text: `Install it in the project (npm install ${packageName(args.path)}), or remove the import.` }] }] };
      });
      // Only the contents we generate below import file URLs.
      build.onResolve({ filter: /^file:\/\// }, (args) => ({ path: args.path, external: true }));

      build.onLoad({ filter: /\.[cm]?[jt]sx?$/ }, async (args) => {
        const evaluatedUrl = options.evaluated?.[args.path];
        if (evaluatedUrl) {
          const url = JSON.stringify(evaluatedUrl);
          const contents = [
            `export * from ${url};`,
            `import { ${MEMBER_EXPORTS} as evaluated } from ${url};`,
            'export default evaluated.default;',
          ].join('\n');
          return { contents, loader: 'js' };
        }
        if (args.path.split(path.sep).includes('node_modules')) return undefined;
        // Most files need nothing from us: esbuild then reads and parses them itself, in parallel.
        // Handing their contents back over its pipe cost a third of the build's time on the main
        // thread with 1,000 files; a synchronous read is cheaper than the promise API's four steps.
        const source = readFileSync(args.path, 'utf8');
        // CommonJS names are only looked up at run time, where the first missing one stops the
        // file; checked here, every one of every file is reported in one build, as imports are.
        if (source.includes('require(') && aliasNames.length > 0) {
          const missing = await missingRequiredNames(source, args.path, aliases);
          if (missing.length > 0) return { errors: missing };
        }
        if (!MENTIONS_FILE_LOCATION.test(source)) return undefined;
        const loader = LOADERS[path.extname(args.path)] ?? 'js';
        try {
          const transformed = await esbuild.transform(source, {
            loader,
            format: 'esm',
            sourcefile: args.path,
            sourcemap: 'inline',
            sourcesContent: false,
            define: fileLocationDefines(args.path),
            logLevel: 'silent',
          });
          return { contents: transformed.code, loader: 'js' };
        } catch (error) {
          // A syntax error in such a file: report it exactly as the bundler would have.
          if (isBuildFailure(error)) return { errors: error.errors, warnings: error.warnings };
          throw error;
        }
      });
    },
  };
}

/** The names a Checkly project imports its constructs by: the `checkly` package, and its older `@checkly/cli`. */
function isChecklySpecifier(specifier: string): boolean {
  return /^(checkly|@checkly\/cli)(\/constructs)?$/.test(specifier);
}

/** `@checkly/cli` and `@checkly/cli/constructs` served as `checkly` and `checkly/constructs` are. */
function withChecklyAliases(aliases: Readonly<Record<string, string>>): Readonly<Record<string, string>> {
  const all = { ...aliases };
  for (const suffix of ['', '/constructs']) {
    const target = aliases[`checkly${suffix}`];
    if (target !== undefined) all[`@checkly/cli${suffix}`] ??= target;
  }
  return all;
}

/**
 * What a Checkly import means beyond Vigil's exports: `CheckGroup` is Checkly's `CheckGroupV1`
 * (Vigil's own `CheckGroup` is the V2 alias), and the package root has the constructs as a
 * namespace too (`import * as checkly from 'checkly'`, `checkly.constructs.ApiCheck`).
 */
function checklyFlavour(specifier: string, url: string, names: readonly string[]): string[] {
  const lines: string[] = [];
  if (names.includes('CheckGroupV1')) lines.push(`export { CheckGroupV1 as CheckGroup } from ${JSON.stringify(url)};`);
  if (!specifier.endsWith('/constructs')) lines.push(`export * as constructs from ${JSON.stringify(`${specifier}/constructs`)};`);
  return lines;
}

export function fileLocationDefines(file: string): Record<string, string> {
  const directory = path.dirname(file);
  return {
    __dirname: JSON.stringify(directory),
    __filename: JSON.stringify(file),
    'import.meta.url': JSON.stringify(pathToFileURL(file).href),
    'import.meta.dirname': JSON.stringify(directory),
    'import.meta.filename': JSON.stringify(file),
  };
}

function isBuildFailure(error: unknown): error is esbuild.BuildFailure {
  return error instanceof Error && Array.isArray((error as esbuild.BuildFailure).errors);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}
