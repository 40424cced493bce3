/**
 * Who may call the service: API keys and the accounts each key belongs to. A key listed with several
 * accounts may pick one with `x-service-account`; its first account is used when the header is absent.
 */
import { readFileSync } from 'node:fs';

export interface AccountKey {
  readonly apiKey: string;
  readonly accountId: string;
  readonly name?: string;
  /**
   * The bot token (`xoxb-…`) of the Slack App the account installed in its Slack workspace: what
   * its SLACK_APP channels post with. Not part of any channel, so no API response carries it.
   */
  readonly slackAppToken?: string;
}

export interface Account {
  readonly id: string;
  readonly name: string;
}

/** The account used when none is configured (the embedded local service). */
export const DEFAULT_ACCOUNT_KEY: AccountKey = { apiKey: 'vigil-local', accountId: 'local', name: 'Local account' };

export class AccountRegistry {
  readonly #accounts = new Map<string, Account>();
  readonly #byKey = new Map<string, string[]>();

  constructor(keys: readonly AccountKey[]) {
    const entries = keys.length > 0 ? keys : [DEFAULT_ACCOUNT_KEY];
    for (const entry of entries) {
      if (entry.apiKey === '' || entry.accountId === '') throw new Error('an API key and an account id must not be empty');
      if (!this.#accounts.has(entry.accountId) || entry.name) {
        this.#accounts.set(entry.accountId, { id: entry.accountId, name: entry.name ?? entry.accountId });
      }
      const ids = this.#byKey.get(entry.apiKey) ?? [];
      if (!ids.includes(entry.accountId)) ids.push(entry.accountId);
      this.#byKey.set(entry.apiKey, ids);
    }
  }

  /** The accounts `apiKey` belongs to, its own (default) account first; undefined for an unknown key. */
  accountsOf(apiKey: string): readonly Account[] | undefined {
    return this.#byKey.get(apiKey)?.map((id) => this.#accounts.get(id)!);
  }

  get(accountId: string): Account | undefined {
    return this.#accounts.get(accountId);
  }

  all(): readonly Account[] {
    return [...this.#accounts.values()];
  }
}

/**
 * The Slack App bot token of each account that has one. An account listed with several keys may
 * name its token on any of its entries; two different tokens for one account are a mistake that
 * would post with either at random, so they are refused.
 */
export function slackAppTokensOf(keys: readonly AccountKey[]): Map<string, string> {
  const tokens = new Map<string, string>();
  for (const { accountId, slackAppToken } of keys) {
    if (slackAppToken === undefined) continue;
    const known = tokens.get(accountId);
    if (known !== undefined && known !== slackAppToken) throw new Error(`account ${accountId} is given two different Slack App tokens; give it one`);
    tokens.set(accountId, slackAppToken);
  }
  return tokens;
}

/**
 * Reads `--accounts FILE`: a JSON array of `{apiKey, accountId, name?, slackAppToken?}` (or `{"accounts": [...]}`).
 * Throws an Error whose message names the file and the bad entry.
 */
export function readAccountsFile(file: string): AccountKey[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new Error(`cannot read accounts file ${file}: ${(error as Error).message}`);
  }
  const list = Array.isArray(parsed) ? parsed : (parsed as { accounts?: unknown } | null)?.accounts;
  if (!Array.isArray(list)) throw new Error(`accounts file ${file} must hold a JSON array of {apiKey, accountId, name?, slackAppToken?}`);
  const keys = list.map((entry: unknown, index): AccountKey => {
    const candidate = entry as Partial<Record<'apiKey' | 'accountId' | 'name' | 'slackAppToken', unknown>> | null;
    if (
      typeof candidate?.apiKey !== 'string' ||
      candidate.apiKey === '' ||
      typeof candidate.accountId !== 'string' ||
      candidate.accountId === '' ||
      (candidate.name !== undefined && typeof candidate.name !== 'string') ||
      (candidate.slackAppToken !== undefined && (typeof candidate.slackAppToken !== 'string' || candidate.slackAppToken === ''))
    ) {
      throw new Error(`accounts file ${file}: entry ${index} must be {apiKey: string, accountId: string, name?: string, slackAppToken?: non-empty string}`);
    }
    return {
      apiKey: candidate.apiKey,
      accountId: candidate.accountId,
      ...(candidate.name ? { name: candidate.name } : {}),
      ...(candidate.slackAppToken !== undefined ? { slackAppToken: candidate.slackAppToken } : {}),
    };
  });
  try {
    slackAppTokensOf(keys);
  } catch (error) {
    throw new Error(`accounts file ${file}: ${(error as Error).message}`);
  }
  return keys;
}
