import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { glob } from 'tinyglobby';
import picomatch from 'picomatch';

/**
 * The extensions a config file may have, in the order they are looked for; the default name is
 * `vigil.config.ts`. `.cts`/`.cjs` (and `.js` in a package that is not `"type": "module"`) hold
 * CommonJS configs: `module.exports = defineConfig({...})`.
 */
export const CONFIG_EXTENSIONS = ['.ts', '.mts', '.cts', '.js', '.mjs', '.cjs'] as const;

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
    for (const extension of CONFIG_EXTENSIONS) {
      const candidate = path.join(directory, `vigil.config${extension}`);
      if (isFile(candidate)) return candidate;
    }
    if (path.dirname(directory) === directory) break;
  }
  const above = searched.length > 1 ? ` and the directories above it (${searched.slice(1).join(', ')})` : '';
  throw new ProjectNotFoundError(
    `no Vigil project found: looked for vigil.config.{${CONFIG_EXTENSIONS.map((extension) => extension.slice(1)).join(',')}} ` +
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
  /** Globs of directories (relative to the root) whose files are never loaded. */
  ignoreDirectoriesMatch?: readonly string[] | undefined;
  /** Files that must not be picked up even when they match, e.g. the config itself. */
  exclude?: readonly string[];
}

/** The monitor files of a project, absolute and sorted, so every load evaluates them in one order. */
export async function discoverMonitorFiles(options: DiscoverOptions): Promise<string[]> {
  const patterns = options.checkMatch === undefined ? DEFAULT_CHECK_MATCH : [options.checkMatch].flat();
  const ignoredDirectories = (options.ignoreDirectoriesMatch ?? []).map((pattern) => pattern.replace(/\/+$/, ''));
  const matches = await glob([...patterns], {
    cwd: options.root,
    absolute: false,
    onlyFiles: true,
    dot: false,
    ignore: [...ALWAYS_IGNORED, ...ignoredDirectories.map((pattern) => `${pattern}/**`)],
  });
  const isIgnoredDirectory = picomatch(ignoredDirectories.length > 0 ? ignoredDirectories : ['\0never'], { dot: true });
  const excluded = new Set((options.exclude ?? []).map((file) => path.resolve(file)));
  return matches
    .filter((relative) => !ancestorDirectories(relative).some((directory) => isIgnoredDirectory(directory)))
    .map((relative) => path.resolve(options.root, relative))
    .filter((file) => !excluded.has(file))
    .sort();
}

/** `a/b/c.ts` → `['a', 'a/b']`: a file is ignored when any directory above it is. */
function ancestorDirectories(relative: string): string[] {
  const parts = relative.split('/').slice(0, -1);
  return parts.map((_, index) => parts.slice(0, index + 1).join('/'));
}
