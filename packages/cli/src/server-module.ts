/**
 * `@vigil/server`, for `vigil server` and the embedded local service. Its store is SQLite through
 * better-sqlite3, a native module the published package lists as an optional peer: npm installs
 * it only when asked, so installing the CLI to plan and apply against a remote service never
 * compiles native code (where no prebuilt binary can be downloaded, the compile took 13 minutes).
 * Without it, these two uses stop here with how to get it, instead of Node's "Cannot find package";
 * `vigil server --database` (PostgreSQL) runs without it.
 */
import { createRequire } from 'node:module';
import { CliError } from './errors.js';

type ServerModule = typeof import('@vigil/server');

const SQLITE_PACKAGE = 'better-sqlite3';

/** The range the CLI accepts, read from its package.json (the published one carries the same peers). */
function sqliteRange(): string {
  const manifest = createRequire(import.meta.url)('../package.json') as { peerDependencies?: Record<string, string> };
  return manifest.peerDependencies?.[SQLITE_PACKAGE] ?? 'latest';
}

export function missingSqliteMessage(): string {
  return (
    `vigil server and the embedded local service (plan, apply and the other commands without VIGIL_API_URL) store their data with ${SQLITE_PACKAGE}, which is not installed\n` +
    `hint: npm install -D ${SQLITE_PACKAGE}@${sqliteRange()} (it downloads a prebuilt binary, or compiles one with python3, make and a C++ compiler), ` +
    'or set VIGIL_API_URL (and VIGIL_API_KEY) to a running service'
  );
}

function isMissingSqlite(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as NodeJS.ErrnoException).code;
  return (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') && error.message.includes(`'${SQLITE_PACKAGE}'`);
}

/** Where better-sqlite3 would be loaded from (the server loads it from the same place, on first open). */
const resolveSqlite = () => createRequire(import.meta.url).resolve(SQLITE_PACKAGE);

/**
 * Loads the server. With `sqlite` (the default: the embedded local service, `vigil server` without
 * `--database`), better-sqlite3 must be installed, and its absence stops here; a service on
 * PostgreSQL needs none (the server loads the native module only when it opens a SQLite database).
 */
export async function loadServer(
  options: { readonly sqlite?: boolean } = {},
  importServer: () => Promise<ServerModule> = () => import('@vigil/server'),
  findSqlite: () => unknown = resolveSqlite,
): Promise<ServerModule> {
  try {
    if (options.sqlite ?? true) findSqlite();
    return await importServer();
  } catch (error) {
    if (isMissingSqlite(error)) throw new CliError(missingSqliteMessage(), { cause: error });
    throw error;
  }
}

/**
 * A part of `@vigil/server` imported on its own (`@vigil/server/migrate-data`), so that what only it
 * needs (the PostgreSQL driver) stays in a chunk of its own that `vigil server` never loads.
 */
export async function loadServerPart<T>(importPart: () => Promise<T>): Promise<T> {
  try {
    return await importPart();
  } catch (error) {
    if (isMissingSqlite(error)) throw new CliError(missingSqliteMessage(), { cause: error });
    throw error;
  }
}
