/**
 * One replica's ear on a PostgreSQL notification channel: a connection of its own, outside the pool,
 * that LISTENs while anyone here is subscribed. It is not a pool connection because a LISTEN holds its
 * session for as long as it listens, and a pooled one would be lent to queries (losing the LISTEN on
 * release) or kept out of the pool for good (starving it by one).
 *
 * - Notifications are sent with the transaction that made them (`pg_notify` in its statement) and
 *   delivered when it commits, to every session listening on the database: the sender's replica too.
 * - A notification sent while this connection is away is lost, not queued. So whenever the LISTEN
 *   takes effect (first, and after every reconnection) subscribers are told `listening`: what
 *   happened before may not have been told, and they look for themselves (a hub sweeps).
 * - The connection going away (the database restarting, a failover, `pg_terminate_backend`) is
 *   retried with a backoff doubling up to `maxRetryMs`; the first failure of an outage is warned,
 *   never with the password (connection-errors.ts).
 * - The connection opens at the first subscription and ends at the last unsubscription or `close()`,
 *   so a replica whose hub does not run holds no extra connection, and a closed service no handle.
 */
import pg from 'pg';
import { reasonOf, withoutSecrets } from './connection-errors.js';

/** What a subscriber is told: a notification's payload, or that listening began (again) and earlier ones may be lost. */
export type ChannelEvent = { readonly kind: 'notified'; readonly payload: string } | { readonly kind: 'listening' };

export interface NotificationListenerOptions {
  readonly connectionString: string;
  /** `host:port/database`, as warnings name it. */
  readonly target: string;
  /** A channel name: lower-case letters, digits and underscores (it is written into `LISTEN` as is). */
  readonly channel: string;
  readonly warn: (message: string) => void;
  /** How long connecting may take before the attempt counts as failed. */
  readonly connectionTimeoutMs: number;
  /** The first wait before reconnecting (default 100 ms), doubled on each failure up to `maxRetryMs` (default 5 s). */
  readonly firstRetryMs?: number;
  readonly maxRetryMs?: number;
}

export class PostgresNotificationListener {
  readonly #options: NotificationListenerOptions;
  readonly #subscribers = new Set<(event: ChannelEvent) => void>();
  /** The connection now being opened or listening; undefined while none is wanted or between retries. */
  #client: pg.Client | undefined;
  #listening = false;
  #retry: NodeJS.Timeout | undefined;
  #retryMs: number;
  /** Whether this outage was warned of already: one warning per outage, not one per retry. */
  #warned = false;
  #closed = false;

  constructor(options: NotificationListenerOptions) {
    if (!/^[a-z_][a-z0-9_]*$/.test(options.channel)) throw new Error(`a notification channel is lower-case letters, digits and underscores, not ${JSON.stringify(options.channel)}`);
    this.#options = options;
    this.#retryMs = options.firstRetryMs ?? 100;
  }

  /** Tells `subscriber` `listening` once the LISTEN holds (opening the connection if none is), then every notification, until the returned function is called. */
  subscribe(subscriber: (event: ChannelEvent) => void): () => void {
    // A function of its own, so one subscriber given twice is two subscriptions, each ended once.
    const own = (event: ChannelEvent) => subscriber(event);
    this.#subscribers.add(own);
    if (this.#listening) queueMicrotask(() => this.#subscribers.has(own) && own({ kind: 'listening' }));
    else if (!this.#client && !this.#retry && !this.#closed) void this.#connect();
    return () => {
      if (!this.#subscribers.delete(own) || this.#subscribers.size > 0) return;
      void this.#stop();
    };
  }

  /** Ends the connection for good; later subscriptions hear nothing. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#subscribers.clear();
    await this.#stop();
  }

  async #connect(): Promise<void> {
    this.#retry = undefined;
    const { connectionString, connectionTimeoutMs, channel } = this.#options;
    // keepAlive: a connection whose peer vanished without closing it is found broken by the OS in time.
    const client = new pg.Client({ connectionString, connectionTimeoutMillis: connectionTimeoutMs, keepAlive: true });
    this.#client = client;
    const lost = (error?: unknown) => this.#lost(client, error);
    client.on('error', lost);
    client.on('end', () => lost());
    client.on('notification', (message) => {
      if (this.#client === client && message.channel === channel) this.#tell({ kind: 'notified', payload: message.payload ?? '' });
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${channel}`);
    } catch (error) {
      lost(error);
      return;
    }
    // Stopped while connecting: the connection made meanwhile is not wanted.
    if (this.#client !== client) {
      await client.end().catch(() => {});
      return;
    }
    if (this.#warned) this.#options.warn(`listening to PostgreSQL notifications on ${this.#options.target} again`);
    this.#warned = false;
    this.#listening = true;
    this.#retryMs = this.#options.firstRetryMs ?? 100;
    this.#tell({ kind: 'listening' });
  }

  #lost(client: pg.Client, error: unknown): void {
    // Ended whether or not it is still the current one: a connect that failed may leave its socket.
    client.end().catch(() => {});
    // Said once per connection: pg reports a break as 'error' and then 'end'.
    if (this.#client !== client) return;
    this.#client = undefined;
    this.#listening = false;
    if (this.#closed || this.#subscribers.size === 0) return;
    if (!this.#warned) {
      this.#warned = true;
      const reason = error === undefined ? 'the connection ended' : withoutSecrets(reasonOf(error), this.#options.connectionString);
      this.#options.warn(`the PostgreSQL connection listening for notifications on ${this.#options.target} failed (${reason}); reconnecting, and agents' runs reach them at the next sweep meanwhile`);
    }
    const wait = this.#retryMs;
    this.#retryMs = Math.min(this.#options.maxRetryMs ?? 5000, this.#retryMs * 2);
    this.#retry = setTimeout(() => void this.#connect(), wait);
    // A retry alone keeps no process alive: the service's server does while it runs.
    this.#retry.unref();
  }

  async #stop(): Promise<void> {
    if (this.#retry) clearTimeout(this.#retry);
    this.#retry = undefined;
    const client = this.#client;
    this.#client = undefined;
    this.#listening = false;
    this.#warned = false;
    // Its end is not a loss to retry: `#lost` ignores a client that is no longer the current one.
    if (client) await client.end().catch(() => {});
  }

  #tell(event: ChannelEvent): void {
    for (const subscriber of [...this.#subscribers]) {
      try {
        subscriber(event);
      } catch (error) {
        this.#options.warn(`a subscriber to PostgreSQL notifications failed: ${reasonOf(error)}`);
      }
    }
  }
}
