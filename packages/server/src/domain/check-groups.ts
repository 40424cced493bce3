/** Check groups: subscriptions, merge on PUT, and the 409 for deleting a group that holds checks. */
import { conflict, notFound } from './errors.js';
import type { AlertChannelSubscription, StoredDoc, Store } from '../store/index.js';
import { assertChannelsExist, indexSubscriptions, resolveSubscriptions } from './alerting.js';
import { hideSecretValues, mergeUpdate, nullsForAbsent } from './documents.js';

/** Nullable group fields returned as `null` when a create did not send them. */
const NULL_WHEN_ABSENT = ['runtimeId', 'setupSnippetId', 'tearDownSnippetId', 'localSetupScript', 'localTearDownScript'];

type GroupBody = Record<string, unknown>;

export function createGroup(store: Store, accountId: string, options: { body: GroupBody; autoAssignAlerts: boolean }): StoredDoc {
  const { body } = options;
  assertChannelsExist(store, accountId, body['alertChannelSubscriptions'] as AlertChannelSubscription[] | undefined);
  const now = new Date().toISOString();
  const doc = store.checkGroups.insert(accountId, (id) => ({
    ...nullsForAbsent(NULL_WHEN_ABSENT),
    ...body,
    id,
    alertChannelSubscriptions: resolveSubscriptions(store, accountId, {
      sent: (body['alertChannelSubscriptions'] as AlertChannelSubscription[] | undefined) ?? [],
      autoAssignAlerts: options.autoAssignAlerts,
      newCheck: false,
    }),
    created_at: now,
    updated_at: null,
  }));
  indexSubscriptions(store, accountId, 'group', doc);
  return doc;
}

export function getGroup(store: Store, accountId: string, id: number): StoredDoc {
  const doc = store.checkGroups.get(accountId, id);
  if (!doc) throw notFound('Check group', id);
  return doc;
}

export function updateGroup(store: Store, accountId: string, options: { id: number; body: GroupBody; autoAssignAlerts: boolean }): StoredDoc {
  const stored = getGroup(store, accountId, options.id);
  assertChannelsExist(store, accountId, options.body['alertChannelSubscriptions'] as AlertChannelSubscription[] | undefined);
  const merged = mergeUpdate(stored, options.body);
  merged['alertChannelSubscriptions'] = resolveSubscriptions(store, accountId, {
    sent: (merged['alertChannelSubscriptions'] as AlertChannelSubscription[] | undefined) ?? [],
    autoAssignAlerts: options.autoAssignAlerts,
    newCheck: false,
  });
  merged['updated_at'] = new Date().toISOString();
  store.checkGroups.replace(accountId, merged);
  indexSubscriptions(store, accountId, 'group', merged);
  return merged;
}

/** Refuses (409) while checks still belong to the group, naming them, like the real service. */
export function deleteGroup(store: Store, accountId: string, id: number): void {
  getGroup(store, accountId, id);
  const members = store.checks.all(accountId, [{ sql: 'group_id = ?', values: [id] }]);
  if (members.length > 0) {
    throw conflict(`Check group ${id} still holds checks: ${members.map((check) => String(check.id)).join(', ')}. Remove them from the group or delete them first.`);
  }
  store.checkGroups.remove(accountId, id);
  store.subscriptions.set(accountId, 'group', id, []);
}

export function presentGroup(doc: StoredDoc): StoredDoc {
  return hideSecretValues(doc);
}
