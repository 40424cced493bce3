import { realpathSync } from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';
import * as esbuild from 'esbuild';
import type { Diagnostic } from '@vigil/constructs';
import { esbuildMessagesToDiagnostics } from './user-errors.js';

/**
 * npm packages the check runtime provides (the Checkly-compatible runtimes, e.g. 2025.04). Imports
 * of these stay `require` calls in the bundled script; any other package cannot run remotely.
 */
export const RUNTIME_PACKAGES: ReadonlySet<string> = new Set([
  '@axe-core/playwright',
  '@azure/identity',
  '@azure/keyvault-secrets',
  '@checkly/playwright-helpers',
  '@faker-js/faker',
  '@opentelemetry/api',
  '@opentelemetry/exporter-trace-otlp-grpc',
  '@opentelemetry/sdk-trace-base',
  '@opentelemetry/sdk-trace-node',
  '@playwright/test',
  'aws4',
  'axios',
  'btoa',
  'chai',
  'chai-string',
  'crypto-js',
  'date-fns',
  'date-fns-tz',
  'dotenv',
  'ethers',
  'expect',
  'form-data',
  'jose',
  'jsonwebtoken',
  'lodash',
  'luxon',
  'mocha',
  'moment',
  'node-fetch',
  'otpauth',
  'pdf2json',
  'playwright',
  'uuid',
  'ws',
  'xml-crypto',
  'xml-encryption',
  'xml2js',
]);

const BUILTINS = new Set(builtinModules);

/** Marks the plugin's own nested resolve, so it is not intercepted a second time. */
const RESOLVING = Symbol('vigil-resolving');

/** `lodash/merge` → `lodash`, `@playwright/test/reporter` → `@playwright/test`. */
export function packageNameOf(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] ?? specifier);
}

function isBareSpecifier(specifier: string): boolean {
  return !specifier.startsWith('.') && !path.isAbsolute(specifier) && !specifier.startsWith('file:');
}

export interface BundleScriptOptions {
  root: string;
  /** Absolute path of the script's entry file. */
  entrypoint: string;
  /**
   * Real paths of the directories the script's files may come from: the project root and
   * `checks.allowedScriptDirectories` (see {@link scriptDirectories}). Default: the root.
   */
  allowedDirectories?: readonly string[];
}

/**
 * The real paths of the directories check scripts may be bundled from: the project root, and each
 * of `checks.allowedScriptDirectories` (relative to the root, or absolute). Real paths, because a
 * symbolic link inside the root may point anywhere.
 */
export function scriptDirectories(root: string, configured: unknown): string[] {
  const listed = Array.isArray(configured) ? configured.filter((entry): entry is string => typeof entry === 'string' && entry !== '') : [];
  return [root, ...listed.map((directory) => path.resolve(root, directory))].map(realPathOf);
}

/** Whether `file` (a real path) is inside one of `directories` (real paths). */
export function isInsideDirectories(file: string, directories: readonly string[]): boolean {
  return directories.some((directory) => {
    const relative = path.relative(directory, file);
    return relative !== '' && !relative.startsWith('..') && !path.isAbsolute(relative);
  });
}

/** The path with every symbolic link resolved; the path itself when it does not exist. */
export function realPathOf(file: string): string {
  try {
    return realpathSync(file);
  } catch {
    return path.resolve(file);
  }
}

function outsideRootImport(specifier: string, real: string, root: string): esbuild.OnResolveResult {
  return { errors: [{ text: `"${specifier}" resolves to ${real}, outside the project root, so a check script cannot import it`, notes: [{ text: outsideRootHint(root) }] }] };
}

/** The hint of every "outside the project root" problem of a check script. */
export function outsideRootHint(root: string): string {
  return `Check scripts are bundled and uploaded to the monitoring service, so their files must be inside the project root (${root}) or a directory listed in checks.allowedScriptDirectories of the config.`;
}

/** Namespace of the stand-in modules that turn an import of a runtime package into a `require`. */
const RUNTIME_REQUIRE = 'vigil-runtime-require';

