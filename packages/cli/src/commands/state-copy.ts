/**
 * `vigil state pull | push | migrate`: move a whole state document between a backend and a file, or
 * between two backends. A copy keeps the document's lineage and serial, so saved plans and later
 * writes still recognise it; a push that would replace another lineage or a newer serial is refused
 * unless forced, and a migration never overwrites anything but an older copy of the same state.
 */
import type { Command } from 'commander';
import type { StateConfig } from '@vigil/constructs';
import type { LockHolder, StateBackend, StateDocument, StateLock } from '@vigil/engine';
import { CliError, usageError } from '../errors.js';
import { parseLockTimeoutFlag } from '../flags.js';

/** state.ts registers these commands, so what they share with it is imported when they run. */
const shared = () => import('./state.js');

async function userErrors(run: () => Promise<void>): Promise<void> {
  return (await shared()).userErrors(run);
}

const PUSH_FORCE_HINT = 'run it again with --force (vigil state push --force FILE)';

async function pull(command: Command): Promise<void> {
  const { openState, readExisting } = await shared();
  const { backend } = await openState(command);
  const document = await readExisting(backend, 'pull');
  const { serializeState } = await import('@vigil/engine');
  process.stdout.write(`${serializeState(document)}\n`);
}

async function push(command: Command, file: string, options: { force?: boolean; lockTimeout: string }): Promise<void> {
  const timeoutMs = await parseLockTimeoutFlag(options.lockTimeout);
  const { readFile } = await import('node:fs/promises');
  const { assertReplaceable, parseStateDocument } = await import('@vigil/engine');
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new CliError(`cannot read ${file}: ${(error as Error).message}`, { cause: error });
  }
  const incoming = parseStateDocument(text, file);
  const { backend, unlockCommand } = await (await shared()).openState(command);
  const location = backend.describe();
  const lock = await backend.lock({ timeoutMs, command: `vigil state push ${file}`, onWait: await waitNotice(location, timeoutMs, unlockCommand) });
  try {
    const stored = await backend.read();
    if (!options.force) assertReplaceable(stored, incoming, { location, source: file, forceHint: PUSH_FORCE_HINT });
    await lock.write(incoming, { keepSerial: true, ...(options.force ? { force: true } : {}) });
    const was = stored === undefined ? 'it held no state' : `it held serial ${stored.serial}${stored.lineage === incoming.lineage ? '' : ` of lineage ${stored.lineage}`}`;
    process.stdout.write(`Pushed ${file} to ${location}: lineage ${incoming.lineage}, serial ${lock.serial} (${was}).\n`);
  } finally {
    await lock.release();
  }
}

/**
 * `local`, `service`, `postgres` (the database in VIGIL_STATE_PG_URL), `s3://bucket/key` (region and
 * endpoint from AWS_REGION and AWS_ENDPOINT_URL_S3), or an http(s) URL: the backend `--from` names.
 */
