/**
 * What the public status pages' subscription form stores, as a storage port (part of ports.ts, with
 * an engine per database and the contract suite contract/subscribers.test.ts): the key that signs
 * the links of subscription e-mails, made once per database so every replica signs alike; the form's
 * accepted submissions, which its rate limits count in the database (replicas share them, a restart
 * does not reset them); and the subscriptions the form looks up, confirms and removes (they are the
 * status-page port's, `StatusPages.addSubscription`, which the form adds through).
 */
import { positive, shown, StoreInputError, text } from './port-rules.js';
import type { StatusPageSubscriptionDocument } from './status-page-ports.js';

/** How many verification e-mails the form may cause. */
export interface SubscribeLimits {
  /** Per address (whatever page) per 24 hours. */
  readonly perAddressPerDay: number;
  /** Form submissions per client address per hour, mailed or not. */
  readonly perClientPerHour: number;
  /** Per status page per hour, all addresses and clients together. */
  readonly perPagePerHour: number;
}

/** One form submission, its page, address and client as keyed hashes (the counts need equality, not the values). */
export interface FormSubmission {
  readonly pageKey: string;
  readonly addressKey: string;
  readonly clientKey: string;
  readonly nowMs: number;
  readonly limits: SubscribeLimits;
}

export const DAY_MS = 86_400_000;
export const HOUR_MS = 3_600_000;

export interface StatusPageSubscribers {
  /**
   * The secret named `name`, stored from `generate()` when the database has none yet. Replicas
   * starting at once agree: the first one stored wins and every caller resolves to it.
   */
  secret(name: string, generate: () => Uint8Array): Promise<Buffer>;
  /**
   * Records a submission and says whether it may send a verification e-mail: false when the client
   * reached its submissions for the hour (then it is not recorded: a flood must not grow the table),
   * or the address its mails for the day, or the page its mails for the hour. Submissions are counted
   * and recorded one at a time across replicas, so concurrent ones never all pass one limit;
   * submissions a day old are deleted.
   */
  admit(submission: FormSubmission): Promise<boolean>;
  /** The page's oldest subscription of `address`, compared without case. */
  byAddress(accountId: string, statusPageId: string, address: string): Promise<StatusPageSubscriptionDocument | undefined>;
  byId(accountId: string, statusPageId: string, id: string): Promise<StatusPageSubscriptionDocument | undefined>;
  /** Sets the subscription's `status` to VERIFIED and its `updated_at`; false when there is none. */
  markVerified(accountId: string, statusPageId: string, id: string, nowIso: string): Promise<boolean>;
  /** Deletes the subscription; false when there was none. */
  remove(accountId: string, statusPageId: string, id: string): Promise<boolean>;
}

export function checkSubmission(submission: FormSubmission): void {
  text('pageKey', submission.pageKey, 255);
  text('addressKey', submission.addressKey, 255);
  text('clientKey', submission.clientKey, 255);
  if (!Number.isSafeInteger(submission.nowMs) || submission.nowMs < 0) throw new StoreInputError(`nowMs must be a whole number of milliseconds since the epoch, got ${shown(submission.nowMs)}`);
  positive('perAddressPerDay', submission.limits.perAddressPerDay);
  positive('perClientPerHour', submission.limits.perClientPerHour);
  positive('perPagePerHour', submission.limits.perPagePerHour);
}

export function checkSubscriptionKey(accountId: string, statusPageId: string, id: string): void {
  text('accountId', accountId);
  text('statusPageId', statusPageId, 255);
  text('subscriptionId', id, 255);
}

/** The one decision every engine makes from its counts. */
export function admitted(counts: { client: number; address: number; page: number }, limits: SubscribeLimits): { record: boolean; mail: boolean } {
  if (counts.client >= limits.perClientPerHour) return { record: false, mail: false };
  return { record: true, mail: counts.address < limits.perAddressPerDay && counts.page < limits.perPagePerHour };
}

export function checkAddressLookup(accountId: string, statusPageId: string, address: string): void {
  text('accountId', accountId);
  text('statusPageId', statusPageId, 255);
  text('address', address, 1000);
}
