/**
 * The write-ahead journal apply keeps in state: an operation is recorded before its call
 * and resolved after it, each step written atomically by the caller. These functions are pure: they
 * return a new document and never touch the one given.
 */
import { randomUUID } from 'node:crypto';
import type { Address, JournalEntry, JournalOperation, JournalStep, RemoteId, ResourceKind, StateDocument, StateResource } from './types.js';

/** Builds a journal entry with a fresh id and the current time; the caller adds what it knows. */
export function newJournalEntry(input: {
  operation: JournalOperation;
  address: Address;
  kind: ResourceKind;
  idempotencyKey?: string;
  remoteId?: RemoteId;
  name?: string;
  now?: Date;
}): JournalEntry {
  const { now, ...rest } = input;
  const entry: JournalEntry = { id: randomUUID(), startedAt: (now ?? new Date()).toISOString(), ...rest };
  // Absent rather than `undefined`, so the entry round-trips through JSON unchanged.
  for (const key of Object.keys(entry) as (keyof JournalEntry)[]) {
    if (entry[key] === undefined) delete entry[key];
  }
  return entry;
}

/**
 * Records `entry` as pending. Two pending operations on one address mean the walker lost track of
 * something, so that is refused as a bug rather than journaled.
 */
export function beginOperation(document: StateDocument, entry: JournalEntry): StateDocument {
  for (const pending of document.journal) {
    if (pending.id === entry.id) throw new Error(`this is a bug in vigil: journal entry ${entry.id} is already pending`);
    if (pending.address === entry.address) {
      throw new Error(
        `this is a bug in vigil: ${entry.operation} of ${entry.address} started while a ${pending.operation} of it is still pending (${pending.id})`,
      );
    }
  }
  return { ...document, journal: [...document.journal, { ...entry }] };
}

/**
 * Resolves the pending operation `id`: removes it from the journal and lets `mutate` record the
 * outcome on a copy of the resources (set the created resource, update `applied`, delete the entry).
 * Without `mutate` the operation is simply dropped (a call that changed nothing).
 */
export function completeOperation(
  document: StateDocument,
  id: string,
  mutate?: (resources: Record<Address, StateResource>, entry: JournalEntry) => void,
): StateDocument {
  const entry = document.journal.find((pending) => pending.id === id);
  if (entry === undefined) throw new Error(`this is a bug in vigil: no pending journal entry ${id}`);
  const resources = { ...document.resources };
  mutate?.(resources, entry);
  return { ...document, resources, journal: document.journal.filter((pending) => pending.id !== id) };
}

/**
 * Applies one journal step to `document` IN PLACE: the document's `resources` and `journal` must be
 * the caller's own. Apply's state writer and the replay of a backend's step log both go through
 * here, so a step means the same thing live and after a crash. Throws on a step that cannot follow
 * the document (a second pending operation on an address, or completing an unknown one).
 */
export function applyJournalStep(document: StateDocument, step: JournalStep): void {
  if (step.type === 'begin') {
    const clash = document.journal.find((pending) => pending.id === step.entry.id || pending.address === step.entry.address);
    if (clash) {
      throw new Error(`${step.entry.operation} of ${step.entry.address} started while ${clash.operation} ${clash.id} of ${clash.address} is pending`);
    }
    document.journal.push(step.entry);
    return;
  }
  const index = document.journal.findIndex((pending) => pending.id === step.id);
  if (index < 0) throw new Error(`no pending journal entry ${step.id}`);
  document.journal.splice(index, 1);
  if (step.address === undefined) return;
  if (step.resource) document.resources[step.address] = step.resource;
  else delete document.resources[step.address];
}

/** Pending operations, oldest first: what the next apply must recover before anything else. */
export function pendingOperations(document: StateDocument): readonly JournalEntry[] {
  return [...document.journal].sort((a, b) => a.startedAt.localeCompare(b.startedAt));
}
