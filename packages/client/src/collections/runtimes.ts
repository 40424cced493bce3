import type { EndpointCaller } from '../caller.js';

/** The runtime ids the service knows, newest (CURRENT) first. */
export function runtimesApi(caller: EndpointCaller) {
  return {
    list: () => caller.call('runtimes.list'),
  };
}

export type RuntimesApi = ReturnType<typeof runtimesApi>;
