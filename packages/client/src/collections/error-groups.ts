import type { EndpointBody, EndpointQuery } from '@vigil/schema';
import type { EndpointCaller } from '../caller.js';

/** Error groups: deduplicated failure messages of a check. */
export function errorGroupsApi(caller: EndpointCaller) {
  return {
    listForCheck: (checkId: string, query: EndpointQuery<'errorGroups.listForCheck'> = {}) =>
      caller.call('errorGroups.listForCheck', { params: { checkId }, query }),
    get: (id: string) => caller.call('errorGroups.get', { params: { id } }),
    listAllForCheck: (checkId: string) => caller.listAll('errorGroups.listForCheck', { params: { checkId } }),
    /** Archives (or un-archives) an error group. */
    patch: (id: string, body: EndpointBody<'errorGroups.patch'>) => caller.call('errorGroups.patch', { params: { id }, body }),
  };
}

export type ErrorGroupsApi = ReturnType<typeof errorGroupsApi>;
