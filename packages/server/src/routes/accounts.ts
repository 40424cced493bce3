/**
 * Accounts (beta): the accounts the calling API key belongs to. Identity comes from the
 * server's key configuration; `name`, `runtimeId`, `settings` and `alertSettings` from the seed's
 * account `profile` when given, else defaults (the newest runtime, the default alert settings).
 * An account the key does not belong to is 404, like any other tenant's id. Profiles are read
 * through the account-profiles port (store/account-profile-ports.ts).
 *
 * `GET /v1/accounts/me` adds the service's identity (`serviceId`, a Vigil extension): generated once
 * when the database is created and kept in it (store/service-identity-ports.ts), so clients bind state to the service rather
 * than to the address it happens to listen on.
 */
import { createHash, randomUUID } from 'node:crypto';
import { DEFAULT_ALERT_SETTINGS, ENDPOINTS, RUNTIME_IDS, type Account as AccountResponse } from '@vigil/schema';
import type { Hono } from 'hono';
import type { Account } from '../accounts.js';
import { notFound } from '../http/errors.js';
import type { AppEnv } from '../http/types.js';
import type { TransactionPorts } from '../store/ports.js';
import type { RouteContext } from './index.js';

export function register(_app: Hono<AppEnv>, ctx: RouteContext): void {
  const present = async (tx: TransactionPorts, account: Account): Promise<AccountResponse> => {
    const profile = (await tx.accountProfiles.get(account.id)) ?? {};
    return {
      id: account.id,
      name: profile.name ?? account.name,
      runtimeId: profile.runtimeId ?? RUNTIME_IDS[0],
      settings: profile.settings ?? {},
      alertSettings: profile.alertSettings ?? { ...DEFAULT_ALERT_SETTINGS },
    };
  };
  const accountsOfCaller = (apiKey: string): readonly Account[] => ctx.accounts.accountsOf(apiKey) ?? [];

  // `/next/accounts` is where the Checkly CLI signs in; same answer as `/v1/accounts`.
  for (const id of ['accounts.list', 'accounts.next.list'] as const) {
    ctx.routeUnit(ENDPOINTS[id], async ({ tx, c }) => {
      const accounts: AccountResponse[] = [];
      for (const account of accountsOfCaller(c.get('apiKey'))) accounts.push(await present(tx, account));
      return accounts;
    });
  }

  // The id the first start on this database made (a randomUUID offered here is stored only when none is).
  ctx.routeUnit(ENDPOINTS['accounts.me'], async ({ tx, account }) => ({ ...(await present(tx, account)), serviceId: await tx.serviceIdentity.serviceId(randomUUID()) }));

  // The Checkly CLI's `whoami`. A key is no person: it is named by a hash of itself, never shown.
  ctx.route(ENDPOINTS['users.next.me'], ({ c }) => {
    const keyId = createHash('sha256').update(c.get('apiKey')).digest('hex').slice(0, 12);
    return { id: `key-${keyId}`, name: `API key ${keyId.slice(0, 8)}`, email: null };
  });

  for (const id of ['accounts.get', 'accounts.next.get'] as const) {
    ctx.routeUnit(ENDPOINTS[id], async ({ tx, c, params }) => {
      const account = accountsOfCaller(c.get('apiKey')).find((candidate) => candidate.id === params.accountId);
      if (!account) throw notFound('Account', params.accountId);
      return present(tx, account);
    });
  }
}
