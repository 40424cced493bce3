/**
 * Who may call the service: API keys and the accounts each key belongs to. A key listed with several
 * accounts may pick one with `x-service-account`; its first account is used when the header is absent.
 */
import { readFileSync } from 'node:fs';

export interface AccountKey {
  readonly apiKey: string;
  readonly accountId: string;
  readonly name?: string;
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
 * Reads `--accounts FILE`: a JSON array of `{apiKey, accountId, name?}` (or `{"accounts": [...]}`).
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
  if (!Array.isArray(list)) throw new Error(`accounts file ${file} must hold a JSON array of {apiKey, accountId, name?}`);
  return list.map((entry: unknown, index) => {
    const candidate = entry as Partial<Record<'apiKey' | 'accountId' | 'name', unknown>> | null;
    if (
      typeof candidate?.apiKey !== 'string' ||
      candidate.apiKey === '' ||
      typeof candidate.accountId !== 'string' ||
      candidate.accountId === '' ||
      (candidate.name !== undefined && typeof candidate.name !== 'string')
    ) {
      throw new Error(`accounts file ${file}: entry ${index} must be {apiKey: string, accountId: string, name?: string}`);
    }
    return { apiKey: candidate.apiKey, accountId: candidate.accountId, ...(candidate.name ? { name: candidate.name } : {}) };
  });
}
