import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import * as esbuild from 'esbuild';
import type { Diagnostic } from '@vigil/constructs';
import { esbuildMessagesToDiagnostics } from './user-errors.js';

export interface BundleProjectOptions {
  /** The project root; esbuild's working directory, and where relative locations start. */
  root: string;
  /** Absolute paths of the modules to evaluate, imported by the virtual entry in this order. */
  modules: readonly string[];
  /** Absolute path of a module whose exports the bundle re-exports (the config). */
  reexport?: string;
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
  /** The ESM bundle with an inline source map; absent when esbuild reported errors. */
  code?: string;
  diagnostics: Diagnostic[];
}

/**
 * One esbuild build for a set of user modules: a virtual entry imports each of them, local imports
 * are inlined, npm packages stay external (resolved from the project's node_modules at evaluation),
 * tsconfig `paths` are honoured (esbuild reads each file's tsconfig.json).
 *
 * Every module keeps its own `__dirname`, `__filename`, `import.meta.url`, `import.meta.dirname`
 * and `import.meta.filename` (Checkly-style files do `path.join(__dirname, 'x.spec.ts')`): a
 * single bundle has one real location, so these are replaced by string literals per file at load
 * time. The replacement runs through esbuild's transform with an inline source map, which the
 * bundler composes, so reported lines and columns stay those of the user's file.
 */
export async function bundleProject(options: BundleProjectOptions): Promise<BundleProjectResult> {
  const { root } = options;
  const entry = [
    ...options.modules.map((file) => `import ${JSON.stringify(file)};`),
    ...(options.reexport
      ? [`export * from ${JSON.stringify(options.reexport)};`, `export { default } from ${JSON.stringify(options.reexport)};`]
      : []),
  ].join('\n');
  try {
    const result = await esbuild.build({
      absWorkingDir: root,
      stdin: { contents: entry, resolveDir: root, sourcefile: '<vigil-entry>.js', loader: 'js' },
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      packages: 'external',
      sourcemap: 'inline',
      sourcesContent: false,
      // Relative `sources` in the inline map are resolved against the bundle's own location.
      outfile: path.join(root, '.vigil', 'tmp', 'bundle.mjs'),
      write: false,
      logLevel: 'silent',
      // Bundled CommonJS-style code (and `require` in user files) needs a real require in ESM output.
      banner: {
        js: "import { createRequire as __vigilCreateRequire } from 'node:module'; const require = __vigilCreateRequire(import.meta.url);",
      },
      plugins: [vigilLoaderPlugin(options)],
    });
    const output = result.outputFiles[0];
    if (!output) throw new Error('this is a bug in vigil: esbuild produced no output');
    return { code: output.text, diagnostics: esbuildMessagesToDiagnostics(root, result.warnings, 'warning') };
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

const LOADERS: Readonly<Record<string, esbuild.Loader>> = {
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

function vigilLoaderPlugin(options: BundleProjectOptions): esbuild.Plugin {
  return {
    name: 'vigil-loader',
    setup(build) {
      const aliasNames = Object.keys(options.aliases);
      if (aliasNames.length > 0) {
        build.onResolve({ filter: new RegExp(`^(${aliasNames.map(escapeRegExp).join('|')})$`) }, (args) => ({
          path: pathToFileURL(options.aliases[args.path]!).href,
          external: true,
        }));
      }
      // Only the contents we generate below import file URLs.
      build.onResolve({ filter: /^file:\/\// }, (args) => ({ path: args.path, external: true }));

      build.onLoad({ filter: /\.[cm]?[jt]sx?$/ }, async (args) => {
        const evaluatedUrl = options.evaluated?.[args.path];
        if (evaluatedUrl) {
          const url = JSON.stringify(evaluatedUrl);
          return { contents: `export * from ${url};\nexport { default } from ${url};\n`, loader: 'js' };
        }
        if (args.path.split(path.sep).includes('node_modules')) return undefined;
        const loader = LOADERS[path.extname(args.path)] ?? 'js';
        const source = await readFile(args.path, 'utf8');
        if (!MENTIONS_FILE_LOCATION.test(source)) return { contents: source, loader };
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

function fileLocationDefines(file: string): Record<string, string> {
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
