/**
 * The notification outbox: rows of `alert_notifications` (store/sqlite/alerting-tables.ts) and the worker that
 * delivers them. At least once: a row is settled (SENT, FAILED, UNDELIVERABLE) only after its
 * attempt ends, so a row whose attempt a crash cut short is attempted again after the restart.
 *
 * - Bounded concurrency: at most `concurrency` requests in flight; each has `timeoutMs`, so a slow
 *   or dead receiver holds one slot for at most that long and never delays the others' turns.
 * - Retries: a transient failure is attempted again after `backoffMs · 2^(attempts−1)` (capped at
 *   `maxBackoffMs`), up to `maxAttempts` attempts; then the row is FAILED with the last error. A
 *   send that resolves `failed` (a webhook template that cannot be rendered) is FAILED at once.
 */
import { DEFAULT_SERVICE_DENY_NETWORKS, parseNetworkPolicy } from '@vigil/runner';
import type { Store } from '../store/index.js';
import { OutboxTable, type NotificationRow } from '../store/sqlite/outbox.js';
import { sendToChannel, SUBSCRIBER_DELIVERY, type AlertContext, type SendOutcome, type SubscriberMailLinks } from './channels.js';
import { maskChannel } from './masking.js';

export type DeliveryStatus = 'PENDING' | 'SENT' | 'FAILED' | 'UNDELIVERABLE';

export type { NotificationRow } from '../store/sqlite/outbox.js';

/** What a row's `doc` holds: everything the delivery needs, fixed when the alert happened. */
export interface NotificationDoc {
  context: AlertContext;
  /** The channel's config at the time (a later edit or delete does not change a queued notification). */
  alertConfig: Record<string, unknown>;
  checkAlertId: string;
}

export interface OutboxOptions {
  concurrency?: number;
  timeoutMs?: number;
  maxAttempts?: number;
  backoffMs?: number;
  maxBackoffMs?: number;
  pollMs?: number;
  now?: () => number;
  /** SMTP server for EMAIL channels (`vigil server --smtp URL`). */
  smtpUrl?: string | undefined;
  /** Provider base URLs by name (`vigil server --provider-url NAME=URL`). */
  providerUrls?: Readonly<Record<string, string>> | undefined;
  /**
   * Bot tokens of the Slack App installations, by account id (`slackAppToken` of `--accounts FILE`).
   * Looked up when a notification is sent, so neither the outbox rows nor the notifications hold one.
   */
  slackAppTokens?: ReadonlyMap<string, string> | undefined;
  /**
   * The signed links of a subscriber e-mail (`STATUS_PAGE_SUBSCRIBER` rows), made when it is sent:
   * the signing key and the service's public URL are not the outbox's to know, and a link made at
   * send time is never older than the mail.
   */
  subscriberLinks?: ((accountId: string, config: Record<string, unknown>) => SubscriberMailLinks | undefined) | undefined;
  /** CIDRs webhooks and Slack may not reach (default: the service's link-local and metadata denials). */
  denyNetworks?: readonly string[] | undefined;
  /** `signal` aborts when a stopping service gives up waiting for the delivery. */
  send?: (type: string, config: Record<string, unknown>, context: AlertContext, signal: AbortSignal, accountId: string) => Promise<SendOutcome>;
  log?: (line: string) => void;
  /** Told how each delivery attempt ended, for the service's log. */
  onDelivery?: (event: DeliveryEvent) => void;
}

/** One delivery attempt's end: sent, to be retried, or given up on. */
export interface DeliveryEvent {
  accountId: string;
  notificationId: string;
  checkId: string;
  checkName: string;
  alertType: string;
  channelId: number;
  channelType: string;
  outcome: 'sent' | 'retrying' | 'failed' | 'undeliverable';
  attempts: number;
  /** Why it did not go out, with the channel's credentials masked (it may quote the channel's URL). */
  error?: string;
}

