/**
 * Reads the service's current state: one paginated list per managed kind, never one GET
 * per resource, so a 10,000-resource refresh is ~100 requests instead of 10,000.
 */
import type { ResourceKind } from '@vigil/constructs';
import { adapterFor } from '../kinds/index.js';
import type { RemoteObject, ServiceCalls } from '../kinds/types.js';

/** Remote objects by kind, then by remote id (as a string, since ids are strings or numbers). */
export type RemoteSnapshot = ReadonlyMap<ResourceKind, ReadonlyMap<string, RemoteObject>>;

export async function refresh(api: ServiceCalls, kinds: Iterable<ResourceKind>): Promise<RemoteSnapshot> {
  const unique = [...new Set(kinds)].sort();
  const entries = await Promise.all(
    unique.map(async (kind) => {
      const adapter = adapterFor(kind);
      const byId = new Map<string, RemoteObject>();
      for await (const remote of adapter.list(api)) byId.set(String(adapter.remoteIdOf(remote)), remote);
      return [kind, byId] as const;
    }),
  );
  return new Map(entries);
}
