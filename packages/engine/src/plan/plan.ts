/**
 * The planner: a pure function of (desired resources, state, remote snapshot) returning plan data
 * (STYLE habit 1). No I/O here; refresh and apply live elsewhere.
 */
import type { ResourceKind, ResourceSpec } from '@vigil/constructs';
import { adapterFor } from '../kinds/index.js';
import { completeDesired, hideSecrets, normalizeRemote } from '../kinds/normalize.js';
import type { Payload } from '../kinds/types.js';
import type { RemoteSnapshot } from '../refresh/refresh.js';
import type { StateDocument, StateResource } from '../state/index.js';
import { deepEqual, diffPayloads, leafFields, samePlace } from './diff.js';
import { getAtPath } from '../kinds/paths.js';
import { checkExternalRefs, renameHints } from './references.js';
import { maskSecrets } from './secrets.js';
import { sha256, stableStringify } from './stable-json.js';
import type { Address, Change, Diagnostic, FieldChange, Plan, PlanSummary, RemoteId, UnknownRef } from './types.js';

/** A resource as apply will send it: every managed field, refs still symbolic, secrets in clear. */
export interface DesiredResource {
  readonly address: Address;
  readonly kind: ResourceKind;
  readonly logicalId: string;
  readonly payload: Payload;
  readonly secrets: readonly string[];
  readonly dependsOn: readonly Address[];
  readonly protect: boolean;
}

export interface PlanInput {
  readonly project: string;
  readonly target: { readonly baseUrl: string; readonly accountId: string };
  readonly specs: readonly ResourceSpec[];
  readonly state: StateDocument;
  readonly remote: RemoteSnapshot;
  /** `--target`: only these addresses and what they depend on. */
  readonly targets?: readonly Address[];
  /** `vigil destroy`: every managed resource is deleted, whatever the code says. */
  readonly destroy?: boolean;
  readonly diagnostics?: readonly Diagnostic[];
}

export interface PlanResult {
  readonly plan: Plan;
  /** In memory only (secrets in clear): what apply sends for each create, update and replace. */
  readonly desired: ReadonlyMap<Address, DesiredResource>;
}

export function isUnknownRef(value: unknown): value is UnknownRef {
  return typeof value === 'object' && value !== null && '$unknown' in value;
}

function isRefMarker(value: unknown): value is { $ref: Address } {
  return typeof value === 'object' && value !== null && '$ref' in value && typeof (value as { $ref: unknown }).$ref === 'string';
}

/**
 * Replaces every `{ $ref }` with the referenced resource's remote id, or an UnknownRef. Parts
 * without a ref are returned as they are (not copied): plans of 10,000 resources call this often.
 */
export function resolveRefs(value: unknown, resolve: (address: Address) => RemoteId | UnknownRef): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (isRefMarker(value)) return resolve(value.$ref);
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    for (let index = 0; index < value.length; index += 1) {
      const resolved = resolveRefs(value[index], resolve);
      if (resolved !== value[index]) (copy ??= [...value])[index] = resolved;
    }
    return copy ?? value;
  }
  let copy: Record<string, unknown> | undefined;
  for (const [key, inner] of Object.entries(value)) {
    const resolved = resolveRefs(inner, resolve);
    if (resolved !== inner) (copy ??= { ...(value as Record<string, unknown>) })[key] = resolved;
  }
  return copy ?? value;
}

function uniqueSorted(addresses: Iterable<Address>): Address[] {
  return [...new Set(addresses)].sort();
}

/** What apply would send for `spec`: every managed field, refs still symbolic, secrets in clear. */
export function desiredResourceOf(spec: ResourceSpec): DesiredResource {
  return {
    address: spec.address,
    kind: spec.kind,
    logicalId: spec.logicalId,
    payload: completeDesired(adapterFor(spec.kind), spec.payload),
    secrets: spec.secrets,
    dependsOn: uniqueSorted(spec.refs.map((ref) => ref.address)),
    protect: spec.protect,
  };
}

interface Pending {
  spec: ResourceSpec;
  entry: StateResource | undefined;
  remote: Record<string, unknown> | undefined;
}

