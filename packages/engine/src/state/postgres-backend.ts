/**
 * The `postgres` backend: state in a PostgreSQL database, one table per project (see
 * `stateTableName`), in the first schema of the connection's search_path. The table holds the
 * checkpoint (`kind = 'document'`, the whole document as written), the journal steps appended since
 * it (`kind = 'step'`, one row per step, encoded as the local backend's step log lines) and who holds
 * the lock (`kind = 'lock'`). A checkpoint replaces the document and drops the steps in one
 * transaction; a step is durable when its INSERT commits.
 *
 * The lock is a session-level advisory lock on a hash of the table name, taken on the connection the
 * holder then writes through: PostgreSQL releases it when that session ends, so a killed vigil does
 * not leave the state locked once the server has seen its connection close, and a holder whose
 * session was ended (`vigil state unlock --force` terminates it) cannot write any more. The lock row
 * names the holder (pid, host, user, command, since) for waiters and for `vigil state unlock`.
 *
 * The connection string's password never appears in a message: locations show the URL without it.
 */
import { randomUUID } from 'node:crypto';
import { hostname, userInfo } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Client as PgClient } from 'pg';
import { parseStateDocument, serialForWrite, serializeState } from './document.js';
import { StateError, isStateError } from './errors.js';
import { describeOwner } from './lock-file.js';
import { waitForLock, type LockAttempt } from './lock-wait.js';
import { advisoryKey, displayConnectionString, quoteIdentifier, stateTableName } from './postgres-names.js';
import { encodeSteps, replaySteps } from './step-log.js';
import type { JournalStep, LockHolder, LockOptions, LockOwner, StateBackend, StateDocument, StateLock, StateWriteOptions } from './types.js';
import { inTurn } from './in-turn.js';

export { ADVISORY_NAMESPACE, advisoryKey, displayConnectionString, stateTableName };

export interface PostgresBackendOptions {
  /** `postgres://user:password@host:port/database?...`; the password is only ever used to connect. */
  connectionString: string;
  /** The project's logical id: its state is the table `stateTableName(workspace)`. */
  workspace: string;
  unlockCommand?: string;
  pollMs?: number;
}

/** How vigil's sessions are named in pg_stat_activity. */
const APPLICATION_NAME = 'vigil state';
/** The first key of every vigil advisory lock ('vigl'), so they do not collide with an application's. */
const ADVISORY_NAMESPACE = 0x7669676c;
/** Appended steps after which the whole document is written again, as the local backend does. */
const CHECKPOINT_STEPS = 5000;
/** How long a dead holder's session may keep the lock before it is reported stale (PostgreSQL notices the closed connection). */
const DEAD_HOLDER_GRACE_MS = 3000;

function currentUser(): string {
  try {
    return userInfo().username;
  } catch {
    return process.env['USER'] ?? 'unknown';
  }
}

interface Row {
  kind: 'document' | 'step' | 'lock';
  serial: string | null;
  body: string;
  session_pid: number | null;
}

interface Stored {
  document: StateDocument;
  checkpointSerial: number;
  /** Steps rows exist (appended since the checkpoint). */
  stepsSinceCheckpoint: number;
}

