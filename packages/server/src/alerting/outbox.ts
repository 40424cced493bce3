/**
 * The notification outbox: rows of `alert_notifications` (store/sqlite/outbox.ts) and the worker that
 * delivers them. At least once: a row is settled (SENT, FAILED, UNDELIVERABLE) only after its
 * attempt ends, so a row whose attempt a crash cut short is attempted again, by this process after a
 * restart or by another one on the same database.
 *
 * - Leases: the worker claims due rows through the storage port (`NotificationOutbox.claimDue`) for
 *   its process's replica id, until `leaseMs` later, and settles or defers them through the port
 *   naming that id. Several processes on one database therefore deliver each notification once, and
 *   a process that dies mid-delivery leaves its rows to the others once their lease runs out. An
 *   outcome the port refuses (the lease ran out and another process took the row over) is logged and
 *   dropped: the row's outcome is the one of the process that holds it now.
 * - Bounded concurrency: at most `concurrency` requests in flight; each has `timeoutMs`, so a slow
 *   or dead receiver holds one slot for at most that long and never delays the others' turns.
 * - Retries: a transient failure is attempted again after `backoffMs · 2^(attempts−1)` (capped at
 *   `maxBackoffMs`), up to `maxAttempts` attempts; then the row is FAILED with the last error. A
 *   send that resolves `failed` (a webhook template that cannot be rendered) is FAILED at once.
 *
 * Queuing is not the worker's: alerting queues a notification through the port of the unit of work
 * that moves the alert state (`NotificationOutbox.enqueue`), so the two commit together; the status
 * page's subscription form queues its verification mail in the unit of the subscription it sends it for.
 */
import { DEFAULT_SERVICE_DENY_NETWORKS, parseNetworkPolicy } from '@vigil/runner';
import type { ClaimedNotification, NotificationOutbox, SettledDelivery } from '../store/ports.js';
import { sendToChannel, SUBSCRIBER_DELIVERY, type AlertContext, type SendOutcome, type SubscriberMailLinks } from './channels.js';
import { maskChannel } from './masking.js';

