import type { EndpointCaller } from '../caller.js';

/** Accounts (beta in the service): the key's accounts, or one of them. */
export function accountsApi(caller: EndpointCaller) {
  return {
    /** Every account the API key belongs to, its own first. */
    list: () => caller.call('accounts.list'),
    /** The account the key acts on, with the service's id where it reports one (a Vigil extension). */
    me: () => caller.call('accounts.me'),
    get: (accountId: string) => caller.call('accounts.get', { params: { accountId } }),
    /** The same answers under `/next/accounts`, the path the Checkly CLI signs in with. */
    listNext: () => caller.call('accounts.next.list'),
    getNext: (accountId: string) => caller.call('accounts.next.get', { params: { accountId } }),
    /** Who the API key acts as (`/next/users/me`, the Checkly CLI's `whoami`). */
    currentUser: () => caller.call('users.next.me'),
  };
}

export type AccountsApi = ReturnType<typeof accountsApi>;
