import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { glob } from 'tinyglobby';
import picomatch from 'picomatch';
import type { Diagnostic, SourceLocation } from '@vigil/constructs';

/**
 * The extensions a config file may have, in the order they are looked for; the default name is
 * `vigil.config.ts`. `.cts`/`.cjs` (and `.js` in a package that is not `"type": "module"`) hold
 * CommonJS configs: `module.exports = defineConfig({...})`.
 */
export const CONFIG_EXTENSIONS = ['.ts', '.mts', '.cts', '.js', '.mjs', '.cjs'] as const;

/**
 * Config file names, in order of precedence within one directory: a Checkly project's
 * `checkly.config.ts` loads unchanged, and a `vigil.config.ts` beside it wins.
 */
export const CONFIG_NAMES = ['vigil.config', 'checkly.config'] as const;

/** Matched when the config sets no `checks.checkMatch`. */
export const DEFAULT_CHECK_MATCH = ['**/*.monitor.ts'];

/** Never searched: dependencies and version control hold no monitors of this project. */
const ALWAYS_IGNORED = ['**/node_modules/**', '**/.git/**'];

/** A problem finding the project, before any user code runs; the CLI prints it as a plain error. */
export class ProjectNotFoundError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ProjectNotFoundError';
  }
}

/**
 * The absolute path of the config file: `configPath` resolved against `cwd`, or else the nearest
 * `vigil.config.*` in `cwd` or a directory above it, as git finds its repository, so every command
 * works from any subdirectory of a project.
 */
export function resolveConfigPath(options: { configPath?: string; cwd: string }): string {
  if (options.configPath === undefined) return findConfig(path.resolve(options.cwd));
  const configPath = path.resolve(options.cwd, options.configPath);
  const extension = path.extname(configPath);
  if (!(CONFIG_EXTENSIONS as readonly string[]).includes(extension)) {
    throw new ProjectNotFoundError(
      `config file ${configPath} must end in ${CONFIG_EXTENSIONS.join(', ')} (got "${extension || 'no extension'}")`,
    );
  }
  if (!isFile(configPath)) throw new ProjectNotFoundError(`config file not found: ${configPath}`);
  return configPath;
}

function findConfig(start: string): string {
  const searched: string[] = [];
  for (let directory = start; ; directory = path.dirname(directory)) {
    searched.push(directory);
    for (const name of CONFIG_NAMES) {
      for (const extension of CONFIG_EXTENSIONS) {
        const candidate = path.join(directory, `${name}${extension}`);
        if (isFile(candidate)) return candidate;
      }
    }
    if (path.dirname(directory) === directory) break;
  }
  const above = searched.length > 1 ? ` and the directories above it (${searched.slice(1).join(', ')})` : '';
  throw new ProjectNotFoundError(
    `no Vigil project found: looked for {${CONFIG_NAMES.join(',')}}.{${CONFIG_EXTENSIONS.map((extension) => extension.slice(1)).join(',')}} ` +
      `in ${start}${above}\nhint: run vigil in a project directory (or below it), pass --config FILE, or create a project with vigil init`,
  );
}

function isFile(file: string): boolean {
  return existsSync(file) && statSync(file).isFile();
}

export interface DiscoverOptions {
  /** The project root: the config file's directory. */
  root: string;
  /** Globs relative to the root; default {@link DEFAULT_CHECK_MATCH}. */
  checkMatch?: string | readonly string[] | undefined;
  /** Globs (relative to the root) of files, or of directories, whose files are never loaded. */
  ignoreDirectoriesMatch?: readonly string[] | undefined;
  /**
   * How `ignoreDirectoriesMatch` reads: `checkly` as the Checkly CLI's glob `ignore` does (a
   * pattern matches the file's own path, `dir/**` everything below dir); `vigil` also takes a
   * pattern naming a directory (`dist`, `legacy/*`) to exclude everything below it. Default `vigil`.
   */
  ignoreReading?: 'checkly' | 'vigil';
  /** Files that must not be picked up even when they match, e.g. the config itself. */
  exclude?: readonly string[];
}

/** The patterns of a `checks.checkMatch` value (a string or a list; the default when unset). */
export function checkMatchPatterns(checkMatch: unknown): string[] {
  if (checkMatch === undefined) return [...DEFAULT_CHECK_MATCH];
  return [checkMatch].flat().filter((pattern): pattern is string => typeof pattern === 'string');
}

/**
 * Whether a pattern could select files outside the root: an absolute one, or one with a `..`
 * segment. Such patterns are never searched (see {@link checkMatchDiagnostics}).
 */
export function reachesOutsideRoot(pattern: string): boolean {
  return path.posix.isAbsolute(pattern) || path.win32.isAbsolute(pattern) || pattern.split(/[\\/]/).includes('..');
}