/** Queues notifications; call inside the transaction that causes them. */
export interface NotificationQueue {
  enqueue(accountId: string, row: { id: string; checkId: string; alertChannelId: number; channelType: string; alertType: string; doc: NotificationDoc }): void;
}

/** Writes outbox rows without delivering them: whichever Outbox runs on the database delivers them. */
export class OutboxWriter implements NotificationQueue {
  readonly #table: OutboxTable;
  readonly #now: () => number;

  constructor(store: Store, now: () => number = Date.now, table = new OutboxTable(store.db)) {
    this.#table = table;
    this.#now = now;
  }

  enqueue(accountId: string, row: { id: string; checkId: string; alertChannelId: number; channelType: string; alertType: string; doc: NotificationDoc }): void {
    this.#table.insert({ ...row, accountId, doc: JSON.stringify(row.doc) }, this.#now());
  }
}

export class Outbox implements NotificationQueue {
  readonly #writer: OutboxWriter;
  readonly #table: OutboxTable;
  readonly #concurrency: number;
  readonly #maxAttempts: number;
  readonly #backoffMs: number;
  readonly #maxBackoffMs: number;
  readonly #pollMs: number;
  readonly #now: () => number;
  readonly #send: NonNullable<OutboxOptions['send']>;
  readonly #onDelivery: OutboxOptions['onDelivery'];
  readonly #inFlight = new Map<string, Promise<void>>();
  /** Aborts the deliveries in flight when a stop gives up waiting for them. */
  readonly #abandon = new AbortController();
  #timer: NodeJS.Timeout | undefined;
  #stopped = false;

  constructor(store: Store, options: OutboxOptions = {}) {
    this.#table = new OutboxTable(store.db);
    this.#writer = new OutboxWriter(store, options.now, this.#table);
    this.#concurrency = options.concurrency ?? 10;
    this.#maxAttempts = options.maxAttempts ?? 6;
    this.#backoffMs = options.backoffMs ?? 2000;
    this.#maxBackoffMs = options.maxBackoffMs ?? 5 * 60_000;
    this.#pollMs = options.pollMs ?? 500;
    this.#now = options.now ?? Date.now;
    this.#onDelivery = options.onDelivery;
    const timeoutMs = options.timeoutMs ?? 10_000;
    const policy = parseNetworkPolicy(options.denyNetworks ?? DEFAULT_SERVICE_DENY_NETWORKS);
    const { smtpUrl, providerUrls, slackAppTokens, subscriberLinks } = options;
    this.#send =
      options.send ??
      ((type, config, context, signal, accountId) =>
        sendToChannel(type, config, context, {
          timeoutMs,
          smtpUrl,
          providerUrls,
          policy,
          signal,
          slackAppToken: slackAppTokens?.get(accountId),
          mailLinks: type === SUBSCRIBER_DELIVERY ? subscriberLinks?.(accountId, config) : undefined,
        }));
  }

  /** Queues a notification; call inside the transaction that changes the alert state. */
  enqueue(accountId: string, row: Parameters<NotificationQueue['enqueue']>[1]): void {
    this.#writer.enqueue(accountId, row);
  }

