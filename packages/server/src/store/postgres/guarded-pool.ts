/**
 * The pg Pool as Kysely sees it, with two guards a long-running service needs:
 *
 * - No failure of a connection ends the process. pg emits 'error' on a client whose connection
 *   broke; the Pool listens on its idle clients only, and an 'error' without a listener is thrown.
 *   A connection checked out (a transaction, pruning's session) that the server closes between two
 *   statements would otherwise crash the service: every client handed out gets a listener here.
 * - Failures say what happened: a connection that cannot be made, or broke, becomes a
 *   `PostgresUnavailableError` naming `host:port/database` (never the password), a statement
 *   timeout a `PostgresStatementTimeoutError` (connection-errors.ts).
 *
 * Reconnecting is the Pool's own: a broken client is dropped (on release it is not queryable), and
 * the next checkout opens a new connection, which succeeds once the database is back.
 *
 * Units of work never take the last connections (`UnitGate`): a unit holds its connection for all of
 * its statements, and under a scheduler's load (runs stored as units, hundreds of them in flight at
 * once) they would otherwise take every connection and queue in front of the API's reads, each a
 * single statement of a millisecond or two that waited behind all of them. Statements outside a unit
 * keep `STATEMENT_CONNECTIONS` of the pool to themselves; a unit's further connections, if its code
 * ever takes one, pass the gate, so a unit never waits on another unit's share.
 *
 * Each checkout is published on the diagnostics channel `POOL_CHECKOUT_CHANNEL` when something
 * subscribes to it (a benchmark, an APM agent): how long it waited, and whether for a unit.
 *
 * Statements run often are prepared once per connection (`StatementNames`): PostgreSQL then skips
 * parsing and analysing them at each run, and after a few runs planning too (its plan cache keeps a
 * generic plan when that costs no more than the custom ones). A scheduled run is some 25 short
 * statements, each executed in tens of microseconds: with two replicas at 1,000 checks a minute,
 * preparing them took PostgreSQL's CPU per run from about 7.4 to 4.9 ms (BENCHMARKS.md).
 */
import { createHash } from 'node:crypto';
import diagnostics from 'node:diagnostics_channel';
import type { PostgresPool, PostgresPoolClient } from 'kysely';
import type pg from 'pg';
import { unitRunningHere } from '../unit-of-work.js';
import { reasonOf, translateError, withoutSecrets } from './connection-errors.js';

/** The send of a text at which it is first prepared (the ones before go unnamed): a text sent once is likely built for one call. */
const PREPARE_AT = 2;
/** Texts prepared at most, so statements built anew for each call (lists of n values) cannot fill each connection's memory. */
const MAX_PREPARED = 400;
/** Texts counted at most while they are still below PREPARE_AT (a bound for the counts themselves). */
const MAX_COUNTED = 4000;

/**
 * Which statement texts are sent as prepared statements, and under which name: a text with parameters
 * from its PREPARE_AT-th send on. A name is a digest of the text, so it is the same on
 * every connection, and two texts never share one. Left unnamed, whatever the count: a text without
 * parameters (BEGIN, SAVEPOINT, DDL: cheap to parse, or run once), and one whose result has `*`
 * among its columns, whose prepared form would fail with "cached plan must not change result type"
 * once a newer replica's migration adds a column to the table.
 */
export class StatementNames {
  readonly #counted = new Map<string, number>();
  readonly #named = new Map<string, string>();

