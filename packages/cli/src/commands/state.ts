/**
 * `vigil state list | show | mv | rm | unprotect | unlock | retarget` (and pull, push and migrate,
 * in state-copy.ts): inspect and edit state, on whichever backend the config names. Only
 * `show` (a heartbeat's ping URL) and `retarget` (who the service is) ask the service anything.
 * Reads need no lock (writes replace the whole document at once, so a reader never sees half of one); edits
 * take the lock like apply does.
 */
import type { Command } from 'commander';
import type { VigilConfig } from '@vigil/constructs';
import type { ForceUnlockResult, StateBackend, StateDocument, StateLock } from '@vigil/engine';
import { CliError, oneLine, usageError } from '../errors.js';
import { parseLockTimeoutFlag } from '../flags.js';
import { loadFromCommand, printDiagnostics } from './validate.js';
import { registerStateCopies } from './state-copy.js';

export interface StateContext {
  backend: StateBackend;
  /** The config's `api` (`baseUrl`, `accountId`), for the one edit that asks the service. */
  configApi: { baseUrl?: string | undefined; accountId?: string | undefined } | undefined;
  /** The command that removes a stale lock for this very project, `--config` included. */
  unlockCommand: string;
}

/**
 * The exact command that force-unlocks the state of the project this command runs on: `--config` is
 * repeated when the user gave one, so the printed command can be pasted as it is.
 */
export function unlockCommandFor(command: Command): string {
  const { config } = command.optsWithGlobals<{ config?: string }>();
  const explicit = command.getOptionValueSourceWithGlobals('config') === 'cli' && config !== undefined;
  return explicit ? `vigil state unlock --force --config ${quoteArgument(config)}` : 'vigil state unlock --force';
}

