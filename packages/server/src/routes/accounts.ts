/**
 * Accounts (beta, spec §4.8): the accounts the calling API key belongs to. Identity comes from the
 * server's key configuration; `name`, `runtimeId`, `settings` and `alertSettings` from the seed's
 * account `profile` when given, else defaults (the newest runtime, the default alert settings).
 * An account the key does not belong to is 404, like any other tenant's id.
 */
import { DEFAULT_ALERT_SETTINGS, ENDPOINTS, RUNTIME_IDS, type Account as AccountResponse } from '@vigil/schema';
import type { Hono } from 'hono';
import type { Account } from '../accounts.js';
import { notFound } from '../http/errors.js';
import type { AppEnv } from '../http/types.js';
import { readSideOf } from '../readside/context.js';
import type { RouteContext } from './index.js';

export function register(_app: Hono<AppEnv>, ctx: RouteContext): void {
  const { pages } = readSideOf(ctx.store);

  const present = (account: Account): AccountResponse => {
    const profile = pages.profile(account.id) ?? {};
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
    ctx.route(ENDPOINTS[id], ({ c }) => accountsOfCaller(c.get('apiKey')).map(present));
  }

  for (const id of ['accounts.get', 'accounts.next.get'] as const) {
    ctx.route(ENDPOINTS[id], ({ c, params }) => {
      const account = accountsOfCaller(c.get('apiKey')).find((candidate) => candidate.id === params.accountId);
      if (!account) throw notFound('Account', params.accountId);
      return present(account);
    });
  }
}
