/** Accounts (beta). `settings` and `alertSettings` are open. */
import { z } from 'zod';

export const Account = z.object({
  id: z.string(),
  name: z.string(),
  runtimeId: z.string(),
  settings: z.record(z.string(), z.unknown()),
  alertSettings: z.record(z.string(), z.unknown()),
});
export type Account = z.infer<typeof Account>;

/**
 * `GET /v1/accounts/me`: the account the key acts on (after `x-service-account`). `serviceId` is a
 * Vigil extension: an id a `vigil server` generates once per data directory and reports on every
 * start, so a client can tell the same service at a new address from another service. The hosted
 * service does not send it.
 */
export const CurrentAccount = Account.extend({
  serviceId: z
    .string()
    .min(1)
    .optional()
    .describe('Vigil extension: the identity of this service, generated once per data directory and stable across restarts and address changes'),
});
export type CurrentAccount = z.infer<typeof CurrentAccount>;

/**
 * `GET /next/users/me`: who the API key acts as (the Checkly CLI's `whoami` prints `name`). A key
 * here is no person: `id` and `name` are derived from a hash of the key, never the key itself, so
 * two keys read apart without either being shown.
 */
export const CurrentUser = z.object({
  id: z.string(),
  name: z.string(),
  email: z.string().nullable(),
});
export type CurrentUser = z.infer<typeof CurrentUser>;