  nameOf(text: string, parameters: readonly unknown[] | undefined): string | undefined {
    if (parameters === undefined || parameters.length === 0) return undefined;
    const named = this.#named.get(text);
    if (named !== undefined) return named;
    if (this.#named.size >= MAX_PREPARED || hasStarColumns(text)) return undefined;
    const count = (this.#counted.get(text) ?? 0) + 1;
    if (count < PREPARE_AT) {
      if (this.#counted.size < MAX_COUNTED || this.#counted.has(text)) this.#counted.set(text, count);
      return undefined;
    }
    this.#counted.delete(text);
    const name = `vigil_${createHash('sha256').update(text).digest('base64url').slice(0, 32)}`;
    this.#named.set(text, name);
    return name;
  }
}

/** `*` outside `count(*)`: a `SELECT *`, `t.*` or `RETURNING *`, or a product (told apart only by a parser; none is on a hot path). */
function hasStarColumns(text: string): boolean {
  return text.replace(/count\(\*\)/gi, '').includes('*');
}

/** Connections of a pool kept for statements outside a unit of work (at most all but one). */
export const STATEMENT_CONNECTIONS = 3;

/** Where each checkout is told, with what it waited (`PoolCheckout`), while something subscribes. */
export const POOL_CHECKOUT_CHANNEL = 'vigil:postgres:pool-checkout';

export interface PoolCheckout {
  /** From asking for a connection to having it, the wait for a unit's share of the pool included. */
  readonly waitedMs: number;
  /** Whether it was a unit of work's connection (false: a single statement's). */
  readonly unit: boolean;
  /** Whether the pool opened a new connection for it (none was idle), which the wait includes. */
  readonly opened: boolean;
}

const checkouts = diagnostics.channel(POOL_CHECKOUT_CHANNEL);

/**
 * How many connections units of work hold at once: at most `limit`; the next unit waits here, in
 * order, for one of them to release its connection, not in the pool's queue in front of statements.
 */
export class UnitGate {
  readonly #limit: number;
  #held = 0;
  readonly #waiting: Array<() => void> = [];

  constructor(limit: number) {
    this.#limit = Math.max(1, limit);
  }

  /** Resolves once the caller holds a share; rejects after `timeoutMs` as the pool's own connection timeout does (0: never). */
  enter(timeoutMs: number): Promise<void> {
    if (this.#held < this.#limit) {
      this.#held += 1;
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const admit = () => {
        if (timer !== undefined) clearTimeout(timer);
        resolve();
      };
      const timer =
        timeoutMs > 0
          ? setTimeout(() => {
              this.#waiting.splice(this.#waiting.indexOf(admit), 1);
              // pg's own words for a checkout that timed out, which translateError knows as the database being away.
              reject(new Error('timeout exceeded when trying to connect'));
            }, timeoutMs)
          : undefined;
      this.#waiting.push(admit);
    });
  }

  /** Hands the share to the unit waiting longest, or gives it back. */
  leave(): void {
    const next = this.#waiting.shift();
    if (next === undefined) this.#held -= 1;
    else next();
  }
}

export interface GuardContext {
  readonly connectionString: string;
  /** `host:port/database`. */
  readonly target: string;
  readonly statementTimeoutMs: number;
  readonly warn: (message: string) => void;
  /**
   * False sends every statement unnamed, as a connection pooler that hands each transaction another
   * server connection needs (PgBouncer in transaction mode without `max_prepared_statements`).
   */
  readonly prepareStatements?: boolean;
  /** The pool's `connectionTimeoutMillis`, which a unit's wait for its share of the pool honours too (0 or absent: none). */
  readonly connectionTimeoutMs?: number;
}

export function guardedPool(pool: pg.Pool, context: GuardContext): PostgresPool {
  const guarded = new WeakSet<pg.PoolClient>();
  const translate = (error: unknown) => translateError(error, context);
  const statements = context.prepareStatements === false ? undefined : new StatementNames();
  const units = new UnitGate((pool.options.max ?? 10) - STATEMENT_CONNECTIONS);
  /** Units holding a share now: a second connection of one of them does not wait for another share. */
  const holding = new WeakSet<object>();
  return {
    Client: (pool as unknown as { Client?: PostgresPool['Client'] }).Client,
    options: pool.options,
    end: () => pool.end(),
    async connect(): Promise<PostgresPoolClient> {
      const asked = checkouts.hasSubscribers ? performance.now() : undefined;
      const connections = pool.totalCount;
      const unit = unitRunningHere();
      const gated = unit !== undefined && !holding.has(unit) ? unit : undefined;
      let client: pg.PoolClient;
      try {
        if (gated !== undefined) await units.enter(context.connectionTimeoutMs ?? 0);
      } catch (error) {
        throw translate(error);
      }
      try {
        client = await pool.connect();
      } catch (error) {
        if (gated !== undefined) units.leave();
        throw translate(error);
      }
      if (gated !== undefined) holding.add(gated);
      let released = false;
      if (asked !== undefined) checkouts.publish({ waitedMs: performance.now() - asked, unit: unit !== undefined, opened: pool.totalCount > connections } satisfies PoolCheckout);
      if (!guarded.has(client)) {
        guarded.add(client);
        client.on('error', (error) => {
          // While idle the Pool's own listener reports it too (see openPostgres): say it once.
          if (client.listenerCount('error') > 1) return;
          context.warn(`a PostgreSQL connection in use to ${context.target} failed: ${withoutSecrets(reasonOf(error), context.connectionString)}`);
        });
      }
      return {
        query: ((text: unknown, parameters?: readonly unknown[]) => {
          // A cursor (streaming) is handed through as it is: its reads reject with the driver's error.
          if (typeof text !== 'string') return client.query(text as pg.Submittable);
          const name = statements?.nameOf(text, parameters);
          const answered = name === undefined ? client.query(text, parameters as unknown[]) : client.query({ name, text, values: parameters as unknown[] });
          return answered.catch((error: unknown) => {
            throw translate(error);
          });
        }) as unknown as PostgresPoolClient['query'],
        release: (destroy?: boolean) => {
          client.release(destroy);
          if (gated === undefined || released) return;
          released = true;
          holding.delete(gated);
          units.leave();
        },
      };
    },
  };
}
