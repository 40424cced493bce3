/**
 * Who the service is: `GET /v1/accounts/me` answers the account the key acts on and, from a
 * `vigil server`, the service's own id (a Vigil extension). The hosted service and older servers
 * answer without the id, or not at all (404): those are identified by their URL.
 */
import { ApiError } from '@vigil/client';
import type { ServiceCalls } from '@vigil/engine';

export interface CurrentAccount {
  readonly id: string;
  readonly serviceId?: string;
}

export async function currentAccount(calls: ServiceCalls): Promise<CurrentAccount | undefined> {
  let answer: unknown;
  try {
    answer = await calls.call('accounts.me');
  } catch (error) {
    // 404: a service without the call; a malformed answer: one that serves something else there.
    if (error instanceof ApiError && (error.status === 404 || error.name === 'ResponseShapeError')) return undefined;
    throw error;
  }
  const { id, serviceId } = (answer ?? {}) as { id?: unknown; serviceId?: unknown };
  if (typeof id !== 'string' || id === '') return undefined;
  return { id, ...(typeof serviceId === 'string' && serviceId !== '' ? { serviceId } : {}) };
}
