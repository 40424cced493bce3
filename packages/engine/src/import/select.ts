/**
 * Which remote resources `vigil import` adopts: every resource of a managed kind that this
 * project's state does not already track, narrowed by the user's filters.
 */
import type { ResourceKind } from '@vigil/constructs';
import { ADAPTERS } from '../kinds/index.js';
import type { KindAdapter, RemoteObject } from '../kinds/types.js';
import type { RemoteSnapshot } from '../refresh/refresh.js';
import type { RemoteId, StateDocument } from '../state/index.js';

/** `api-check` (every API check) or `api-check.<remoteId>` (one). */
export interface ImportFilter {
  readonly kind: ResourceKind;
  readonly remoteId?: string;
}

export class ImportFilterError extends Error {
  override readonly name = 'ImportFilterError';
}

/** Kinds in the order resources are listed and imported: what others refer to comes first. */
export const IMPORT_KIND_ORDER: readonly ResourceKind[] = (Object.values(ADAPTERS) as KindAdapter[])
  .sort((a, b) => a.importing.order - b.importing.order)
  .map((adapter) => adapter.kind);

export function parseImportFilter(text: string): ImportFilter {
  const dot = text.indexOf('.');
  const kind = dot < 0 ? text : text.slice(0, dot);
  if (!(kind in ADAPTERS)) {
    throw new ImportFilterError(`unknown kind "${kind}" in filter "${text}"; kinds are ${Object.keys(ADAPTERS).sort().join(', ')}`);
  }
  if (dot < 0) return { kind: kind as ResourceKind };
  const remoteId = text.slice(dot + 1);
  if (remoteId === '') throw new ImportFilterError(`filter "${text}" has no remote id after the dot; write ${kind} or ${kind}.<id>`);
  return { kind: kind as ResourceKind, remoteId };
}

/** A remote resource chosen for import. */
export interface Candidate {
  readonly kind: ResourceKind;
  readonly remoteId: RemoteId;
  readonly remote: RemoteObject;
  /** The name the service shows, which the logical id is derived from. */
  readonly name: string;
}

/** What people call a resource: its name, or what its kind calls it when it has none. */
export function displayName(kind: ResourceKind, remote: RemoteObject): string {
  if (typeof remote.name === 'string' && remote.name !== '') return remote.name;
  return ADAPTERS[kind].importing.displayName?.(remote) ?? '';
}

export interface SelectOptions {
  readonly remote: RemoteSnapshot;
  readonly state: StateDocument;
  readonly filters: readonly ImportFilter[];
  /** Only resources carrying this tag (kinds without tags never match). */
  readonly tag?: string | undefined;
  /** Only resources whose name matches. */
  readonly name?: RegExp | undefined;
}

/** The unmanaged remote resources the filters select, in {@link IMPORT_KIND_ORDER}, oldest first. */
export function selectCandidates(options: SelectOptions): Candidate[] {
  const managed = new Set(Object.values(options.state.resources).map((entry) => `${entry.kind}\u0000${String(entry.remoteId)}`));
  const selected: Candidate[] = [];
  for (const kind of IMPORT_KIND_ORDER) {
    const filters = options.filters.filter((filter) => filter.kind === kind);
    if (options.filters.length > 0 && filters.length === 0) continue;
    for (const [id, remote] of options.remote.get(kind) ?? []) {
      if (managed.has(`${kind}\u0000${id}`)) continue;
      if (filters.length > 0 && !filters.some((filter) => filter.remoteId === undefined || filter.remoteId === id)) continue;
      const name = displayName(kind, remote);
      if (options.tag !== undefined && !(Array.isArray(remote.tags) && remote.tags.includes(options.tag))) continue;
      if (options.name && !options.name.test(name)) continue;
      selected.push({ kind, remoteId: ADAPTERS[kind].remoteIdOf(remote), remote, name });
    }
  }
  return selected;
}