export type DeliveryStatus = 'PENDING' | 'SENT' | 'FAILED' | 'UNDELIVERABLE';

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
  /**
   * How long a claim keeps other processes off a row (default a minute, at least six times
   * `timeoutMs`): longer than any attempt, since an e-mail's timeouts count per SMTP step, and short
   * enough that a crashed process's rows go out again soon after.
   */
  leaseMs?: number;
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
   * send time is never older than the mail. A rejection (the page's read failed) is a failed attempt,
   * retried as one.
   */
  subscriberLinks?: ((accountId: string, config: Record<string, unknown>) => Promise<SubscriberMailLinks | undefined>) | undefined;
  /** CIDRs webhooks and Slack may not reach (default: the service's link-local and metadata denials). */
  denyNetworks?: readonly string[] | undefined;
  /** `signal` aborts when a stopping service gives up waiting for the delivery. */
  send?: (type: string, config: Record<string, unknown>, context: AlertContext, signal: AbortSignal, accountId: string) => Promise<SendOutcome>;
  /** Where a refused late outcome or a failing claim is told (default stderr). */
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

/** Where the worker claims and settles: the port, and whose lease it takes. */
export interface OutboxStorage {
  readonly outbox: NotificationOutbox;
  /** This process's replica id: the lease owner of its claims. */
  readonly owner: string;
}

/** What an attempt ended with, as the port records it. */
type Ending =
  | { readonly settled: { delivery: SettledDelivery; attempts: number; error: string | null; result: string | null } }
  | { readonly deferred: { attempts: number; nextAttemptMs: number; error: string } };

export class Outbox {
  readonly #port: NotificationOutbox;
  readonly #owner: string;
  readonly #leaseMs: number;
  readonly #log: (line: string) => void;
  readonly #concurrency: number;
  readonly #maxAttempts: number;
  readonly #backoffMs: number;
  readonly #maxBackoffMs: number;
  readonly #pollMs: number;
  readonly #now: () => number;
  readonly #send: NonNullable<OutboxOptions['send']>;
  readonly #onDelivery: OutboxOptions['onDelivery'];
  readonly #inFlight = new Map<string, Promise<void>>();
  /** The claim under way: one at a time, so two pumps never claim more rows than there are free slots. */
  #claiming: Promise<void> | undefined;
  /** A pump came while a claim was under way: claim again once it ends. */
  #pumpAgain = false;
  /** Aborts the deliveries in flight when a stop gives up waiting for them. */
  readonly #abandon = new AbortController();
  #timer: NodeJS.Timeout | undefined;
  #stopped = false;
  /** The stop has returned: the caller may have closed the database. */
  #closed = false;

  constructor(storage: OutboxStorage, options: OutboxOptions = {}) {
    this.#port = storage.outbox;
    this.#owner = storage.owner;
    this.#log = options.log ?? ((line) => process.stderr.write(`${line}\n`));
    this.#concurrency = options.concurrency ?? 10;
    this.#maxAttempts = options.maxAttempts ?? 6;
    this.#backoffMs = options.backoffMs ?? 2000;
    this.#maxBackoffMs = options.maxBackoffMs ?? 5 * 60_000;
    this.#pollMs = options.pollMs ?? 500;
    this.#now = options.now ?? Date.now;
    this.#onDelivery = options.onDelivery;
    const timeoutMs = options.timeoutMs ?? 10_000;
    this.#leaseMs = options.leaseMs ?? Math.max(60_000, 6 * timeoutMs);
    const policy = parseNetworkPolicy(options.denyNetworks ?? DEFAULT_SERVICE_DENY_NETWORKS);
    const { smtpUrl, providerUrls, slackAppTokens, subscriberLinks } = options;
    this.#send =
      options.send ??
      (async (type, config, context, signal, accountId) =>
        sendToChannel(type, config, context, {
          timeoutMs,
          smtpUrl,
          providerUrls,
          policy,
          signal,
          slackAppToken: slackAppTokens?.get(accountId),
          mailLinks: type === SUBSCRIBER_DELIVERY ? await subscriberLinks?.(accountId, config) : undefined,
        }));
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
   * timeout). Attempts still going then are aborted and not recorded as attempts (the receiver did
   * nothing wrong, the service went away): their leases are given back, so their rows are due again
   * at once for the next start on the same data or another replica. An attempt that ends after the
   * grace does not even do that, since the database may be closed by then: its row waits for its
   * lease to run out. After this resolves nothing here touches the database.
   */
  async stop(drainMs = Number.POSITIVE_INFINITY, graceMs = 1000): Promise<void> {
    this.#stopped = true;
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
    // Rows a claim under way takes are attempted like the others, so the drain below counts them.
    await this.#claiming;
    try {
      if (await this.#settledWithin(drainMs)) return;
      this.#abandon.abort(new Error('the service is stopping'));
      await this.#settledWithin(graceMs);
    } finally {
      this.#closed = true;
    }
  }

  /** Resolves once the claims asked for so far have been answered (tests stopping a process mid-delivery). */
  async claimsAnswered(): Promise<void> {
    while (this.#claiming) await this.#claiming;
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

  /**
   * Claims due rows for the free slots and starts their attempts (the claim resolves later). Public so
   * tests and enqueuers can kick it.
   */
  pump(): void {
    if (this.#stopped) return;
    if (this.#claiming) {
      this.#pumpAgain = true;
      return;
    }
    const free = this.#concurrency - this.#inFlight.size;
    if (free <= 0) return;
    // Claimed once the caller's synchronous work is done: pump is called from inside the transaction
    // that queued a notification (alerting's), and a claim is a unit of its own, never a savepoint of it.
    this.#claiming = Promise.resolve()
      .then(() => (this.#stopped ? undefined : this.#claimAndStart(free)))
      .catch((error: unknown) => this.#log(`vigil server: claiming notifications to deliver failed: ${String((error as Error)?.stack ?? error)}`))
      .finally(() => {
        this.#claiming = undefined;
        if (!this.#pumpAgain) return;
        this.#pumpAgain = false;
        this.pump();
      });
  }

  async #claimAndStart(free: number): Promise<void> {
    const claimed = await this.#port.claimDue(this.#owner, this.#now(), this.#leaseMs, free);
    for (const notification of claimed) {
      // Its own lease ran out while the attempt went on and this claim renewed it: the attempt settles it.
      if (this.#inFlight.has(notification.id)) continue;
      const attempt = this.#attempt(notification)
        .catch((error: unknown) => this.#log(`vigil server: recording the delivery of notification ${notification.id} failed: ${String((error as Error)?.stack ?? error)}`))
        .finally(() => {
          this.#inFlight.delete(notification.id);
          this.pump();
        });
      this.#inFlight.set(notification.id, attempt);
    }
  }

  /** Resolves when nothing is due or in flight (tests). */
  async idle(): Promise<void> {
    for (;;) {
      this.pump();
      while (this.#claiming) await this.#claiming;
      if (this.#inFlight.size === 0) return;
      await Promise.allSettled([...this.#inFlight.values()]);
    }
  }

  async #attempt(row: ClaimedNotification): Promise<void> {
    const doc = JSON.parse(row.doc) as NotificationDoc;
    const attempts = row.attempts + 1;
    const end = async (outcome: DeliveryEvent['outcome'], ending: Ending, error?: string) => {
      if (!(await this.#record(row.id, ending))) {
        this.#log(`vigil server: notification ${row.id} was taken over by another process while this one delivered it; this attempt's outcome (${outcome}) is dropped`);
        return;
      }
      this.#tell(row, doc, { outcome, attempts, ...(error === undefined ? {} : { error: maskChannel(doc.alertConfig).redact(error) ?? error }) });
    };
    let outcome: SendOutcome;
    try {
      outcome = await this.#send(row.channelType, doc.alertConfig, doc.context, this.#abandon.signal, row.accountId);
    } catch (error) {
      if (this.#abandon.signal.aborted) return this.#giveBack(row.id);
      const message = errorMessage(error);
      if (attempts >= this.#maxAttempts) {
        await end('failed', { settled: { delivery: 'FAILED', attempts, error: message, result: null } }, message);
      } else {
        const delay = Math.min(this.#maxBackoffMs, this.#backoffMs * 2 ** (attempts - 1));
        await end('retrying', { deferred: { attempts, nextAttemptMs: this.#now() + delay, error: message } }, message);
      }
      return;
    }
    if (this.#abandon.signal.aborted) return this.#giveBack(row.id);
    if (outcome.kind === 'sent') await end('sent', { settled: { delivery: 'SENT', attempts, error: null, result: outcome.result } });
    else await end(outcome.kind, { settled: { delivery: outcome.kind === 'failed' ? 'FAILED' : 'UNDELIVERABLE', attempts, error: outcome.reason, result: null } }, outcome.reason);
  }

  /** Hands back the lease of an attempt the stop cut short, its row as it was before the claim. */
  async #giveBack(id: string): Promise<void> {
    if (this.#closed) return;
    await this.#port.release(this.#owner, id);
  }

  /** Records an attempt's end under this process's lease; false when the lease passed to another process. */
  #record(id: string, ending: Ending): Promise<boolean> {
    return 'settled' in ending ? this.#port.settle(this.#owner, id, ending.settled, this.#now()) : this.#port.defer(this.#owner, id, ending.deferred);
  }

  /** A listener's failure must not leave a delivery unsettled: it is already recorded. */
  #tell(row: ClaimedNotification, doc: NotificationDoc, end: Pick<DeliveryEvent, 'outcome' | 'attempts' | 'error'>): void {
    try {
      this.#onDelivery?.({
        accountId: row.accountId,
        notificationId: row.id,
        checkId: row.checkId,
        checkName: doc.context.checkName,
        alertType: row.alertType,
        channelId: row.alertChannelId,
        channelType: row.channelType,
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
