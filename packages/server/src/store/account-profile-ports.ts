/**
 * Accounts' profiles as a storage port (part of ports.ts, with an engine per database and the
 * contract suite contract/account-profiles.test.ts): what `/v1/accounts` answers besides an account's
 * id, and the account's alert settings, which alerting reads inside each evaluation's unit of work
 * for checks that use them (`useGlobalAlertSettings`). Written by `--seed`.
 */
import { StoreInputError, text } from './port-rules.js';

/** What an account reads back from `/v1/accounts` besides its id. */
export interface AccountProfile {
  name?: string;
  runtimeId?: string;
  settings?: Record<string, unknown>;
  alertSettings?: Record<string, unknown>;
}

export interface AccountProfiles {
  /** The account's profile as saved, or undefined when it has none. */
  get(accountId: string): Promise<AccountProfile | undefined>;
  /** Stores the profile in place of the account's. */
  save(accountId: string, profile: AccountProfile): Promise<void>;
}

export function checkProfile(accountId: string, profile: AccountProfile): void {
  text('accountId', accountId);
  if (profile === null || typeof profile !== 'object' || Array.isArray(profile)) throw new StoreInputError('an account profile must be an object');
}
