/**
 * The engine's `ServiceCalls` over `@vigil/client`: the engine names endpoints by their id in
 * `ENDPOINTS`; the client types, paces, retries and validates the calls.
 */
import { createClient, type ClientOptions } from '@vigil/client';
import type { ServiceCalls } from '@vigil/engine';

export function serviceCalls(options: ClientOptions): ServiceCalls {
  const { endpoints } = createClient(options);
  return {
    call: (endpoint, request = {}) => endpoints.call(endpoint, request as never),
    listAll: (endpoint, request = {}) => endpoints.listAll(endpoint, request as never) as AsyncIterable<unknown>,
  };
}