export function createPlan(input: PlanInput): PlanResult {
  const diagnostics: Diagnostic[] = [...(input.diagnostics ?? [])];
  // `testOnly` checks are for `vigil test`: never deployed, so a deployed one from earlier is deleted.
  const specs = input.destroy ? [] : input.specs.filter((spec) => spec.testOnly !== true);
  const specByAddress = new Map(specs.map((spec) => [spec.address, spec]));
  const resources = input.state.resources;

  const remoteFor = (kind: ResourceKind, id: RemoteId) => input.remote.get(kind)?.get(String(id));

  // 1. Which resources exist on both sides, which are new, which are gone.
  const present: Pending[] = [];
  const creates: Array<{ spec: ResourceSpec; reason: 'new' | 'deleted-remotely' }> = [];
  for (const spec of specs) {
    const entry = resources[spec.address];
    const remote = entry ? remoteFor(entry.kind, entry.remoteId) : undefined;
    if (!entry) creates.push({ spec, reason: 'new' });
    else if (!remote) creates.push({ spec, reason: 'deleted-remotely' });
    else present.push({ spec, entry, remote });
  }
  const deletes: Array<{ address: Address; entry: StateResource }> = [];
  const forget: Address[] = [];
  for (const [address, entry] of Object.entries(resources)) {
    if (specByAddress.has(address)) continue;
    if (remoteFor(entry.kind, entry.remoteId)) deletes.push({ address, entry });
    else forget.push(address);
  }

  // 2. A check whose kind changed under the same logical id is one replace, not a delete and a create.
  const replaced = new Map<Address, { address: Address; entry: StateResource }>();
  for (const create of creates) {
    if (create.reason !== 'new' || !adapterFor(create.spec.kind).isCheck) continue;
    const index = deletes.findIndex(
      (candidate) => adapterFor(candidate.entry.kind).isCheck && candidate.address.slice(candidate.entry.kind.length + 1) === create.spec.logicalId,
    );
    if (index >= 0) replaced.set(create.spec.address, deletes.splice(index, 1)[0]!);
  }

  // 3. Refs resolve to ids that survive the apply; anything (re)created is only known after apply.
  const newIds = new Set<Address>(creates.map((create) => create.spec.address));
  // A resource replaced in place (its type changed) gets a new id too, so whatever refers to it
  // must be updated; replace-forcing fields are never refs, so they can be compared before resolving.
  const replacedInPlace = new Set<Address>();
  for (const { spec, remote } of present) {
    const adapter = adapterFor(spec.kind);
    if (adapter.replaceOn.some((field) => !deepEqual(getAtPath(spec.payload, field), getAtPath(remote, field)))) {
      replacedInPlace.add(spec.address);
      newIds.add(spec.address);
    }
  }
  const resolveRef = (address: Address): RemoteId | UnknownRef => {
    const entry = resources[address];
    return entry && !newIds.has(address) ? entry.remoteId : { $unknown: address };
  };

  const desired = new Map<Address, DesiredResource>();
  const changes: Change[] = [];
  const describe = (spec: ResourceSpec): DesiredResource => {
    const resource = desiredResourceOf(spec);
    desired.set(spec.address, resource);
    return resource;
  };
  const comparable = (resource: DesiredResource): Payload =>
    hideSecrets(resolveRefs(resource.payload, resolveRef) as Payload, resource.secrets);
  const payloadHash = (resource: DesiredResource): string => sha256(stableStringify(hideSecrets(resource.payload, resource.secrets)));

  for (const { spec, reason } of creates) {
    const resource = describe(spec);
    const previous = replaced.get(spec.address);
    changes.push({
      address: spec.address,
      kind: spec.kind,
      logicalId: spec.logicalId,
      action: previous ? 'replace' : 'create',
      reason: previous ? 'kind-changed' : reason,
      remoteId: previous?.entry.remoteId,
      dependsOn: resource.dependsOn,
      diff: maskSecrets(leafFields(comparable(resource)), resource.secrets),
      drift: [],
      payloadHash: payloadHash(resource),
      ...(previous ? { replaces: { address: previous.address, kind: previous.entry.kind, remoteId: previous.entry.remoteId } } : {}),
    });
  }

  for (const { spec, entry, remote } of present) {
    const adapter = adapterFor(spec.kind);
    const resource = describe(spec);
    const after = comparable(resource);
    const before = normalizeRemote({
      adapter,
      remote: remote!,
      managedKeys: Object.keys(after),
      secretPaths: resource.secrets,
      applied: entry!.applied,
      placeOf: (path, within) => samePlace(after, path, within),
    });
    const { code, drift } = splitDrift({ changes: diffPayloads(before, after, { sets: adapter.setFields }), applied: entry!.applied, after, sets: adapter.setFields });
    const all = [...code, ...drift];
    const mustReplace = replacedInPlace.has(spec.address);
    changes.push({
      address: spec.address,
      kind: spec.kind,
      logicalId: spec.logicalId,
      action: all.length === 0 ? 'noop' : mustReplace ? 'replace' : 'update',
      reason: all.length === 0 ? 'unchanged' : code.length === 0 ? 'drift' : 'field-changed',
      remoteId: entry!.remoteId,
      dependsOn: resource.dependsOn,
      diff: maskSecrets(code, resource.secrets),
      drift: maskSecrets(drift, resource.secrets),
      payloadHash: payloadHash(resource),
    });
  }

  for (const { address, entry } of deletes) {
    changes.push({
      address,
      kind: entry.kind,
      logicalId: address.slice(entry.kind.length + 1),
      action: 'delete',
      reason: 'not-in-code',
      remoteId: entry.remoteId,
      dependsOn: uniqueSorted(entry.dependsOn),
      diff: [],
      drift: [],
      payloadHash: undefined,
    });
  }

  const selected = selectTargets({ changes, targets: input.targets, diagnostics, known: new Set([...specByAddress.keys(), ...Object.keys(resources)]) });
  checkProtection({ changes: selected, specByAddress, resources, diagnostics });
  checkExternalRefs({ changes: selected, specByAddress, remote: input.remote, diagnostics });
  diagnostics.push(...renameHints({ changes: selected, specByAddress, remote: input.remote }));
  selected.sort((a, b) => (a.address < b.address ? -1 : a.address > b.address ? 1 : 0));
  const selectedForget = input.targets ? forget.filter((address) => input.targets!.includes(address)) : forget;

  return {
    plan: {
      formatVersion: 1,
      project: input.project,
      target: input.target,
      state: { lineage: input.state.lineage, serial: input.state.serial },
      ...(input.destroy ? { destroy: true as const } : {}),
      ...(input.targets && input.targets.length > 0 ? { targets: [...input.targets] } : {}),
      summary: summarize(selected),
      changes: selected,
      forget: selectedForget.sort(),
      diagnostics,
    },
    desired,
  };
}