function quoteArgument(value: string): string {
  return /^[\w@%+=:,./-]+$/.test(value) ? value : `'${value.replaceAll("'", `'\\''`)}'`;
}

/** State errors are the user's to act on: print their message alone, exit 1. */
export async function userErrors<T>(run: () => Promise<T>): Promise<T> {
  const { isStateError } = await import('@vigil/engine');
  try {
    return await run();
  } catch (error) {
    if (isStateError(error)) throw new CliError(error.message, { cause: error });
    throw error;
  }
}

/**
 * Finds the state file the way plan and apply do: the config's `state.path`, relative to the project
 * root (the config file's directory), else `.vigil/state.json` there. Problems in monitor files do
 * not matter here (fixing state is often what is needed while they are broken); a config that cannot
 * be evaluated does, because it may move the state file.
 */
export async function openState(command: Command): Promise<StateContext & { root: string; config: VigilConfig }> {
  const loaded = await loadFromCommand(command);
  if (loaded.config === undefined) {
    printDiagnostics(loaded.diagnostics, (text) => process.stderr.write(text));
    throw new CliError('cannot find the state: the config file has errors (listed above)');
  }
  // A config error in `state` would send the command to the wrong backend: stop on it.
  const stateErrors = loaded.diagnostics.filter((diagnostic) => diagnostic.severity === 'error' && diagnostic.path?.startsWith('state') === true);
  if (printDiagnostics(stateErrors, (text) => process.stderr.write(text))) throw new CliError('cannot find the state: its config has errors (listed above)');
  const { openStateBackend } = await import('../state-backend.js');
  const unlockCommand = unlockCommandFor(command);
  const backend = await openStateBackend({ root: loaded.root, config: loaded.config, unlockCommand });
  return { backend, unlockCommand, configApi: loaded.config.api, root: loaded.root, config: loaded.config };
}

export async function readExisting(backend: StateBackend, verb: string): Promise<StateDocument> {
  const document = await backend.read();
  if (document === undefined) throw new CliError(`no state at ${backend.describe()} yet (nothing has been applied); nothing to ${verb}`);
  return document;
}

/** Runs `edit` under the state lock and writes what it returns; the lock is released whatever happens. */
async function editUnderLock(
  context: StateContext,
  options: { timeoutMs: number; command: string; verb: string },
  edit: (document: StateDocument) => StateDocument,
): Promise<{ before: StateDocument; after: StateDocument }> {
  const { lockWaitNotice } = await import('../state-backend.js');
  const onWait = await lockWaitNotice(context.backend.describe(), options.timeoutMs, context.unlockCommand);
  const lock: StateLock = await context.backend.lock({ timeoutMs: options.timeoutMs, command: options.command, onWait });
  try {
    const before = await readExisting(context.backend, options.verb);
    const after = edit(before);
    await lock.write(after);
    return { before, after };
  } finally {
    await lock.release();
  }
}

/** Remote ids are the service's text: escaped so that none can carry terminal sequences. */
function formatRemoteId(remoteId: string | number): string {
  return typeof remoteId === 'number' ? String(remoteId) : oneLine(remoteId);
}

async function list(command: Command, options: { json?: boolean }): Promise<void> {
  const { backend } = await openState(command);
  const document = await backend.read();
  const rows = Object.entries(document?.resources ?? {})
    .map(([address, resource]) => ({ address, kind: resource.kind, remoteId: resource.remoteId }))
    .sort((a, b) => (a.address < b.address ? -1 : a.address > b.address ? 1 : 0));
  if (options.json) {
    process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
    return;
  }
  if (document === undefined) {
    process.stderr.write(`No state at ${backend.describe()} yet: nothing has been applied.\n`);
    return;
  }
  const addressWidth = Math.max(0, ...rows.map((row) => row.address.length));
  const kindWidth = Math.max(0, ...rows.map((row) => row.kind.length));
  for (const row of rows) {
    process.stdout.write(`${row.address.padEnd(addressWidth)}  ${row.kind.padEnd(kindWidth)}  ${formatRemoteId(row.remoteId)}\n`);
  }
  if (rows.length === 0) process.stderr.write(`No resources in ${backend.describe()}.\n`);
  const { pendingOperations } = await import('@vigil/engine');
  const pending = pendingOperations(document);
  if (pending.length > 0) {
    process.stderr.write(`\n${pending.length} pending operation${pending.length === 1 ? '' : 's'} from an interrupted apply (the next vigil apply finishes ${pending.length === 1 ? 'it' : 'them'}):\n`);
    for (const entry of pending) process.stderr.write(`  ${entry.operation} ${entry.address} (started ${entry.startedAt})\n`);
  }
}

async function show(command: Command, address: string): Promise<void> {
  const context = await openState(command);
  const { backend } = context;
  const { getResource } = await import('@vigil/engine');
  const document = await readExisting(backend, 'show');
  const resource = getResource(document, address, { location: backend.describe() });
  // The ping token is the service's and never kept in state: read from the service when it is known.
  const { readPingUrl } = await import('../heartbeat-urls.js');
  const pingUrl = resource.kind === 'heartbeat-monitor' ? await readPingUrl(document, resource.remoteId, context.configApi, (line) => process.stderr.write(`${line}\n`)) : undefined;
  process.stdout.write(`${JSON.stringify({ address, ...resource, ...(pingUrl ? { pingUrl } : {}) }, null, 2)}\n`);
}

async function move(command: Command, from: string, to: string, options: { lockTimeout: string }): Promise<void> {
  const timeoutMs = await parseLockTimeoutFlag(options.lockTimeout);
  const context = await openState(command);
  const { moveResource } = await import('@vigil/engine');
  const location = context.backend.describe();
  const { before } = await editUnderLock(context, { timeoutMs, command: `vigil state mv ${from} ${to}`, verb: 'move' }, (document) =>
    moveResource(document, from, to, { location }),
  );
  const remoteId = before.resources[from]?.remoteId;
  process.stdout.write(`Moved ${from} to ${to}; the remote resource${remoteId === undefined ? '' : ` (id ${formatRemoteId(remoteId)})`} was not touched.\n`);
}

async function remove(command: Command, addresses: string[], options: { lockTimeout: string }): Promise<void> {
  const timeoutMs = await parseLockTimeoutFlag(options.lockTimeout);
  const context = await openState(command);
  const { removeResource } = await import('@vigil/engine');
  const location = context.backend.describe();
  const { before } = await editUnderLock(context, { timeoutMs, command: `vigil state rm ${addresses.join(' ')}`, verb: 'remove' }, (document) =>
    addresses.reduce((current, address) => removeResource(current, address, { location }), document),
  );
  for (const address of addresses) {
    const remoteId = before.resources[address]?.remoteId;
    process.stdout.write(`Removed ${address} from state${remoteId === undefined ? '' : ` (remote id ${formatRemoteId(remoteId)})`}.\n`);
  }
  process.stdout.write(
    `The remote resource${addresses.length === 1 ? ' was' : 's were'} left untouched and ${addresses.length === 1 ? 'is' : 'are'} no longer managed by vigil; ` +
      `delete ${addresses.length === 1 ? 'it' : 'them'} in the service if no longer wanted.\n`,
  );
}

async function unprotect(command: Command, address: string, options: { lockTimeout: string }): Promise<void> {
  const timeoutMs = await parseLockTimeoutFlag(options.lockTimeout);
  const context = await openState(command);
  const { unprotectResource } = await import('@vigil/engine');
  const location = context.backend.describe();
  await editUnderLock(context, { timeoutMs, command: `vigil state unprotect ${address}`, verb: 'unprotect' }, (document) =>
    unprotectResource(document, address, { location }),
  );
  process.stdout.write(
    `${address} is no longer protected in ${location}: a plan may now delete or replace it. ` +
      'If its construct still says protect: true, plans keep refusing, and the next apply protects it again.\n',
  );
}

async function unlock(command: Command, options: { force?: boolean }): Promise<void> {
  const { backend } = await openState(command);
  const location = backend.describe();
  if (!options.force) {
    let holder = await backend.lockHolder();
    if (holder?.expired) {
      // Its server says nobody renewed it in time: no running vigil holds it, so no --force is needed.
      const result = await backend.forceUnlock({ onlyExpired: true });
      if (result.removed) return reportUnlocked(location, result);
      // Renewed or replaced since: what holds it now is a live lock, treated as any other.
      holder = result.holder === undefined ? undefined : { description: result.holder };
    }
    if (holder === undefined) {
      process.stdout.write(`No lock on ${location}; nothing to do.\n`);
      return;
    }
    if (!interactive()) {
      throw new CliError(
        `vigil state unlock removes the lock on ${location} whoever holds it; if you are sure no vigil is using this state, run it again with --force`,
      );
    }
    // On a terminal, say who holds it and ask, rather than make the user guess and retype.
    const { confirm } = await import('../prompt.js');
    const answer = await confirm(`Remove the lock on ${location}, held by ${holder.description}? Its holder can no longer write this state.`);
    if (answer !== 'yes') {
      process.stdout.write('The lock was left as it is.\n');
      return;
    }
  }
  const result = await backend.forceUnlock();
  if (!result.removed) {
    process.stdout.write(`No lock on ${location}; nothing to do.\n`);
    return;
  }
  await reportUnlocked(location, result);
}

async function reportUnlocked(location: string, result: ForceUnlockResult): Promise<void> {
  const { describeOwner, isProcessAlive } = await import('@vigil/engine');
  const { hostname } = await import('node:os');
  const owner = result.owner;
  const held = owner !== undefined ? `, held by ${describeOwner(owner)}` : result.holder !== undefined ? `, held by ${result.holder}` : ' (it named no owner)';
  const expired = result.expired && result.expiresAt !== undefined ? `; it had expired at ${result.expiresAt} without being renewed` : '';
  process.stdout.write(`Removed the lock on ${location}${held}${expired}.\n`);
  if (owner !== undefined && owner.host === hostname() && isProcessAlive(owner.pid)) {
    process.stderr.write(`warning: pid ${owner.pid} is still running; it can no longer write this state and will fail when it tries.\n`);
  }
}

/** A person at a terminal who can answer a question: not CI, standard input a TTY. */
function interactive(): boolean {
  const ci = process.env['CI'];
  return process.stdin.isTTY === true && (ci === undefined || ci === '' || ci === 'false' || ci === '0');
}

/**
 * Points state at the address its service moved to (a `vigil server` restarted on another port or
 * host), after checking that the service there is the one state belongs to.
 */
async function retarget(command: Command, url: string, options: { lockTimeout: string }): Promise<void> {
  const timeoutMs = await parseLockTimeoutFlag(options.lockTimeout);
  if (!/^https?:\/\/[^\s/]+/.test(url) || !URL.canParse(url)) throw usageError(`vigil state retarget: "${url}" is not an http(s) URL, e.g. http://127.0.0.1:4010`);
  const apiKey = process.env['VIGIL_API_KEY'];
  if (!apiKey) throw new CliError(`vigil state retarget asks the service at ${url} who it is: set VIGIL_API_KEY (and VIGIL_ACCOUNT_ID to pick an account)`);
  const context = await openState(command);
  const { normaliseBaseUrl, refresh, retargetState } = await import('@vigil/engine');
  const { serviceCalls } = await import('../service-calls.js');
  const { currentAccount } = await import('../service-identity.js');
  const { rateLimitFromEnv } = await import('../target.js');
  const { VERSION } = await import('../version.js');
  const baseUrl = url.replace(/\/+$/, '');
  const accountId = process.env['VIGIL_ACCOUNT_ID'] || undefined;
  const pacing = rateLimitFromEnv(process.env['VIGIL_RATE_LIMIT']);
  const calls = serviceCalls({ baseUrl, apiKey, accountId, userAgent: `vigil/${VERSION}`, ...(pacing === undefined ? {} : { pacing }) });
  const me = await currentAccount(calls);
  const target = { baseUrl, accountId: accountId ?? me?.id ?? '', ...(me?.serviceId === undefined ? {} : { serviceId: me.serviceId }) };
  const location = context.backend.describe();
  const { lockWaitNotice } = await import('../state-backend.js');
  const lock: StateLock = await context.backend.lock({ timeoutMs, command: 'vigil state retarget', onWait: await lockWaitNotice(location, timeoutMs, context.unlockCommand) });
  try {
    const before = await readExisting(context.backend, 'retarget');
    if (normaliseBaseUrl(before.target.baseUrl) === normaliseBaseUrl(baseUrl) && before.target.serviceId === target.serviceId) {
      process.stdout.write(`${location} already targets ${baseUrl}; nothing to do.\n`);
      return;
    }
    // A state recorded before services reported their identity: the service is its own only if it
    // holds every resource the state manages.
    let verifiedByResources = false;
    if (before.target.serviceId === undefined && target.serviceId !== undefined) {
      const resources = Object.values(before.resources);
      const remote = await refresh(calls, new Set(resources.map((resource) => resource.kind)));
      verifiedByResources = resources.every((resource) => remote.get(resource.kind)?.has(String(resource.remoteId)) === true);
    }
    const after = retargetState(before, target, { location, verifiedByResources });
    await lock.write(after);
    process.stdout.write(
      `${location} now targets ${baseUrl} (service ${target.serviceId}, account ${after.target.accountId}), was ${before.target.baseUrl}. ` +
        `Point VIGIL_API_URL at ${baseUrl} for plan and apply.\n`,
    );
  } finally {
    await lock.release();
  }
}