/**
 * Bundles one check script (a multi-step check's code, an API check's setup or teardown) into a
 * single file: local imports inlined, runtime packages and Node built-ins left as `require` calls.
 * An import of any other package is an error diagnostic at the importing line, since the remote
 * runtime could not resolve it.
 *
 * The output is ES module syntax so that top-level `await` bundles (CommonJS output cannot hold it),
 * yet has no `import` statements: imports of runtime packages become `require` calls, so the code
 * also runs as the body of an async function with `require` in scope, which is how setup and
 * teardown scripts run (Checkly's contract). An inline source map with paths relative to the project
 * root (no sources content, to keep the payload small) lets the runner report errors at the user's
 * own file:line.
 */
export async function bundleScript(options: BundleScriptOptions): Promise<{ script?: string; diagnostics: Diagnostic[] }> {
  const { root } = options;
  const allowed = options.allowedDirectories ?? [realPathOf(root)];
  const diagnostics: Diagnostic[] = [];
  try {
    const result = await esbuild.build({
      absWorkingDir: root,
      entryPoints: [options.entrypoint],
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      sourcemap: 'inline',
      sourcesContent: false,
      write: false,
      logLevel: 'silent',
      plugins: [
        {
          name: 'vigil-runtime-packages',
          setup(build) {
            build.onResolve({ filter: /.*/ }, async (args) => {
              if (args.kind === 'entry-point' || args.pluginData === RESOLVING) return undefined;
              if (!isBareSpecifier(args.path)) {
                // A relative or absolute import could pull any file of the machine into the upload.
                const resolved = await build.resolve(args.path, { kind: args.kind, importer: args.importer, resolveDir: args.resolveDir, pluginData: RESOLVING });
                if (resolved.errors.length > 0 || resolved.external) return undefined;
                const real = realPathOf(resolved.path);
                if (isInsideDirectories(real, allowed)) return { path: resolved.path };
                return outsideRootImport(args.path, real, root);
              }
              const name = packageNameOf(args.path.replace(/^node:/, ''));
              if (args.path.startsWith('node:') || BUILTINS.has(name) || RUNTIME_PACKAGES.has(name)) {
                if (args.kind === 'require-call') return { path: args.path, external: true };
                return { path: args.path, namespace: RUNTIME_REQUIRE };
              }
              // tsconfig `paths` may map a bare-looking specifier to a local file, which is fine.
              const resolved = await build.resolve(args.path, {
                kind: args.kind,
                importer: args.importer,
                resolveDir: args.resolveDir,
                pluginData: RESOLVING,
              });
              const local = resolved.errors.length === 0 && !resolved.external && !/[\\/]node_modules[\\/]/.test(resolved.path);
              if (local && isInsideDirectories(realPathOf(resolved.path), allowed)) return { path: resolved.path };
              if (local) {
                const real = realPathOf(resolved.path);
                return outsideRootImport(args.path, real, root);
              }
              return {
                errors: [
                  {
                    text: `"${name}" is not available in the check runtime, so a check script cannot import it`,
                    notes: [{ text: 'Import only local files, Node built-ins and the runtime packages (@playwright/test, axios, lodash, moment, ...).' }],
                  },
                ],
              };
            });
            build.onLoad({ filter: /.*/, namespace: RUNTIME_REQUIRE }, (args) => ({
              contents: `module.exports = require(${JSON.stringify(args.path)});`,
              loader: 'js',
            }));
          },
        },
      ],
    });
    const output = result.outputFiles[0];
    if (!output) throw new Error('this is a bug in vigil: esbuild produced no script output');
    diagnostics.push(...esbuildMessagesToDiagnostics(root, result.warnings, 'warning'));
    return { script: output.text, diagnostics };
  } catch (error) {
    if (error instanceof Error && Array.isArray((error as esbuild.BuildFailure).errors)) {
      const failure = error as esbuild.BuildFailure;
      diagnostics.push(...esbuildMessagesToDiagnostics(root, failure.errors, 'error'));
      return { diagnostics };
    }
    throw error;
  }
}
