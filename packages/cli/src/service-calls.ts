/**
 * The engine's `ServiceCalls` over `@vigil/client`: the engine names endpoints by their id in
 * `ENDPOINTS`; the client types, paces, retries and validates the calls.
 */
import { createClient, type ClientOptions } from '@vigil/client';
import type { ServiceCalls } from '@vigil/engine';

/** Below the client's 10 calls in flight, so a refresh of one kind leaves room for the others. */
const LIST_READ_AHEAD = 8;

export function serviceCalls(options: ClientOptions): ServiceCalls {
  const { endpoints } = createClient(options);
  return {
    call: (endpoint, request = {}) => endpoints.call(endpoint, request as never),
    // The engine reads whole lists (refresh, recovery), so later pages are requested while one is parsed.
    listAll: (endpoint, request = {}) => endpoints.listAll(endpoint, request as never, { readAhead: LIST_READ_AHEAD }) as AsyncIterable<unknown>,
  };
}
