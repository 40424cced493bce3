/** Alert channels: the `subscriptions` read from the index, and cleanup of subscribers on delete. */
import { invalid, notFound } from './errors.js';
import type { AlertChannelSubscription, StoredDoc, Store } from '../store/index.js';
import { mergeUpdate } from './documents.js';

type ChannelBody = Record<string, unknown>;

export function createChannel(store: Store, accountId: string, body: ChannelBody): StoredDoc {
  const now = new Date().toISOString();
  return store.alertChannels.insert(accountId, (id) => ({ ...body, id, created_at: now, updated_at: null }));
}

export function getChannel(store: Store, accountId: string, id: number): StoredDoc {
  const doc = store.alertChannels.get(accountId, id);
  if (!doc) throw notFound('Alert channel', id);
  return doc;
}

/** PUT merge; `config` is merged as a whole (a PUT that sends `config` replaces it). */
export function updateChannel(store: Store, accountId: string, id: number, body: ChannelBody): StoredDoc {
  const stored = getChannel(store, accountId, id);
  if (body['type'] !== undefined && body['type'] !== stored['type']) {
    throw invalid(`"type" cannot be changed from ${String(stored['type'])} to ${String(body['type'])}; create a new alert channel instead`, ['type']);
  }
  const merged = mergeUpdate(stored, body);
  merged['updated_at'] = new Date().toISOString();
  store.alertChannels.replace(accountId, merged);
  return merged;
}

/** Deleting a channel also unsubscribes every check and group from it. */
export function deleteChannel(store: Store, accountId: string, id: number): void {
  getChannel(store, accountId, id);
  for (const subscriber of store.subscriptions.subscribers(accountId, id)) {
    const collection = subscriber.ownerKind === 'check' ? store.checks : store.checkGroups;
    const owner = collection.get(accountId, subscriber.ownerKind === 'check' ? subscriber.ownerId : Number(subscriber.ownerId));
    if (!owner) continue;
    const remaining = ((owner['alertChannelSubscriptions'] as AlertChannelSubscription[] | undefined) ?? []).filter(
      (subscription) => subscription.alertChannelId !== id,
    );
    collection.replace(accountId, { ...owner, alertChannelSubscriptions: remaining });
  }
  store.subscriptions.removeChannel(accountId, id);
  store.alertChannels.remove(accountId, id);
}

/** The channel as returned: with its subscribers (`{id, checkId, groupId, activated}`). */
export function presentChannel(store: Store, accountId: string, doc: StoredDoc): StoredDoc {
  const subscriptions = store.subscriptions.subscribers(accountId, doc.id as number).map((subscriber) => ({
    id: subscriber.id,
    checkId: subscriber.ownerKind === 'check' ? subscriber.ownerId : null,
    groupId: subscriber.ownerKind === 'group' ? Number(subscriber.ownerId) : null,
    activated: subscriber.activated,
  }));
  return { ...doc, subscriptions };
}