/**
 * Three-way comparison: a difference from the service is a code change when the code changed that
 * field (or list element) since the last apply; any other difference was made outside vigil (drift).
 * A removed element is a code change when the code removed that same element, wherever it sat.
 */
function splitDrift(options: {
  changes: readonly FieldChange[];
  applied: Payload | undefined;
  after: Payload;
  sets: readonly string[];
}): { code: FieldChange[]; drift: FieldChange[] } {
  const { changes, applied } = options;
  if (!applied || changes.length === 0) return { code: [...changes], drift: [] };
  const sinceApplied = diffPayloads(applied, options.after, { sets: options.sets });
  const code: FieldChange[] = [];
  const drift: FieldChange[] = [];
  for (const change of changes) {
    const removedElement = change.after === undefined && change.before !== undefined && change.path.endsWith(']');
    const changedInCode = removedElement
      ? sinceApplied.some((since) => since.after === undefined && listOf(since.path) === listOf(change.path) && deepEqual(since.before, change.before))
      : sinceApplied.some((since) => since.path === change.path || isBelow(since.path, change.path) || isBelow(change.path, since.path));
    (changedInCode ? code : drift).push(change);
  }
  return { code, drift };
}

/** The list an element path is in (`a.b[2]` → `a.b`); any other path as it is. */
function listOf(path: string): string {
  return path.replace(/\[\d+\]$/, '');
}

function isBelow(path: string, parent: string): boolean {
  return path.startsWith(`${parent}.`) || path.startsWith(`${parent}[`);
}

function selectTargets(options: { changes: Change[]; targets: readonly Address[] | undefined; diagnostics: Diagnostic[]; known: ReadonlySet<Address> }): Change[] {
  const { changes, targets, diagnostics, known } = options;
  if (!targets || targets.length === 0) return changes;
  const byAddress = new Map(changes.map((change) => [change.address, change]));
  const wanted = new Set<Address>();
  const visit = (address: Address): void => {
    if (wanted.has(address)) return;
    wanted.add(address);
    const change = byAddress.get(address);
    // A create or update needs what it refers to; a delete needs nothing else removed.
    if (change && change.action !== 'delete') for (const dependency of change.dependsOn) visit(dependency);
  };
  for (const target of targets) {
    if (!known.has(target)) {
      diagnostics.push({ severity: 'error', message: `--target ${target} matches no resource in the code or the state`, address: target });
      continue;
    }
    visit(target);
  }
  return changes.filter((change) => wanted.has(change.address));
}

function checkProtection(options: {
  changes: readonly Change[];
  specByAddress: ReadonlyMap<Address, ResourceSpec>;
  resources: Readonly<Record<Address, StateResource>>;
  diagnostics: Diagnostic[];
}): void {
  for (const change of options.changes) {
    if (change.action !== 'delete' && change.action !== 'replace') continue;
    const protectedAddress = change.action === 'replace' ? (change.replaces?.address ?? change.address) : change.address;
    const spec = options.specByAddress.get(change.address);
    const isProtected = (spec?.protect ?? false) || (options.resources[protectedAddress]?.protect ?? false);
    if (!isProtected) continue;
    options.diagnostics.push({
      severity: 'error',
      message: `${protectedAddress} is protected, but this plan would ${change.action === 'delete' ? 'delete' : 'replace'} it`,
      hint: spec?.protect
        ? 'Remove `protect: true` from the construct (and apply that first) if the resource really should go.'
        : spec
          ? 'It was protected when last applied: apply its construct with `protect: false` first (without this change), or run `vigil state unprotect ' + protectedAddress + '`.'
          : 'It was protected when last applied and is no longer in code: run `vigil state unprotect ' + protectedAddress + '` if it really should go, or restore its construct.',
      address: protectedAddress,
      ...(spec ? { source: spec.source } : {}),
    });
  }
}

function summarize(changes: readonly Change[]): PlanSummary {
  const summary = { create: 0, update: 0, delete: 0, replace: 0, noop: 0 };
  for (const change of changes) summary[change.action] += 1;
  return summary;
}