export function registerState(program: Command): void {
  const state = program
    .command('state')
    .description('inspect and edit state (what vigil manages) without touching the remote service')
    .addHelpText(
      'after',
      [
        '',
        'State lives where the config\'s state block says: .vigil/state.json under the project root by default (backend "local",',
        'state.path), on the target service (backend "service"), on a server speaking Terraform\'s http backend protocol',
        '(backend "http"), in a PostgreSQL database (backend "postgres") or in an S3 bucket (backend "s3"); every subcommand',
        'works the same on each.',
        'pull prints it, push replaces it from a file, migrate copies it from another backend to the configured one.',
        'mv renames an address (e.g. after renaming a logical id) so the resource is not recreated;',
        'rm makes vigil forget a resource and leaves it as it is in the service.',
        'unprotect lets a plan delete a resource that was protected when last applied (e.g. after its construct was removed).',
        'retarget points state at the new address of its service (same service id and account, checked there).',
        'unlock removes a lock left by a vigil that crashed or was killed.',
      ].join('\n'),
    );

  state
    .command('list')
    .description('list the managed resources: address, kind and remote id, sorted by address')
    .option('--json', 'print a JSON array of {address, kind, remoteId}')
    .action(async (options: { json?: boolean }, command: Command) => userErrors(() => list(command, options)));

  state
    .command('show')
    .description('print one resource\'s state entry as JSON (secret values appear only as hashes)')
    .argument('<address>', 'resource address, e.g. api-check.home')
    .action(async (address: string, _options: unknown, command: Command) => userErrors(() => show(command, address)));

  state
    .command('mv')
    .description('rename a resource\'s address in state; the remote resource is not touched')
    .argument('<from>', 'current address, e.g. api-check.home')
    .argument('<to>', 'new address of the same kind, e.g. api-check.homepage')
    .option('--lock-timeout <duration>', 'how long to wait for the state lock (e.g. 30s, 5m)', '0s')
    .action(async (from: string, to: string, options: { lockTimeout: string }, command: Command) =>
      userErrors(() => move(command, from, to, options)),
    );

  state
    .command('rm')
    .description('forget resources: vigil stops managing them and leaves them as they are in the service')
    .argument('<address...>', 'resource addresses, e.g. api-check.home')
    .option('--lock-timeout <duration>', 'how long to wait for the state lock (e.g. 30s, 5m)', '0s')
    .action(async (addresses: string[], options: { lockTimeout: string }, command: Command) =>
      userErrors(() => remove(command, addresses, options)),
    );

  state
    .command('unprotect')
    .description('lift the protection recorded for a resource, so a plan may delete or replace it')
    .argument('<address>', 'resource address, e.g. api-check.home')
    .option('--lock-timeout <duration>', 'how long to wait for the state lock (e.g. 30s, 5m)', '0s')
    .action(async (address: string, options: { lockTimeout: string }, command: Command) => userErrors(() => unprotect(command, address, options)));

  state
    .command('retarget')
    .description('point state at the new address of the service it belongs to, after checking it is the same service and account')
    .argument('<url>', 'the service\'s new address, e.g. http://127.0.0.1:4010 (VIGIL_API_KEY authenticates there)')
    .option('--lock-timeout <duration>', 'how long to wait for the state lock (e.g. 30s, 5m)', '0s')
    .action(async (url: string, options: { lockTimeout: string }, command: Command) => userErrors(() => retarget(command, url, options)));

  state
    .command('unlock')
    .description('remove a state lock left by a vigil that crashed or was killed, naming who held it')
    .option('--force', 'remove the lock whoever holds it without asking (scripts, CI); on a terminal, vigil otherwise names the holder and asks')
    .addHelpText(
      'after',
      [
        '',
        'The lock is, per backend: local, the file .vigil/state.json.lock; http, the server\'s LOCK; service, the service\'s lock,',
        'which expires unless its holder renews it (an expired lock is removed without --force, as no running vigil holds it);',
        'postgres, an advisory lock, released when the holder\'s session ends (--force ends that session); s3, the object <key>.lock.',
        'The next apply finishes what the killed one left in the journal.',
      ].join('\n'),
    )
    .action(async (options: { force?: boolean }, command: Command) => userErrors(() => unlock(command, options)));

  registerStateCopies(state);
}
