/**
 * What the public subscription form needs besides the ports (store/subscriber-ports.ts, where its
 * submissions and subscriptions are stored):
 *
 * - the key that signs the links of subscription e-mails, generated once per database (the
 *   subscribers port's secret, read through the port: replicas on one database sign alike). It is
 *   nobody's API key and derived from none, so a leaked or rotated key says nothing about a link;
 * - the keyed hashes a submission is counted by: addresses and client addresses are never stored,
 *   since the counts need equality, not the values.
 */
import { createHmac, randomBytes } from 'node:crypto';
import type { FormSubmission, StatusPageSubscribers, SubscribeLimits } from '../store/subscriber-ports.js';

export type { SubscribeLimits };

const SECRET_NAME = 'subscription-links';

/** How the public form sends mail; its presence means the service delivers subscriber e-mail. */
export interface SubscriptionMailOptions {
  readonly limits?: Partial<SubscribeLimits> | undefined;
}

export const DEFAULT_SUBSCRIBE_LIMITS: SubscribeLimits = { perAddressPerDay: 3, perClientPerHour: 10, perPagePerHour: 100 };

/** The signing key of subscription links, read once through the subscribers port. */
export class SubscriptionKey {
  readonly #subscribers: Pick<StatusPageSubscribers, 'secret'>;
  #secret: Promise<Buffer> | undefined;

  constructor(subscribers: Pick<StatusPageSubscribers, 'secret'>) {
    this.#subscribers = subscribers;
  }

  /**
   * The key, made and stored by the first replica that asks when the database has none. Read once
   * and kept: the key never changes. A failed read is not kept, so the next caller reads again.
   */
  secret(): Promise<Buffer> {
    if (this.#secret) return this.#secret;
    const reading = this.#subscribers.secret(SECRET_NAME, () => randomBytes(32));
    this.#secret = reading;
    reading.catch(() => {
      if (this.#secret === reading) this.#secret = undefined;
    });
    return reading;
  }

  /** A form submission as the subscribers port counts it: its page, address (without case) and client as keyed hashes. */
  async formSubmission(request: SubscribeRequest): Promise<FormSubmission> {
    const secret = await this.secret();
    const key = (kind: string, value: string) => createHmac('sha256', secret).update(`${kind}\u0000${value}`).digest('base64url');
    return {
      pageKey: key('page', request.pageKey),
      addressKey: key('address', request.address.toLowerCase()),
      clientKey: key('client', request.client),
      nowMs: request.nowMs,
      limits: request.limits,
    };
  }
}

export interface SubscribeRequest {
  /** The status page, as `accountId/statusPageId`. */
  readonly pageKey: string;
  readonly address: string;
  /** The client's network address. */
  readonly client: string;
  readonly nowMs: number;
  readonly limits: SubscribeLimits;
}
