/**
 * The edits behind `vigil state show | mv | rm`: pure functions on the document, each refusing what
 * would leave state inconsistent with the remote side.
 */
import { closestAddress, parseAddress } from './addresses.js';
import { StateError } from './errors.js';
import type { Address, StateDocument, StateResource } from './types.js';

/** The resource at `address`, or a `StateError` that suggests the closest known address. */
export function getResource(document: StateDocument, address: Address, options: { location?: string } = {}): StateResource {
  const resource = document.resources[address];
  if (resource !== undefined) return resource;
  parseAddress(address);
  const known = Object.keys(document.resources);
  const suggestion = closestAddress(address, known);
  const where = options.location === undefined ? 'state' : `state (${options.location})`;
  const hint =
    suggestion !== undefined
      ? `; did you mean ${suggestion}?`
      : known.length === 0
        ? '; state holds no resources'
        : '; run `vigil state list` to see the addresses it holds';
  throw new StateError('address-unknown', `no resource ${address} in ${where}${hint}`);
}

function refuseWhilePending(document: StateDocument, address: Address, verb: string): void {
  const pending = document.journal.find((entry) => entry.address === address);
  if (pending === undefined) return;
  throw new StateError(
    'operation-pending',
    `cannot ${verb} ${address}: an interrupted apply left a pending ${pending.operation} of it (started ${pending.startedAt}); run vigil apply to finish it first`,
  );
}

/**
 * Renames `from` to `to` without touching the remote resource: this is how a logical id is renamed
 * in code without recreating what it manages. References in other resources' `dependsOn` follow.
 */
export function moveResource(document: StateDocument, from: Address, to: Address, options: { location?: string } = {}): StateDocument {
  const resource = getResource(document, from, options);
  const target = parseAddress(to);
  if (from === to) throw new StateError('address-taken', `cannot move ${from} onto itself`);
  if (document.resources[to] !== undefined) {
    throw new StateError('address-taken', `cannot move ${from} to ${to}: ${to} already exists in state (remove it first with vigil state rm ${to})`);
  }
  if (target.kind !== resource.kind) {
    throw new StateError(
      'kind-mismatch',
      `cannot move ${from} to ${to}: the resource is of kind ${resource.kind}, not ${target.kind} (a remote resource's kind cannot change)`,
    );
  }
  refuseWhilePending(document, from, 'move');
  const resources: Record<Address, StateResource> = {};
  for (const [address, entry] of Object.entries(document.resources)) {
    const renamed = address === from ? to : address;
    resources[renamed] = { ...entry, dependsOn: entry.dependsOn.map((dependency) => (dependency === from ? to : dependency)) };
  }
  return { ...document, resources };
}

/**
 * Forgets `address`: vigil stops managing the remote resource and leaves it as it is. Other
 * resources stop depending on it, since it is no longer vigil's to order.
 */
export function removeResource(document: StateDocument, address: Address, options: { location?: string } = {}): StateDocument {
  getResource(document, address, options);
  refuseWhilePending(document, address, 'remove');
  const resources: Record<Address, StateResource> = {};
  for (const [other, entry] of Object.entries(document.resources)) {
    if (other === address) continue;
    resources[other] = { ...entry, dependsOn: entry.dependsOn.filter((dependency) => dependency !== address) };
  }
  return { ...document, resources };
}

/**
 * Lifts the protection recorded for `address`, so a plan may delete or replace it. This is how a
 * protected resource already removed from code is let go: its construct can no longer say
 * `protect: false`.
 */
export function unprotectResource(document: StateDocument, address: Address, options: { location?: string } = {}): StateDocument {
  const resource = getResource(document, address, options);
  if (resource.protect !== true) {
    throw new StateError('not-protected', `${address} is not protected in ${options.location ?? 'state'}; nothing to do`);
  }
  const { protect: _lifted, ...unprotected } = resource;
  return { ...document, resources: { ...document.resources, [address]: unprotected } };
}

/**
 * `document` with each managed resource's protection as its construct now declares it (`protect`
 * of the constructs in code; resources without a construct keep theirs). Apply records this even
 * when nothing else changes, so applying `protect: false` is what lets a later plan delete the
 * resource. Returns `document` itself when nothing differs, so callers can skip the write.
 */
export function withProtection(document: StateDocument, constructs: Iterable<{ readonly address: Address; readonly protect: boolean }>): StateDocument {
  let resources: Record<Address, StateResource> | undefined;
  for (const { address, protect } of constructs) {
    const resource = document.resources[address];
    if (resource === undefined || (resource.protect === true) === protect) continue;
    resources ??= { ...document.resources };
    const { protect: _previous, ...rest } = resource;
    resources[address] = protect ? { ...rest, protect: true } : rest;
  }
  return resources === undefined ? document : { ...document, resources };
}
