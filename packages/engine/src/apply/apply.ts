/**
 * Executes a plan: every change becomes one or two operations on a graph; creates and
 * updates wait for what they reference, deletes wait for whatever still refers to them. Each
 * operation is journaled in state before its call and resolved after it, so a process killed at any
 * moment leaves a state the next apply can finish from (see recover.ts). Apply never re-diffs: it
 * does what the plan says.
 */
import { randomUUID } from 'node:crypto';
import { Graph, UPSTREAM_FAILED } from '../graph/index.js';
import { adapterFor } from '../kinds/index.js';
import { hideSecrets } from '../kinds/normalize.js';
import type { Payload, ServiceCalls } from '../kinds/types.js';
import { resolveRefs, type DesiredResource, type PlanResult } from '../plan/plan.js';
import { assertNever, type Action, type Address, type Change, type RemoteId } from '../plan/types.js';
import { newJournalEntry, type StateDocument, type StateResource } from '../state/index.js';
import type { StateWriter } from './state-writer.js';

export type OperationKind = 'create' | 'update' | 'delete';

export interface Operation {
  /** Graph key: the address, or `<address>~old` for the old half of an in-place replace. */
  readonly key: string;
  readonly operation: OperationKind;
  readonly address: Address;
  readonly change: Change;
}

export type ApplyEvent =
  | { readonly type: 'started'; readonly operation: Operation }
  | { readonly type: 'finished'; readonly operation: Operation; readonly remoteId: RemoteId }
  | { readonly type: 'failed'; readonly operation: Operation; readonly error: unknown };

export interface ApplyOptions {
  readonly planned: PlanResult;
  readonly api: ServiceCalls;
  readonly writer: StateWriter;
  readonly parallelism: number;
  readonly onEvent?: (event: ApplyEvent) => void;
  /** Once aborted, no new operation starts; those in flight finish and are recorded. */
  readonly signal?: AbortSignal;
}

/** The root cause given for operations not started because the user interrupted the apply. */
export class ApplyInterruptedError extends Error {
  constructor() {
    super('not started: the apply was interrupted');
    this.name = 'ApplyInterruptedError';
  }
}

export interface ApplyReport {
  readonly added: number;
  readonly changed: number;
  readonly destroyed: number;
  /** Root causes only; what they blocked is in `skipped`. */
  readonly failed: ReadonlyArray<{ readonly operation: Operation; readonly error: unknown }>;
  readonly skipped: readonly Operation[];
  /** Not started because the apply was interrupted (and not blocked by a failure): the next apply does them. */
  readonly interrupted: readonly Operation[];
  readonly total: number;
}

const OLD_SUFFIX = '~old';

/** Splits changes into operations: a replace creates the new resource before deleting the old. */
export function operationsOf(changes: readonly Change[]): Operation[] {
  const operations: Operation[] = [];
  for (const change of changes) {
    const action: Action = change.action;
    switch (action) {
      case 'noop':
        break;
      case 'create':
      case 'update':
      case 'delete':
        operations.push({ key: change.address, operation: action, address: change.address, change });
        break;
      case 'replace': {
        operations.push({ key: change.address, operation: 'create', address: change.address, change });
        const old = change.replaces?.address ?? change.address;
        operations.push({ key: old === change.address ? `${old}${OLD_SUFFIX}` : old, operation: 'delete', address: old, change });
        break;
      }
      default:
        assertNever(action, 'plan action');
    }
  }
  return operations;
}

/**
 * The operation graph. An edge `a → b` means "a waits for b":
 * - a create or update waits for the create/update of everything it references;
 * - a delete waits for every operation on a resource that (per state) still refers to it, so a
 *   check leaves or is deleted before its group, and for the new half of its own replace.
 */
export function operationGraph(operations: readonly Operation[], state: StateDocument): Graph {
  const graph = new Graph();
  const writes = new Map<Address, Operation>();
  for (const operation of operations) {
    graph.addNode(operation.key);
    if (operation.operation !== 'delete') writes.set(operation.address, operation);
  }
  for (const operation of operations) {
    if (operation.operation !== 'delete') {
      for (const dependency of operation.change.dependsOn) {
        const prerequisite = writes.get(dependency);
        if (prerequisite && prerequisite.key !== operation.key) graph.addEdge(operation.key, prerequisite.key);
      }
      continue;
    }
    const replacement = writes.get(operation.change.address);
    if (operation.change.action === 'replace' && replacement) graph.addEdge(operation.key, replacement.key);
    for (const other of operations) {
      if (other === operation || other.operation === 'create') continue;
      const referrer = state.resources[other.address];
      if (referrer?.dependsOn.includes(operation.address)) graph.addEdge(operation.key, other.key);
    }
  }
  return graph;
}

function statusOf(error: unknown): number | undefined {
  const status = typeof error === 'object' && error !== null ? (error as { status?: unknown }).status : undefined;
  return typeof status === 'number' ? status : undefined;
}

function isNotFound(error: unknown): boolean {
  return statusOf(error) === 404;
}

/** A 4xx other than 408/429 means the service refused the call and changed nothing. */
function isDefinitive(error: unknown): boolean {
  const status = statusOf(error);
  return status !== undefined && status >= 400 && status < 500 && status !== 408 && status !== 429;
}

