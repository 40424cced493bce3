import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { glob } from 'tinyglobby';
import picomatch from 'picomatch';

/** The extensions a config file may have; the default name is `vigil.config.ts`. */
export const CONFIG_EXTENSIONS = ['.ts', '.mts', '.js', '.mjs'] as const;

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
 * The absolute path of the config file: `configPath` resolved against `cwd`, or `vigil.config.ts`
 * in `cwd` when none is given.
 */
export function resolveConfigPath(options: { configPath?: string; cwd: string }): string {
  const configPath = path.resolve(options.cwd, options.configPath ?? 'vigil.config.ts');
  const extension = path.extname(configPath);
  if (!(CONFIG_EXTENSIONS as readonly string[]).includes(extension)) {
    throw new ProjectNotFoundError(
      `config file ${configPath} must end in ${CONFIG_EXTENSIONS.join(', ')} (got "${extension || 'no extension'}")`,
    );
  }
  if (!existsSync(configPath) || !statSync(configPath).isFile()) {
    throw new ProjectNotFoundError(
      `config file not found: ${configPath}` +
        (options.configPath ? '' : ' (run vigil in the project directory or pass --config FILE)'),
    );
  }
  return configPath;
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