export function createPostgresBackend(options: PostgresBackendOptions): StateBackend {
  const table = stateTableName(options.workspace);
  const quoted = quoteIdentifier(table);
  const key = advisoryKey(table);
  const shown = displayConnectionString(options.connectionString);
  const location = `postgres state ${table} at ${shown}`;
  const unlockCommand = options.unlockCommand ?? 'vigil state unlock --force';
  const password = (() => {
    try {
      return decodeURIComponent(new URL(options.connectionString).password);
    } catch {
      return '';
    }
  })();
  /** The lock this backend holds now: reads go through its session, after its writes. */
  let active: { client: PgClient; run<T>(work: () => Promise<T>): Promise<T> } | undefined;

  function redact(text: string): string {
    let result = text.split(options.connectionString).join(shown);
    if (password !== '') result = result.split(password).join('(redacted)').split(encodeURIComponent(password)).join('(redacted)');
    return result;
  }

  function failure(doing: string, error: unknown): StateError {
    if (isStateError(error)) return error;
    const message = error instanceof Error ? error.message : String(error);
    return new StateError('state-io', redact(`cannot ${doing} ${location}: ${message}`), { cause: error });
  }

  async function connect(): Promise<PgClient> {
    const { default: pg } = await import('pg');
    const client = new pg.Client({ connectionString: options.connectionString, application_name: APPLICATION_NAME, keepAlive: true });
    // A connection that drops between queries reports here; the next query then fails and says so.
    client.on('error', () => undefined);
    try {
      await client.connect();
    } catch (error) {
      await client.end().catch(() => undefined);
      throw failure('connect to', error);
    }
    return client;
  }

  async function withClient<T>(doing: string, work: (client: PgClient) => Promise<T>): Promise<T> {
    const client = await connect();
    try {
      return await work(client);
    } catch (error) {
      throw failure(doing, error);
    } finally {
      await client.end().catch(() => undefined);
    }
  }

  /** Rows of `kinds`; none when the table does not exist yet (nothing was ever locked here). */
  async function rows(client: PgClient, kinds: readonly Row['kind'][]): Promise<Row[]> {
    const exists = await client.query<{ found: string | null }>('SELECT to_regclass($1) AS found', [quoted]);
    if (exists.rows[0]?.found == null) return [];
    const result = await client.query<Row>(`SELECT kind, serial::text AS serial, body, session_pid FROM ${quoted} WHERE kind = ANY($1) ORDER BY id`, [kinds]);
    return result.rows;
  }

  async function readStored(client: PgClient): Promise<Stored | undefined> {
    const found = await rows(client, ['document', 'step']);
    const checkpoint = found.find((row) => row.kind === 'document');
    if (checkpoint === undefined) return undefined;
    const document = parseStateDocument(checkpoint.body, location);
    const checkpointSerial = document.serial;
    const steps = found.filter((row) => row.kind === 'step');
    if (steps.length > 0) replaySteps(document, steps.map((row) => `${row.body}\n`).join(''), `${location} (journal steps)`);
    return { document, checkpointSerial, stepsSinceCheckpoint: document.serial - checkpointSerial };
  }

  async function read(): Promise<StateDocument | undefined> {
    if (active) {
      const lock = active;
      return lock.run(async () => (await readStored(lock.client).catch((error: unknown) => Promise.reject(failure('read', error))))?.document);
    }
    return withClient('read', async (client) => (await readStored(client))?.document);
  }

  /** Who holds the advisory lock now: the PostgreSQL session, and the vigil it recorded if that session wrote the lock row. */
  async function holderOf(client: PgClient): Promise<(LockHolder & { sessionPid: number; vigilSession: boolean }) | undefined> {
    const held = await client.query<{ pid: number; usename: string | null; client_addr: string | null; application_name: string | null }>(
      `SELECT l.pid, a.usename, a.client_addr::text AS client_addr, a.application_name
         FROM pg_locks l LEFT JOIN pg_stat_activity a ON a.pid = l.pid
        WHERE l.locktype = 'advisory' AND l.granted AND l.classid = $1::bigint::oid AND l.objid = $2::bigint::oid AND l.objsubid = 2
          AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
      [ADVISORY_NAMESPACE, key],
    );
    const session = held.rows[0];
    if (session === undefined) return undefined;
    const lockRow = (await rows(client, ['lock']))[0];
    const owner = lockRow !== undefined && lockRow.session_pid === session.pid ? parseOwner(lockRow.body) : undefined;
    if (owner) return { owner, description: describeOwner(owner), sessionPid: session.pid, vigilSession: true };
    const from = [session.usename && `user ${session.usename}`, session.client_addr && `from ${session.client_addr}`, session.application_name && `"${session.application_name}"`].filter(Boolean).join(', ');
    return {
      description: `PostgreSQL session ${session.pid}${from === '' ? '' : ` (${from})`}, which names no vigil owner`,
      sessionPid: session.pid,
      vigilSession: session.application_name === APPLICATION_NAME,
    };
  }

  async function lock(lockOptions: LockOptions): Promise<StateLock> {
    if (active) throw new Error('this is a bug in vigil: the postgres state locked twice by one process');
    const owner: LockOwner = { id: randomUUID(), pid: process.pid, host: hostname(), user: currentUser(), command: lockOptions.command, createdAt: new Date().toISOString() };
    const client = await connect();
    try {
      await waitForLock({
        ...lockOptions,
        location,
        unlockCommand,
        deadHolderGraceMs: DEAD_HOLDER_GRACE_MS,
        ...(options.pollMs === undefined ? {} : { pollMs: options.pollMs }),
        attempt: async (): Promise<LockAttempt<true>> => {
          const taken = await client.query<{ taken: boolean }>('SELECT pg_try_advisory_lock($1, $2) AS taken', [ADVISORY_NAMESPACE, key]);
          if (taken.rows[0]?.taken) return { taken: true, value: true };
          // No holder: released between the attempt and the look, and the next attempt takes it. A
          // vigil's session without its lock row is between taking the lock and naming itself.
          const holder = await holderOf(client);
          if (holder !== undefined && holder.owner === undefined && holder.vigilSession) return { taken: false };
          return { taken: false, holder: holder && { ...(holder.owner ? { owner: holder.owner } : {}), description: holder.description } };
        },
      }).catch((error: unknown) => Promise.reject(failure('lock', error)));
      await client
        .query(
          `CREATE TABLE IF NOT EXISTS ${quoted} (
             id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
             kind text NOT NULL CHECK (kind IN ('document', 'step', 'lock')),
             serial bigint,
             body text NOT NULL,
             session_pid integer,
             written_at timestamptz NOT NULL DEFAULT now()
           )`,
        )
        .catch((error: unknown) => Promise.reject(failure('create the table of', error)));
      await transaction(client, 'record the lock holder of', async () => {
        await client.query(`DELETE FROM ${quoted} WHERE kind = 'lock'`);
        await client.query(`INSERT INTO ${quoted} (kind, body, session_pid) VALUES ('lock', $1, pg_backend_pid())`, [JSON.stringify(owner)]);
      });
      const stored = await readStored(client).catch((error: unknown) => Promise.reject(failure('read', error)));
      return createLock(client, owner, stored);
    } catch (error) {
      // Ending the session releases the advisory lock if it was taken.
      await client.end().catch(() => undefined);
      throw error;
    }
  }

  async function transaction(client: PgClient, doing: string, work: () => Promise<void>): Promise<void> {
    try {
      await client.query('BEGIN');
      await work();
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw lostOr(doing, error);
    }
  }

  /** A session ended from outside (`vigil state unlock --force`) means the lock is gone: say so rather than quote the driver. */
  function lostOr(doing: string, error: unknown): StateError {
    if (isStateError(error)) return error;
    const code = (error as { code?: string }).code;
    const message = error instanceof Error ? error.message : '';
    if (code === '57P01' || /Connection terminated|connection is not open|Client was closed|not queryable/i.test(message)) {
      return new StateError(
        'state-locked',
        `lost the lock on state ${location}: its PostgreSQL session ended (e.g. vigil state unlock --force terminated it, or the connection dropped); not writing, so whoever holds it now is not overwritten`,
        { cause: error },
      );
    }
    return failure(doing, error);
  }

  function createLock(client: PgClient, owner: LockOwner, stored: Stored | undefined): StateLock {
    let serial = stored?.document.serial ?? 0;
    let checkpointSerial = stored?.checkpointSerial;
    let lineage = stored?.document.lineage;
    let stepsSinceCheckpoint = stored?.stepsSinceCheckpoint ?? 0;
    let released = false;
    const run = inTurn();
    active = { client, run };

    function assertOpen(): void {
      if (released) throw new Error('this is a bug in vigil: state written after its lock was released');
    }

    async function writeNow(document: StateDocument, writeOptions: StateWriteOptions = {}): Promise<void> {
      assertOpen();
      const next = { ...document, serial: serialForWrite({ lineage, serial }, document, { ...writeOptions, location }) };
      await transaction(client, 'write', async () => {
        // The lock keeps other vigils out; this catches a writer that did not take it.
        const current = await client.query<{ serial: string }>(`SELECT serial::text AS serial FROM ${quoted} WHERE kind = 'document' FOR UPDATE`);
        const storedSerial = current.rows[0] === undefined ? undefined : Number(current.rows[0].serial);
        if (storedSerial !== checkpointSerial) {
          throw new StateError(
            'state-serial-stale',
            `refusing to write state ${location}: its stored checkpoint is serial ${storedSerial ?? 'none'}, not the ${checkpointSerial ?? 'none'} this lock read, so something wrote it without the lock; not overwriting it`,
          );
        }
        await client.query(`DELETE FROM ${quoted} WHERE kind IN ('document', 'step')`);
        await client.query(`INSERT INTO ${quoted} (kind, serial, body) VALUES ('document', $1, $2)`, [next.serial, serializeState(next)]);
      });
      serial = next.serial;
      checkpointSerial = next.serial;
      lineage = next.lineage;
      stepsSinceCheckpoint = 0;
    }

    function canAppend(): boolean {
      return checkpointSerial !== undefined && lineage !== undefined && stepsSinceCheckpoint < CHECKPOINT_STEPS;
    }

    async function appendNow(steps: readonly JournalStep[]): Promise<void> {
      assertOpen();
      if (!canAppend()) throw new Error('this is a bug in vigil: journal steps appended while the state needs a whole write');
      if (steps.length === 0) return;
      const lines = encodeSteps(lineage!, checkpointSerial!, steps).split('\n').slice(0, steps.length);
      const values = lines.map((_, index) => `('step', $1, $${index + 2})`).join(', ');
      try {
        await client.query(`INSERT INTO ${quoted} (kind, serial, body) VALUES ${values}`, [checkpointSerial, ...lines]);
      } catch (error) {
        throw lostOr('append journal steps to', error);
      }
      serial += steps.length;
      stepsSinceCheckpoint += steps.length;
    }

    return {
      get serial() {
        return serial;
      },
      get canAppendSteps() {
        return canAppend();
      },
      write: (document, writeOptions) => run(() => writeNow(document, writeOptions)),
      appendSteps: (steps) => run(() => appendNow(steps)),
      async release() {
        if (released) return;
        released = true;
        await run.settled();
        if (active?.client === client) active = undefined;
        try {
          // Only our own row: after a forced unlock, a successor's row is left alone.
          await client.query(`DELETE FROM ${quoted} WHERE kind = 'lock' AND body::jsonb->>'id' = $1`, [owner.id]);
          await client.query('SELECT pg_advisory_unlock($1, $2)', [ADVISORY_NAMESPACE, key]);
        } catch {
          // The session is gone (its lock with it), or the lock was broken: nothing of ours to remove.
        } finally {
          await client.end().catch(() => undefined);
        }
      },
    };
  }

  return {
    describe: () => location,
    read,
    lock,
    async lockHolder() {
      return withClient('find who locks', async (client) => {
        const holder = await holderOf(client);
        if (holder === undefined) return undefined;
        return { ...(holder.owner ? { owner: holder.owner } : {}), description: holder.description };
      });
    },
    async forceUnlock(options) {
      // Its locks never expire: only an explicit --force removes one.
      if (options?.onlyExpired) return { removed: false };
      return withClient('unlock', async (client) => {
        const holder = await holderOf(client);
        if (holder === undefined) {
          // A row left by a holder whose session ended says nothing true any more.
          if ((await rows(client, ['lock'])).length > 0) await client.query(`DELETE FROM ${quoted} WHERE kind = 'lock'`);
          return { removed: false };
        }
        if (!holder.vigilSession) {
          // Another application holding this advisory-lock key is not vigil's to end.
          throw new StateError(
            'state-io',
            `${location} is locked by ${holder.description}, which is not a vigil session; vigil does not end other applications' sessions. ` +
              `If it must go, end it yourself: SELECT pg_terminate_backend(${holder.sessionPid})`,
          );
        }
        try {
          await client.query('SELECT pg_terminate_backend($1)', [holder.sessionPid]);
        } catch (error) {
          if ((error as { code?: string }).code === '42501') {
            throw new StateError(
              'state-io',
              `${location} is locked by ${holder.description} through PostgreSQL session ${holder.sessionPid}, which this database user may not end ` +
                '(it must be the same role, or a member of pg_signal_backend); ask an administrator to run SELECT pg_terminate_backend(' +
                `${holder.sessionPid})`,
              { cause: error },
            );
          }
          throw error;
        }
        // The lock goes when the session has ended.
        for (let tries = 0; tries < 100 && (await holderOf(client))?.sessionPid === holder.sessionPid; tries += 1) await sleep(50);
        await client.query(`DELETE FROM ${quoted} WHERE kind = 'lock' AND session_pid = $1`, [holder.sessionPid]);
        return { removed: true, ...(holder.owner ? { owner: holder.owner } : {}), holder: holder.description };
      });
    },
  };
}

function parseOwner(body: string): LockOwner | undefined {
  try {
    const parsed = JSON.parse(body) as Partial<LockOwner>;
    if (typeof parsed.id !== 'string' || typeof parsed.pid !== 'number' || typeof parsed.host !== 'string') return undefined;
    return {
      id: parsed.id,
      pid: parsed.pid,
      host: parsed.host,
      user: String(parsed.user ?? 'unknown'),
      command: String(parsed.command ?? 'unknown'),
      createdAt: String(parsed.createdAt ?? 'an unknown time'),
    };
  } catch {
    return undefined;
  }
}