  /** Starts polling for due rows (including those left PENDING by a previous process). */
  start(): void {
    if (this.#timer || this.#stopped) return;
    this.#timer = setInterval(() => this.pump(), this.#pollMs);
    this.#timer.unref();
    this.pump();
  }

  /**
   * Stops starting attempts and waits for those in flight, at most `drainMs` (else until their own
   * timeout). Attempts still going then are aborted and not recorded: the database is about to
   * close, and their rows stay PENDING, attempted again by the next process on the same data.
   * After this resolves nothing here touches the database.
   */
  async stop(drainMs = Number.POSITIVE_INFINITY, graceMs = 1000): Promise<void> {
    this.#stopped = true;
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
    if (await this.#settledWithin(drainMs)) return;
    this.#abandon.abort(new Error('the service is stopping'));
    await this.#settledWithin(graceMs);
  }

  async #settledWithin(ms: number): Promise<boolean> {
    if (this.#inFlight.size === 0) return true;
    const settled = Promise.allSettled([...this.#inFlight.values()]).then(() => true);
    if (!Number.isFinite(ms)) return settled;
    let timer: NodeJS.Timeout | undefined;
    try {
      return await Promise.race([settled, new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)))]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Starts attempts for due rows while slots are free. Public so tests and enqueuers can kick it. */
  pump(): void {
    if (this.#stopped) return;
    const free = this.#concurrency - this.#inFlight.size;
    if (free <= 0) return;
    const rows = this.#table.due(this.#now(), free + this.#inFlight.size);
    for (const row of rows) {
      if (this.#inFlight.size >= this.#concurrency) break;
      if (this.#inFlight.has(row.id)) continue;
      const attempt = this.#attempt(row).finally(() => {
        this.#inFlight.delete(row.id);
        this.pump();
      });
      this.#inFlight.set(row.id, attempt);
    }
  }

  /** Resolves when nothing is due or in flight (tests). */
  async idle(): Promise<void> {
    for (;;) {
      this.pump();
      if (this.#inFlight.size === 0) return;
      await Promise.allSettled([...this.#inFlight.values()]);
    }
  }

  async #attempt(row: NotificationRow): Promise<void> {
    const doc = JSON.parse(row.doc) as NotificationDoc;
    const attempts = row.attempts + 1;
    const told = (outcome: DeliveryEvent['outcome'], error?: string) =>
      this.#tell(row, doc, { outcome, attempts, ...(error === undefined ? {} : { error: maskChannel(doc.alertConfig).redact(error) ?? error }) });
    let outcome: SendOutcome;
    try {
      outcome = await this.#send(row.channel_type, doc.alertConfig, doc.context, this.#abandon.signal, row.account_id);
    } catch (error) {
      if (this.#abandon.signal.aborted) return;
      const message = errorMessage(error);
      if (attempts >= this.#maxAttempts) {
        this.#table.settle(null, row.id, { delivery: 'FAILED', attempts, error: message, result: null }, this.#now());
        told('failed', message);
      } else {
        const delay = Math.min(this.#maxBackoffMs, this.#backoffMs * 2 ** (attempts - 1));
        this.#table.defer(null, row.id, { attempts, nextAttemptMs: this.#now() + delay, error: message });
        told('retrying', message);
      }
      return;
    }
    if (this.#abandon.signal.aborted) return;
    if (outcome.kind === 'sent') this.#table.settle(null, row.id, { delivery: 'SENT', attempts, error: null, result: outcome.result }, this.#now());
    else this.#table.settle(null, row.id, { delivery: outcome.kind === 'failed' ? 'FAILED' : 'UNDELIVERABLE', attempts, error: outcome.reason, result: null }, this.#now());
    if (outcome.kind === 'sent') told('sent');
    else told(outcome.kind, outcome.reason);
  }

  /** A listener's failure must not leave a delivery unsettled: it is already recorded. */
  #tell(row: NotificationRow, doc: NotificationDoc, end: Pick<DeliveryEvent, 'outcome' | 'attempts' | 'error'>): void {
    try {
      this.#onDelivery?.({
        accountId: row.account_id,
        notificationId: row.id,
        checkId: row.check_id,
        checkName: doc.context.checkName,
        alertType: row.alert_type,
        channelId: row.alert_channel_id,
        channelType: row.channel_type,
        ...end,
      });
    } catch (error) {
      process.stderr.write(`vigil server: logging a delivery failed: ${String((error as Error)?.stack ?? error)}\n`);
    }
  }
}

function errorMessage(error: unknown): string {
  if (error instanceof Error) {
    if (error.name === 'TimeoutError') return 'the receiver did not answer in time';
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    return cause?.code ? `${error.message}: ${cause.code}` : error.message;
  }
  return String(error);
}
