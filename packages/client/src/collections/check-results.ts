import type { EndpointQuery } from '@vigil/schema';
import type { EndpointCaller } from '../caller.js';

type ResultsFilter = Omit<EndpointQuery<'checkResults.list'>, 'page' | 'limit'>;

/** Results of a check's runs (default window: the last 6 hours, final results only). */
export function checkResultsApi(caller: EndpointCaller) {
  return {
    list: (checkId: string, query: EndpointQuery<'checkResults.list'> = {}) =>
      caller.call('checkResults.list', { params: { checkId }, query }),
    listAll: (checkId: string, filter: ResultsFilter = {}) =>
      caller.listAll('checkResults.list', { params: { checkId }, query: filter }),
    /** One page of results newest first; pass the page's `nextId` back to get the next one. */
    pageNewestFirst: (checkId: string, query: EndpointQuery<'checkResults.listV2'> = {}) =>
      caller.call('checkResults.listV2', { params: { checkId }, query }),
    get: (checkId: string, checkResultId: string) => caller.call('checkResults.get', { params: { checkId, checkResultId } }),
  };
}

export type CheckResultsApi = ReturnType<typeof checkResultsApi>;
