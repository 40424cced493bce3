/**
 * Plan-time checks that need the refreshed remote snapshot but no extra call: `fromId` references
 * that point at nothing (or at something this very plan deletes), and logical-id renames that
 * would otherwise destroy and recreate a resource. Pure, like the rest of the planner.
 */
import type { ResourceSpec } from '@vigil/constructs';
import { adapterFor } from '../kinds/index.js';
import type { RemoteSnapshot } from '../refresh/refresh.js';
import type { Address, Change, Diagnostic } from './types.js';

/**
 * Every `fromId` reference of a resource this plan creates or updates must exist on the service.
 * Without this check the service refuses the call mid-apply, one resource at a time, after others
 * were already changed. All problems are reported together. Kinds absent from the snapshot were not
 * read and are not judged.
 */
export function checkExternalRefs(options: {
  changes: readonly Change[];
  specByAddress: ReadonlyMap<Address, ResourceSpec>;
  remote: RemoteSnapshot;
  diagnostics: Diagnostic[];
}): void {
  const { changes, specByAddress, remote, diagnostics } = options;
  // Remote ids this plan removes, by kind: a reference to one of them would dangle after apply.
  const deleted = new Map<string, Address>();
  for (const change of changes) {
    if (change.action === 'delete' && change.remoteId !== undefined) deleted.set(`${change.kind} ${change.remoteId}`, change.address);
    if (change.action === 'replace' && change.replaces) deleted.set(`${change.replaces.kind} ${change.replaces.remoteId}`, change.replaces.address);
    // Replaced in place (an alert channel's type changed): the old id goes away, a new one comes.
    else if (change.action === 'replace' && change.remoteId !== undefined) deleted.set(`${change.kind} ${change.remoteId}`, change.address);
  }
  for (const change of changes) {
    if (change.action === 'delete') continue;
    const spec = specByAddress.get(change.address);
    for (const ref of spec?.externalRefs ?? []) {
      const listed = remote.get(ref.kind);
      if (!listed) continue;
      const where = { address: spec!.address, path: ref.path, source: spec!.source };
      if (!listed.has(String(ref.remoteId))) {
        diagnostics.push({
          severity: 'error',
          message: `fromId(${JSON.stringify(ref.remoteId)}): no ${ref.kind} with this id exists on the service`,
          hint: `Correct the id, or declare the ${ref.kind} as a construct and pass the object itself.`,
          ...where,
        });
        continue;
      }
      const deletedBy = deleted.get(`${ref.kind} ${ref.remoteId}`);
      if (deletedBy) {
        diagnostics.push({
          severity: 'error',
          message: `fromId(${JSON.stringify(ref.remoteId)}) refers to ${deletedBy}, which this plan deletes or replaces (its id goes away)`,
          hint: `Keep ${deletedBy} in code and refer to it by object, or stop referring to it before it is deleted.`,
          ...where,
        });
      }
    }
  }
}

/**
 * A create and a delete of the same kind and name usually mean the logical id was renamed. Apply
 * would delete the remote resource and make a new one (losing its history), so the plan says how
 * to keep it. Only unambiguous pairs are named: one create and one delete with that name.
 */
export function renameHints(options: { changes: readonly Change[]; specByAddress: ReadonlyMap<Address, ResourceSpec>; remote: RemoteSnapshot }): Diagnostic[] {
  const { changes, specByAddress, remote } = options;
  const byName = new Map<string, { creates: Change[]; deletes: Change[] }>();
  const bucket = (key: string) => {
    let found = byName.get(key);
    if (!found) byName.set(key, (found = { creates: [], deletes: [] }));
    return found;
  };
  for (const change of changes) {
    const adapter = adapterFor(change.kind);
    if (change.action === 'create' && change.reason === 'new') {
      const spec = specByAddress.get(change.address);
      const name = spec ? adapter.nameOf(spec.payload) : '';
      if (name !== '') bucket(`${change.kind}\n${name}`).creates.push(change);
    } else if (change.action === 'delete' && change.remoteId !== undefined) {
      const object = remote.get(change.kind)?.get(String(change.remoteId));
      const name = object ? adapter.nameOf(object) : '';
      if (name !== '') bucket(`${change.kind}\n${name}`).deletes.push(change);
    }
  }
  const hints: Diagnostic[] = [];
  for (const [key, { creates, deletes }] of byName) {
    if (creates.length !== 1 || deletes.length !== 1) continue;
    const [created, removed] = [creates[0]!, deletes[0]!];
    const name = key.slice(key.indexOf('\n') + 1);
    const spec = specByAddress.get(created.address);
    hints.push({
      severity: 'warning',
      message: `${removed.address} would be destroyed and ${created.address} created, both named ${JSON.stringify(name)}: was the logical id renamed?`,
      hint: `To keep the existing resource (id ${removed.remoteId}) under its new id, run: vigil state mv ${removed.address} ${created.address}`,
      address: created.address,
      ...(spec ? { source: spec.source } : {}),
    });
  }
  return hints;
}
