import type { EndpointCaller } from '../caller.js';

/** The deprecated check-group trigger (the service will remove it). */
export function triggersApi(caller: EndpointCaller) {
  return {
    /** @deprecated The service deprecates this endpoint; the CLI is its replacement. */
    getCheckGroup: (groupId: number) => caller.call('triggers.getCheckGroup', { params: { groupId } }),
  };
}

export type TriggersApi = ReturnType<typeof triggersApi>;
