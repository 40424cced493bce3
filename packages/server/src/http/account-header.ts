/**
 * Which account a request selects. Our clients send `x-service-account`; the Checkly CLI sends
 * `x-checkly-account` (the real service's name). Both are held to one rule, so a client can never
 * reach a different account by choosing the other name: every account named must be one the key
 * belongs to (else 403), and two names for two different accounts are refused rather than one of
 * them silently winning.
 */
import type { Context } from 'hono';
import type { Account } from '../accounts.js';
import { badRequest, HttpError } from './errors.js';
import { requestHeader } from './headers.js';
import type { AppEnv } from './types.js';

export const ACCOUNT_HEADERS = ['x-service-account', 'x-checkly-account'] as const;

/** The account header values sent (empty values count as absent), by header name. */
export function requestedAccounts(c: Context<AppEnv>): Array<{ header: string; id: string }> {
  const named: Array<{ header: string; id: string }> = [];
  for (const header of ACCOUNT_HEADERS) {
    const id = requestHeader(c, header);
    if (id !== undefined && id !== '') named.push({ header, id });
  }
  return named;
}

/**
 * The account of the request among the key's own: the one the headers name, or the key's first
 * account when no header names one. Throws 403 for an account the key does not reach, 400 when the
 * two headers disagree.
 */
export function selectAccount(named: ReadonlyArray<{ header: string; id: string }>, own: readonly Account[]): Account {
  if (named.length === 0) return own[0]!;
  for (const { id } of named) {
    if (!own.some((candidate) => candidate.id === id)) throw new HttpError(403, `API key has no access to account ${id}`);
  }
  const [first, ...rest] = named;
  const other = rest.find((entry) => entry.id !== first!.id);
  if (other) {
    throw badRequest(`${first!.header} (${first!.id}) and ${other.header} (${other.id}) name different accounts; send one of them`);
  }
  return own.find((candidate) => candidate.id === first!.id)!;
}