export async function applyPlan(options: ApplyOptions): Promise<ApplyReport> {
  const { planned, api, writer, parallelism, onEvent, signal } = options;
  const operations = operationsOf(planned.plan.changes);
  const byKey = new Map(operations.map((operation) => [operation.key, operation]));

  if (planned.plan.forget.length > 0) {
    await writer.update((document) => {
      const resources = { ...document.resources };
      for (const address of planned.plan.forget) delete resources[address];
      return { ...document, resources };
    });
  }

  const counts = { added: 0, changed: 0, destroyed: 0 };
  const graph = operationGraph(operations, writer.document);

  const desiredOf = (address: Address): DesiredResource => {
    const desired = planned.desired.get(address);
    if (!desired) throw new Error(`this is a bug in vigil: no desired payload for ${address}`);
    return desired;
  };
  const resolvedPayload = (desired: DesiredResource): Payload =>
    resolveRefs(desired.payload, (address) => {
      const remoteId = writer.document.resources[address]?.remoteId;
      if (remoteId === undefined) throw new Error(`this is a bug in vigil: ${desired.address} refers to ${address}, which has no remote id yet`);
      return remoteId;
    }) as Payload;

  const visit = async (key: string): Promise<void> => {
    const operation = byKey.get(key)!;
    if (signal?.aborted) throw new ApplyInterruptedError();
    onEvent?.({ type: 'started', operation });
    try {
      const remoteId = await perform(operation);
      onEvent?.({ type: 'finished', operation, remoteId });
    } catch (error) {
      onEvent?.({ type: 'failed', operation, error });
      throw error;
    }
  };

  /**
   * Journals `entry`, makes the call, then records the outcome. A call the service definitively
   * refused (a 4xx) changed nothing, so its entry is dropped; an ambiguous failure (timeout, reset,
   * 5xx) keeps it pending for the next apply to recover.
   */
  const journaled = async <T>(
    entry: ReturnType<typeof newJournalEntry>,
    call: () => Promise<T>,
    outcome: (result: T) => { address: Address; resource: StateResource | undefined } | undefined,
  ): Promise<T> => {
    await writer.begin(entry);
    let result: T;
    try {
      result = await call();
    } catch (error) {
      if (isDefinitive(error)) await writer.complete(entry.id);
      throw error;
    }
    await writer.complete(entry.id, outcome(result));
    return result;
  };

  const perform = async (operation: Operation): Promise<RemoteId> => {
    switch (operation.operation) {
      case 'create': {
        const desired = desiredOf(operation.address);
        const adapter = adapterFor(desired.kind);
        const payload = resolvedPayload(desired);
        const entry = newJournalEntry({
          operation: 'create',
          address: operation.address,
          kind: desired.kind,
          idempotencyKey: randomUUID(),
          name: adapter.nameOf(payload),
        });
        const remote = await journaled(
          entry,
          () => adapter.create(api, payload, { idempotencyKey: entry.idempotencyKey! }),
          (created) => ({ address: operation.address, resource: stateEntry(desired, adapter.remoteIdOf(created), payload) }),
        );
        counts.added += 1;
        return adapter.remoteIdOf(remote);
      }
      case 'update': {
        const desired = desiredOf(operation.address);
        const adapter = adapterFor(desired.kind);
        const payload = resolvedPayload(desired);
        const remoteId = operation.change.remoteId!;
        const entry = newJournalEntry({ operation: 'update', address: operation.address, kind: desired.kind, remoteId });
        await journaled(
          entry,
          () => adapter.update(api, remoteId, payload),
          () => ({ address: operation.address, resource: stateEntry(desired, remoteId, payload) }),
        );
        counts.changed += 1;
        return remoteId;
      }
      case 'delete': {
        const remoteId = operation.change.replaces?.remoteId ?? operation.change.remoteId!;
        const kind = operation.change.replaces?.kind ?? operation.change.kind;
        const adapter = adapterFor(kind);
        const replacedInPlace = operation.key.endsWith(OLD_SUFFIX);
        const entry = newJournalEntry({ operation: 'delete', address: operation.address, kind, remoteId });
        await journaled(
          entry,
          // Already gone is what we wanted.
          () => adapter.remove(api, remoteId).catch((error: unknown) => {
            if (!isNotFound(error)) throw error;
          }),
          () => (replacedInPlace ? undefined : { address: operation.address, resource: undefined }),
        );
        counts.destroyed += 1;
        return remoteId;
      }
      default:
        return assertNever(operation.operation, 'operation');
    }
  };

  const result = await graph.walk({ parallelism, visit });
  const failed = result.failed.filter(({ error }) => !(error instanceof ApplyInterruptedError));
  // What a real failure blocked is "skipped"; everything else left undone is only interrupted.
  const blocked = new Set<string>();
  const queue = failed.map(({ key }) => key);
  while (queue.length > 0) {
    for (const dependent of graph.dependentsOf(queue.pop()!)) {
      if (blocked.has(dependent)) continue;
      blocked.add(dependent);
      queue.push(dependent);
    }
  }
  const skippedKeys = result.skipped.filter((skip) => skip.reason === UPSTREAM_FAILED).map((skip) => skip.key);
  const interrupted = [
    ...result.failed.filter(({ error }) => error instanceof ApplyInterruptedError).map(({ key }) => key),
    ...skippedKeys.filter((key) => !blocked.has(key)),
  ];
  return {
    ...counts,
    failed: failed.map(({ key, error }) => ({ operation: byKey.get(key)!, error })),
    skipped: skippedKeys.filter((key) => blocked.has(key)).map((key) => byKey.get(key)!),
    interrupted: interrupted.sort().map((key) => byKey.get(key)!),
    total: operations.length,
  };
}

function stateEntry(desired: DesiredResource, remoteId: RemoteId, sent: Payload): StateResource {
  return {
    kind: desired.kind,
    remoteId,
    applied: hideSecrets(sent, desired.secrets),
    dependsOn: [...desired.dependsOn],
    ...(desired.protect ? { protect: true } : {}),
  };
}