function sourceConfig(from: string, fromPath: string | undefined): StateConfig {
  if (from === 'local') return { backend: 'local', ...(fromPath === undefined ? {} : { path: fromPath }) };
  if (fromPath !== undefined) throw usageError('--from-path only goes with --from local');
  if (from === 'service') return { backend: 'service' };
  if (from === 'postgres') return { backend: 'postgres' };
  const s3 = /^s3:\/\/([^/]+)\/(.+)$/.exec(from);
  if (s3) return { backend: 's3', bucket: s3[1]!, key: s3[2]! };
  if (/^https?:\/\//.test(from) && URL.canParse(from)) return { backend: 'http', address: from };
  throw usageError(
    `--from ${JSON.stringify(from)}: name the backend state is in now: local, service, postgres (the database in VIGIL_STATE_PG_URL), s3://bucket/key, or the http backend's address (http(s)://…)`,
  );
}

async function waitNotice(location: string, timeoutMs: number, unlockCommand: string): Promise<(holder: LockHolder) => void> {
  return (await import('../state-backend.js')).lockWaitNotice(location, timeoutMs, unlockCommand);
}

/**
 * Copies the state from the backend `--from` names to the one the config names now: the user edits
 * `state` in vigil.config.ts, then runs this once. Both are locked, so no apply runs on either while
 * it copies; the copy is read back and compared before the command says it is done.
 */
async function migrate(command: Command, options: { from: string; fromPath?: string; lockTimeout: string }): Promise<void> {
  const timeoutMs = await parseLockTimeoutFlag(options.lockTimeout);
  const source = sourceConfig(options.from, options.fromPath);
  const context = await (await shared()).openState(command);
  const { openStateBackend } = await import('../state-backend.js');
  const from = await openStateBackend({ root: context.root, config: context.config, unlockCommand: context.unlockCommand }, source);
  const to = context.backend;
  if (from.describe() === to.describe()) {
    throw usageError(
      `the config's state is already ${to.describe()}: edit state in vigil.config.ts to the backend to migrate to (e.g. state: { backend: 'service' }), then run vigil state migrate --from ${options.from} again`,
    );
  }
  const locks: StateLock[] = [];
  try {
    locks.push(await from.lock({ timeoutMs, command: 'vigil state migrate', onWait: await waitNotice(from.describe(), timeoutMs, context.unlockCommand) }));
    const toLock = await to.lock({ timeoutMs, command: 'vigil state migrate', onWait: await waitNotice(to.describe(), timeoutMs, context.unlockCommand) });
    locks.push(toLock);
    const document = await from.read();
    if (document === undefined) throw new CliError(`no state at ${from.describe()}: nothing to migrate (check --from${source.backend === 'local' ? ' and --from-path' : ''})`);
    const existing = await to.read();
    const { serializeState } = await import('@vigil/engine');
    if (existing !== undefined && existing.lineage === document.lineage && serializeState(existing) === serializeState(document)) {
      process.stdout.write(`${to.describe()} already holds this state (lineage ${document.lineage}, serial ${document.serial}); nothing to copy.\n`);
      return;
    }
    assertMigratable(existing, document, from, to);
    await toLock.write(document, { keepSerial: true });
    const copied = await to.read();
    if (copied === undefined || serializeState(copied) !== serializeState(document)) {
      throw new CliError(`the state read back from ${to.describe()} differs from the one written; ${from.describe()} is left as it is, so nothing is lost. Run vigil state pull to see what is there`);
    }
    const resources = Object.keys(document.resources).length;
    process.stdout.write(
      `Copied the state from ${from.describe()} to ${to.describe()}: lineage ${document.lineage}, serial ${document.serial}, ${resources} resource${resources === 1 ? '' : 's'}` +
        `${document.journal.length > 0 ? `, ${document.journal.length} pending operation${document.journal.length === 1 ? '' : 's'}` : ''}; read back and identical.\n` +
        `${from.describe()} was left as it is: once the config change is committed, remove it${source.backend === 'local' ? ' (and its .wal log) from the repository' : ''} so that nobody applies with it.\n`,
    );
  } finally {
    for (const lock of locks.reverse()) await lock.release();
  }
}

/** The destination may be empty, or an older copy of the same state; anything else is someone's state. */
function assertMigratable(existing: StateDocument | undefined, document: StateDocument, from: StateBackend, to: StateBackend): void {
  if (existing === undefined) return;
  if (existing.lineage !== document.lineage) {
    throw new CliError(
      `${to.describe()} already holds another state (lineage ${existing.lineage}, serial ${existing.serial}, ${Object.keys(existing.resources).length} resources), not a copy of ${from.describe()} (lineage ${document.lineage}); nothing was copied. ` +
        'If it is not needed, remove it first (vigil state push --force replaces it), or point state at another address.',
    );
  }
  if (existing.serial >= document.serial) {
    throw new CliError(
      `${to.describe()} already holds this state at serial ${existing.serial}, newer than or as new as ${from.describe()}'s serial ${document.serial}: it was written since; nothing was copied. ` +
        'Keep using it (vigil state pull shows it).',
    );
  }
}

export function registerStateCopies(state: Command): void {
  state
    .command('pull')
    .description('print the state document as JSON to standard output, from whichever backend the config names')
    .action(async (_options: unknown, command: Command) => userErrors(() => pull(command)));

  state
    .command('push')
    .description('replace the stored state with a state file (e.g. one saved with vigil state pull and edited)')
    .argument('<file>', 'a state document')
    .option('--force', 'replace it even when the stored state has another lineage or a serial not older than the file\'s (the stored serial still grows)')
    .option('--lock-timeout <duration>', 'how long to wait for the state lock (e.g. 30s, 5m)', '0s')
    .addHelpText(
      'after',
      '\nWithout --force, the file must have the stored state\'s lineage and a newer serial: anything else would undo writes made since it was pulled,\n' +
        'or replace another project\'s state. --force overrides both checks.',
    )
    .action(async (file: string, options: { force?: boolean; lockTimeout: string }, command: Command) => userErrors(() => push(command, file, options)));

  state
    .command('migrate')
    .description('copy the state from the backend it is in now (--from) to the one vigil.config.ts names')
    .requiredOption('--from <backend>', 'where the state is now: local, service, postgres (VIGIL_STATE_PG_URL), s3://bucket/key, or an http backend\'s address (http(s)://…)')
    .option('--from-path <file>', 'with --from local: the state file, relative to the project root (default .vigil/state.json)')
    .option('--lock-timeout <duration>', 'how long to wait for each state lock (e.g. 30s, 5m)', '0s')
    .addHelpText(
      'after',
      '\nEdit state in vigil.config.ts to the new backend first: local, service, http, postgres or s3, e.g.\n' +
        '  state: { backend: \'service\' }      (or { backend: \'postgres\' }, { backend: \'s3\', bucket, key }, { backend: \'http\', address })\n' +
        'then run\n' +
        '  vigil state migrate --from local\n' +
        'Both backends are locked while the state is copied; the copy keeps its lineage and serial, is read back and compared.\n' +
        'The destination must be empty or hold an older copy of the same state. The source is left as it is.',
    )
    .action(async (options: { from: string; fromPath?: string; lockTimeout: string }, command: Command) => userErrors(() => migrate(command, options)));
}
