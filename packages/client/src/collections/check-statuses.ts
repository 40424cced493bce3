import type { EndpointCaller } from '../caller.js';

/** Check statuses: each check's latest FINAL result, as the service's scheduler keeps it. */
export function checkStatusesApi(caller: EndpointCaller) {
  return {
    /** Every check of the account that has run at least once. */
    list: () => caller.call('checkStatuses.list', {}),
    get: (checkId: string) => caller.call('checkStatuses.get', { params: { checkId } }),
  };
}

export type CheckStatusesApi = ReturnType<typeof checkStatusesApi>;
