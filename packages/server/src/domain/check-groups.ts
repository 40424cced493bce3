/**
 * Check groups: subscriptions, merge on PUT, and the 409 for deleting a group that holds checks.
 * Written over the storage ports a route's unit of work hands in (`tx`), so each write is one
 * transaction on every engine: the group, its subscription index and the Idempotency-Key response.
 */
import { conflict, invalid, notFound } from './errors.js';
import type { AlertChannelSubscription, StoredDoc } from '../store/index.js';
import type { DocumentKind, DocumentPageRequest, ResourceDocument } from '../store/document-ports.js';
import type { TransactionPorts } from '../store/ports.js';
import { hideSecretValues, mergeUpdate, nullsForAbsent } from './documents.js';

/** Nullable group fields returned as `null` when a create did not send them. */
const NULL_WHEN_ABSENT = ['runtimeId', 'setupSnippetId', 'tearDownSnippetId', 'localSetupScript', 'localTearDownScript'];

/** Documents read per page when the aggregate needs all of some (an account's channels, a group's checks). */
const READ_ALL_PAGE = 500;

type GroupBody = Record<string, unknown>;
/** What the group aggregate reads and writes: documents and the alert-subscription index. */
export type GroupPorts = Pick<TransactionPorts, 'documents' | 'alertSubscriptions'>;

/** Integer ids the ports accept; any other id names no document (the ports would refuse it as a bug). */
function isDocumentNumber(id: unknown): id is number {
  return typeof id === 'number' && Number.isSafeInteger(id) && id >= 1;
}

async function readAll(tx: GroupPorts, kind: DocumentKind, accountId: string, query: Omit<DocumentPageRequest, 'limit' | 'page'> = {}): Promise<ResourceDocument[]> {
  const all: ResourceDocument[] = [];
  for (let page = 1; ; page++) {
    const { items, total } = await tx.documents.page(kind, accountId, { ...query, limit: READ_ALL_PAGE, page });
    all.push(...items);
    if (items.length === 0 || all.length >= total) return all;
  }
}

/** Every listed channel id must be one of the account's channels (400 naming the bad entry). */
async function assertChannelsExist(tx: GroupPorts, accountId: string, subscriptions: readonly AlertChannelSubscription[] | undefined): Promise<void> {
  for (const [index, subscription] of (subscriptions ?? []).entries()) {
    const id = subscription.alertChannelId;
    if (!isDocumentNumber(id) || !(await tx.documents.get('alert_channels', accountId, id))) {
      throw invalid(`"alertChannelSubscriptions[${index}].alertChannelId" references alert channel ${id}, which does not exist`, [`alertChannelSubscriptions.${index}.alertChannelId`]);
    }
  }
}

/**
 * The subscriptions a group ends up with: the ones sent (or kept), plus every channel of the account
 * when `autoAssignAlerts` is true (a channel already listed keeps its sent `activated` value). As
 * domain/alerting.ts resolves them for checks, without the new-check `autoSubscribe` rule.
 */
async function resolveSubscriptions(tx: GroupPorts, accountId: string, sent: readonly AlertChannelSubscription[], autoAssignAlerts: boolean): Promise<AlertChannelSubscription[]> {
  const result = sent.map((subscription) => ({ alertChannelId: subscription.alertChannelId, activated: subscription.activated }));
  if (!autoAssignAlerts) return result;
  const listed = new Set(result.map((subscription) => subscription.alertChannelId));
  for (const channel of await readAll(tx, 'alert_channels', accountId)) {
    const id = channel.id as number;
    if (listed.has(id)) continue;
    result.push({ alertChannelId: id, activated: true });
    listed.add(id);
  }
  return result;
}

async function indexSubscriptions(tx: GroupPorts, accountId: string, doc: StoredDoc): Promise<void> {
  await tx.alertSubscriptions.replace(accountId, 'group', String(doc.id), (doc['alertChannelSubscriptions'] as AlertChannelSubscription[] | undefined) ?? []);
}

export async function createGroup(tx: GroupPorts, accountId: string, options: { body: GroupBody; autoAssignAlerts: boolean }): Promise<StoredDoc> {
  const { body } = options;
  const sent = body['alertChannelSubscriptions'] as AlertChannelSubscription[] | undefined;
  await assertChannelsExist(tx, accountId, sent);
  const alertChannelSubscriptions = await resolveSubscriptions(tx, accountId, sent ?? [], options.autoAssignAlerts);
  const now = new Date().toISOString();
  const doc = (await tx.documents.insert('check_groups', accountId, (id) => ({
    ...nullsForAbsent(NULL_WHEN_ABSENT),
    ...body,
    id,
    alertChannelSubscriptions,
    created_at: now,
    updated_at: null,
  }))) as StoredDoc;
  await indexSubscriptions(tx, accountId, doc);
  return doc;
}

export async function getGroup(tx: GroupPorts, accountId: string, id: number): Promise<StoredDoc> {
  const doc = isDocumentNumber(id) ? await tx.documents.get('check_groups', accountId, id) : undefined;
  if (!doc) throw notFound('Check group', id);
  return doc as StoredDoc;
}

export async function listGroups(tx: GroupPorts, accountId: string, page: { limit: number; page: number }): Promise<{ items: StoredDoc[]; total: number }> {
  const { items, total } = await tx.documents.page('check_groups', accountId, page);
  return { items: items.map((doc) => presentGroup(doc as StoredDoc)), total };
}

export async function updateGroup(tx: GroupPorts, accountId: string, options: { id: number; body: GroupBody; autoAssignAlerts: boolean }): Promise<StoredDoc> {
  const stored = await getGroup(tx, accountId, options.id);
  await assertChannelsExist(tx, accountId, options.body['alertChannelSubscriptions'] as AlertChannelSubscription[] | undefined);
  const merged = mergeUpdate(stored, options.body);
  merged['alertChannelSubscriptions'] = await resolveSubscriptions(
    tx,
    accountId,
    (merged['alertChannelSubscriptions'] as AlertChannelSubscription[] | undefined) ?? [],
    options.autoAssignAlerts,
  );
  merged['updated_at'] = new Date().toISOString();
  await tx.documents.replace('check_groups', accountId, merged);
  await indexSubscriptions(tx, accountId, merged);
  return merged;
}

/** Refuses (409) while checks still belong to the group, naming them, like the real service. */
export async function deleteGroup(tx: GroupPorts, accountId: string, id: number): Promise<void> {
  await getGroup(tx, accountId, id);
  const members = await readAll(tx, 'checks', accountId, { groupId: id });
  if (members.length > 0) {
    throw conflict(`Check group ${id} still holds checks: ${members.map((check) => String(check.id)).join(', ')}. Remove them from the group or delete them first.`);
  }
  await tx.documents.remove('check_groups', accountId, id);
  await tx.alertSubscriptions.replace(accountId, 'group', String(id), []);
}

export function presentGroup(doc: StoredDoc): StoredDoc {
  return hideSecretValues(doc);
}