/** The monitor files of a project, absolute and sorted, so every load evaluates them in one order. */
export async function discoverMonitorFiles(options: DiscoverOptions): Promise<string[]> {
  const patterns = checkMatchPatterns(options.checkMatch).filter((pattern) => !reachesOutsideRoot(pattern));
  if (patterns.length === 0) return [];
  const ignorePatterns = [...(options.ignoreDirectoriesMatch ?? [])];
  const checklyReading = options.ignoreReading === 'checkly';
  const ignoredDirectories = checklyReading ? [] : ignorePatterns.map((pattern) => pattern.replace(/\/+$/, ''));
  const matches = await glob([...patterns], {
    cwd: options.root,
    absolute: false,
    onlyFiles: true,
    dot: false,
    ignore: [...ALWAYS_IGNORED, ...ignoredDirectories.map((pattern) => `${pattern}/**`)],
  });
  const isIgnoredDirectory = picomatch(ignoredDirectories.length > 0 ? ignoredDirectories : ['\0never'], { dot: true });
  // Both readings exclude a file the pattern itself matches (`**/*.skip.check.ts`, `legacy/*`).
  const isIgnoredFile = picomatch(ignorePatterns.length > 0 ? ignorePatterns.map((pattern) => pattern.replace(/^\.\//, '')) : ['\0never'], { dot: true });
  const excluded = new Set((options.exclude ?? []).map((file) => path.resolve(file)));
  return matches
    .filter((relative) => !isIgnoredFile(relative))
    .filter((relative) => !ancestorDirectories(relative).some((directory) => isIgnoredDirectory(directory)))
    .map((relative) => path.resolve(options.root, relative))
    .filter((file) => !excluded.has(file))
    .sort();
}

/** The Checkly CLI's default `checkMatch`, which a project moved over from it may still follow. */
const CHECKLY_CHECK_MATCH = '**/*.check.ts';

/** What the Checkly CLI loads when its config sets no `checks.checkMatch`. */
export const CHECKLY_DEFAULT_CHECK_MATCH = '**/*.check.{js,ts}';

/** Whether the config is a Checkly CLI project's, whose options then read as the Checkly CLI reads them. */
export function isChecklyConfig(configPath: string): boolean {
  return path.basename(configPath).startsWith('checkly.config.');
}

/**
 * A `checkly.config.*` without `checks.checkMatch` selects the files the Checkly CLI would, so the
 * project loads unchanged. Set on the config itself, so every command reads the same patterns.
 */
export function applyChecklyDefaults(configPath: string, config: { checks?: { checkMatch?: string | string[] | undefined } | undefined }): void {
  if (!isChecklyConfig(configPath) || config.checks?.checkMatch !== undefined) return;
  config.checks = { ...config.checks, checkMatch: CHECKLY_DEFAULT_CHECK_MATCH };
}

/**
 * What is wrong with the `checkMatch` patterns, located at the config (`source`): an error for a
 * pattern that reaches outside the root, a warning for one that matches no file (a typo there
 * silently empties the project, and a plan of an empty project deletes everything), with a hint
 * when the files follow the Checkly CLI's naming instead.
 */
export async function checkMatchDiagnostics(options: {
  root: string;
  checkMatch: unknown;
  files: readonly string[];
  source: SourceLocation | undefined;
}): Promise<Diagnostic[]> {
  const { root, source } = options;
  const located = (diagnostic: Diagnostic): Diagnostic => ({ ...diagnostic, path: 'checks.checkMatch', ...(source ? { source } : {}) });
  const relativeFiles = options.files.map((file) => path.relative(root, file).split(path.sep).join('/'));
  const diagnostics: Diagnostic[] = [];
  const patterns = checkMatchPatterns(options.checkMatch);
  if (patterns.length === 0) {
    diagnostics.push(located({ severity: 'warning', message: 'vigil.config: checks.checkMatch lists no pattern, so no file is loaded', hint: 'Remove it to use the default "**/*.monitor.ts", or list globs relative to the project root.' }));
  }
  for (const pattern of patterns) {
    if (reachesOutsideRoot(pattern)) {
      diagnostics.push(
        located({
          severity: 'error',
          message: `vigil.config: checks.checkMatch pattern "${pattern}" reaches outside the project root ${root}`,
          hint: 'Patterns are relative to the project root (the config file\'s directory) and stay inside it; move the config file up to include more.',
        }),
      );
      continue;
    }
    const matches = picomatch(pattern, { dot: false });
    if (relativeFiles.some((file) => matches(file))) continue;
    const warning: Diagnostic = { severity: 'warning', message: `vigil.config: checks.checkMatch pattern "${pattern}" matches no file under ${root}` };
    const checklyFiles = pattern === CHECKLY_CHECK_MATCH ? [] : await glob([CHECKLY_CHECK_MATCH], { cwd: root, ignore: ALWAYS_IGNORED });
    if (checklyFiles.length > 0) {
      const count = checklyFiles.length === 1 ? '1 file matches' : `${checklyFiles.length} files match`;
      const them = checklyFiles.length === 1 ? 'it' : 'them';
      warning.hint = `${count} the Checkly CLI's default "${CHECKLY_CHECK_MATCH}" (${checklyFiles.sort()[0]}); to load ${them}, set checks: { checkMatch: '${CHECKLY_CHECK_MATCH}' }.`;
    } else {
      warning.hint = 'Patterns are globs relative to the project root, e.g. "**/*.monitor.ts".';
    }
    diagnostics.push(located(warning));
  }
  return diagnostics;
}

/** `a/b/c.ts` → `['a', 'a/b']`: a file is ignored when any directory above it is. */
function ancestorDirectories(relative: string): string[] {
  const parts = relative.split('/').slice(0, -1);
  return parts.map((_, index) => parts.slice(0, index + 1).join('/'));
}
