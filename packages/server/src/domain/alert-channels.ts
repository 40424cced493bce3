/**
 * Alert channels: the `subscriptions` read from the index, and cleanup of subscribers on delete.
 * Written over the storage ports a route's unit of work hands in (`tx`), so a delete is one
 * transaction on every engine: the channel, every check and group it is dropped from, and the index.
 */
import { invalid, notFound } from './errors.js';
import type { AlertChannelSubscription, StoredDoc } from '../store/index.js';
import type { DocumentKind } from '../store/document-ports.js';
import type { TransactionPorts } from '../store/ports.js';
import { mergeUpdate } from './documents.js';

type ChannelBody = Record<string, unknown>;
/** What the channel aggregate reads and writes: documents and the alert-subscription index. */
export type ChannelPorts = Pick<TransactionPorts, 'documents' | 'alertSubscriptions'>;

/** Integer ids the ports accept; any other id names no channel (the ports would refuse it as a bug). */
function isChannelNumber(id: unknown): id is number {
  return typeof id === 'number' && Number.isSafeInteger(id) && id >= 1;
}

export async function createChannel(tx: ChannelPorts, accountId: string, body: ChannelBody): Promise<StoredDoc> {
  const now = new Date().toISOString();
  return (await tx.documents.insert('alert_channels', accountId, (id) => ({ ...body, id, created_at: now, updated_at: null }))) as StoredDoc;
}

export async function getChannel(tx: ChannelPorts, accountId: string, id: number): Promise<StoredDoc> {
  const doc = isChannelNumber(id) ? await tx.documents.get('alert_channels', accountId, id) : undefined;
  if (!doc) throw notFound('Alert channel', id);
  return doc as StoredDoc;
}

export async function listChannels(tx: ChannelPorts, accountId: string, page: { limit: number; page: number }): Promise<{ items: StoredDoc[]; total: number }> {
  const { items, total } = await tx.documents.page('alert_channels', accountId, page);
  const presented: StoredDoc[] = [];
  for (const doc of items) presented.push(await presentChannel(tx, accountId, doc as StoredDoc));
  return { items: presented, total };
}

/** PUT merge; `config` is merged as a whole (a PUT that sends `config` replaces it). */
export async function updateChannel(tx: ChannelPorts, accountId: string, id: number, body: ChannelBody): Promise<StoredDoc> {
  const stored = await getChannel(tx, accountId, id);
  if (body['type'] !== undefined && body['type'] !== stored['type']) {
    throw invalid(`"type" cannot be changed from ${String(stored['type'])} to ${String(body['type'])}; create a new alert channel instead`, ['type']);
  }
  const merged = mergeUpdate(stored, body);
  merged['updated_at'] = new Date().toISOString();
  await tx.documents.replace('alert_channels', accountId, merged);
  return merged;
}

/** Deleting a channel also unsubscribes every check and group from it. */
export async function deleteChannel(tx: ChannelPorts, accountId: string, id: number): Promise<void> {
  await getChannel(tx, accountId, id);
  for (const subscriber of await tx.alertSubscriptions.subscribersOf(accountId, id)) {
    const kind: DocumentKind = subscriber.ownerKind === 'check' ? 'checks' : 'check_groups';
    const ownerId = subscriber.ownerKind === 'check' ? subscriber.ownerId : Number(subscriber.ownerId);
    const owner = await tx.documents.get(kind, accountId, ownerId);
    if (!owner) continue;
    const remaining = ((owner['alertChannelSubscriptions'] as AlertChannelSubscription[] | undefined) ?? []).filter(
      (subscription) => subscription.alertChannelId !== id,
    );
    await tx.documents.replace(kind, accountId, { ...owner, alertChannelSubscriptions: remaining });
  }
  await tx.alertSubscriptions.dropChannel(accountId, id);
  await tx.documents.remove('alert_channels', accountId, id);
}

/** The channel as returned: with its subscribers (`{id, checkId, groupId, activated}`). */
export async function presentChannel(tx: ChannelPorts, accountId: string, doc: StoredDoc): Promise<StoredDoc> {
  const subscriptions = (await tx.alertSubscriptions.subscribersOf(accountId, doc.id as number)).map((subscriber) => ({
    id: subscriber.id,
    checkId: subscriber.ownerKind === 'check' ? subscriber.ownerId : null,
    groupId: subscriber.ownerKind === 'group' ? Number(subscriber.ownerId) : null,
    activated: subscriber.activated,
  }));
  return { ...doc, subscriptions };
}
