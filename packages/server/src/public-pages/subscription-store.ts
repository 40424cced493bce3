/**
 * What the public subscription form needs besides the ports (store/subscriber-ports.ts, where its
 * submissions and subscriptions are stored):
 *
 * - the key that signs the links of subscription e-mails, generated once per database (the
 *   `service_secrets` row, read when the service opens its database). It is nobody's API key and
 *   derived from none, so a leaked or rotated key says nothing about a link, and replicas on one
 *   database sign alike;
 * - the keyed hashes a submission is counted by: addresses and client addresses are never stored,
 *   since the counts need equality, not the values.
 */
import { createHmac, randomBytes } from 'node:crypto';
import type { Store } from '../store/index.js';
import { loadSecret } from '../store/sqlite/subscribe-requests.js';
import type { FormSubmission, SubscribeLimits } from '../store/subscriber-ports.js';

export type { SubscribeLimits };

const SECRET_NAME = 'subscription-links';

/** How the public form sends mail; its presence means the service delivers subscriber e-mail. */
export interface SubscriptionMailOptions {
  readonly limits?: Partial<SubscribeLimits> | undefined;
}

export const DEFAULT_SUBSCRIBE_LIMITS: SubscribeLimits = { perAddressPerDay: 3, perClientPerHour: 10, perPagePerHour: 100 };

export class SubscriptionStore {
  readonly #secret: Buffer;

  constructor(store: Store) {
    this.#secret = loadSecret(store.db, SECRET_NAME, () => randomBytes(32));
  }

  /** The key that signs subscription links. */
  get secret(): Buffer {
    return this.#secret;
  }

  #key(kind: string, value: string): string {
    return createHmac('sha256', this.#secret).update(`${kind}\u0000${value}`).digest('base64url');
  }

  /** A form submission as the subscribers port counts it: its page, address (without case) and client as keyed hashes. */
  formSubmission(request: SubscribeRequest): FormSubmission {
    return {
      pageKey: this.#key('page', request.pageKey),
      addressKey: this.#key('address', request.address.toLowerCase()),
      clientKey: this.#key('client', request.client),
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
