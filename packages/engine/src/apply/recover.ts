/**
 * Finishes what an interrupted apply left pending, before anything is planned:
 * - a create is re-sent with its journaled Idempotency-Key, so the service answers with the resource
 *   it created the first time (or creates it now, if the first call never arrived); when that is not
 *   possible (the resource left the code, or the service refuses the replay) it is found by name
 *   among the resources no state entry claims;
 * - an update or a delete is simply dropped from the journal: the fresh plan compares desired with
 *   remote again and repeats whatever is still needed (a delete that finds 404 counts as done).
 */
import { adapterFor } from '../kinds/index.js';
import { hideSecrets } from '../kinds/normalize.js';
import type { Payload, RemoteObject, ServiceCalls } from '../kinds/types.js';
import { resolveRefs, type DesiredResource } from '../plan/plan.js';
import type { Address, RemoteId } from '../plan/types.js';
import { completeOperation, pendingOperations, type JournalEntry } from '../state/index.js';
import type { StateWriter } from './state-writer.js';

export interface RecoveryOutcome {
  readonly entry: JournalEntry;
  /** What became of it, for the log: `adopted <id>`, `not created`, `dropped`. */
  readonly outcome: string;
}

export async function recoverJournal(options: {
  readonly api: ServiceCalls;
  readonly writer: StateWriter;
  /** Desired resources by address, from the current code (refs still symbolic). */
  readonly desired: ReadonlyMap<Address, DesiredResource>;
}): Promise<RecoveryOutcome[]> {
  const { api, writer, desired } = options;
  const outcomes: RecoveryOutcome[] = [];
  for (const entry of pendingOperations(writer.document)) {
    if (entry.operation !== 'create') {
      await writer.update((document) => completeOperation(document, entry.id));
      outcomes.push({ entry, outcome: 'dropped; the plan repeats it if still needed' });
      continue;
    }
    const adopted = (await replayCreate(api, writer, entry, desired.get(entry.address))) ?? (await findByName(api, writer, entry));
    await writer.update((document) =>
      completeOperation(document, entry.id, (resources) => {
        if (!adopted) return;
        resources[entry.address] = {
          kind: entry.kind,
          remoteId: adopted.remoteId,
          applied: adopted.applied,
          dependsOn: adopted.dependsOn,
        };
      }),
    );
    outcomes.push({ entry, outcome: adopted ? `adopted ${adopted.remoteId}` : 'not created; the plan creates it' });
  }
  return outcomes;
}

interface Adopted {
  remoteId: RemoteId;
  applied: Payload;
  dependsOn: Address[];
}

async function replayCreate(api: ServiceCalls, writer: StateWriter, entry: JournalEntry, resource: DesiredResource | undefined): Promise<Adopted | undefined> {
  if (!resource || resource.kind !== entry.kind || !entry.idempotencyKey) return undefined;
  let payload: Payload;
  try {
    payload = resolveRefs(resource.payload, (address) => {
      const remoteId = writer.document.resources[address]?.remoteId;
      if (remoteId === undefined) throw new Error(`unresolved reference ${address}`);
      return remoteId;
    }) as Payload;
  } catch {
    return undefined;
  }
  const adapter = adapterFor(entry.kind);
  try {
    const remote = await adapter.create(api, payload, { idempotencyKey: entry.idempotencyKey });
    return { remoteId: adapter.remoteIdOf(remote), applied: hideSecrets(payload, resource.secrets), dependsOn: [...resource.dependsOn] };
  } catch (error) {
    const status = (error as { status?: unknown }).status;
    // The service refused to replay the key (the body changed since): fall back to the name.
    if (status === 409 || status === 422) return undefined;
    throw error;
  }
}

async function findByName(api: ServiceCalls, writer: StateWriter, entry: JournalEntry): Promise<Adopted | undefined> {
  if (entry.name === undefined) return undefined;
  const adapter = adapterFor(entry.kind);
  const claimed = new Set(Object.values(writer.document.resources).map((resource) => String(resource.remoteId)));
  const candidates: RemoteObject[] = [];
  for await (const remote of adapter.list(api)) {
    if (!claimed.has(String(adapter.remoteIdOf(remote))) && adapter.nameOf(remote) === entry.name) candidates.push(remote);
  }
  // Two unclaimed resources of that name: adopting either could steal someone else's; leave both.
  if (candidates.length !== 1) return undefined;
  // Nothing known was applied, so the next plan shows every managed field as a code change.
  return { remoteId: adapter.remoteIdOf(candidates[0]!), applied: {}, dependsOn: [] };
}
