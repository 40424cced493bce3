import type { HttpBindings } from '@hono/node-server';
import type { Account } from '../accounts.js';

/** Hono environment of the app: node bindings, plus what the auth middleware resolved. */
export interface AppEnv {
  Bindings: HttpBindings;
  Variables: {
    account: Account;
    apiKey: string;
    /** Set instead of the two above when `GET /metrics` was called with the operator's metrics token. */
    operator: true;
  };
}
