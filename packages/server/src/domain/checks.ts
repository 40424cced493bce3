/**
 * Checks: what the service adds and enforces beyond the request schemas — references to groups,
 * channels and services, the assigned `frequencyOffset`, merge on PUT, secrets hidden on the way out,
 * and the alert-subscription index.
 */
import { createHash } from 'node:crypto';
import { frequencyOffsetKind, frequencyOffsetProblem, maxFrequencyOffset } from '@vigil/schema';
import type { CheckIncidents } from '../alerting/incidents.js';
import { invalid, notFound } from './errors.js';
import { JsonBytes, RawJson, SerializedPage } from './json-text.js';
import type { AlertChannelSubscription, Filter, Page, PageRequest, StoredDoc, Store } from '../store/index.js';
import type { CheckVariant } from './check-variants.js';
import { assertChannelsExist, indexSubscriptions, resolveSubscriptions, summarizeChannels } from './alerting.js';
import { hideSecretValues, mergeUpdate, nullsForAbsent } from './documents.js';
import { heartbeatOnCreate, keepPingToken } from '../heartbeats/tokens.js';
import { HEARTBEAT_TYPE_TEXT, withPingUrl } from '../heartbeats/ping-urls.js';

export type { CheckVariant } from './check-variants.js';

type CheckBody = Record<string, unknown>;

/**
 * Nullable fields the real service returns as `null` when a create did not send them, so a read
 * always shows every field (Vigil's normalisation compares against these).
 */
const NULL_WHEN_ABSENT = [
  'runtimeId',
  'retryStrategy',
  'triggerIncident',
  'setupSnippetId',
  'tearDownSnippetId',
  'localSetupScript',
  'localTearDownScript',
] as const;
/** Built once: spread under every create body. */
const ABSENT_AS_NULL = nullsForAbsent(NULL_WHEN_ABSENT);

function assertReferences(store: Store, accountId: string, body: CheckBody): void {
  const groupId = body['groupId'];
  if (typeof groupId === 'number' && !store.checkGroups.get(accountId, groupId)) {
    throw invalid(`"groupId" references check group ${groupId}, which does not exist`, ['groupId']);
  }
  assertChannelsExist(store, accountId, body['alertChannelSubscriptions'] as AlertChannelSubscription[] | undefined);
  const trigger = body['triggerIncident'] as { serviceId?: string } | null | undefined;
  if (trigger?.serviceId !== undefined && !store.services.get(accountId, trigger.serviceId)) {
    throw invalid(`"triggerIncident.serviceId" references status-page service ${trigger.serviceId}, which does not exist`, ['triggerIncident.serviceId']);
  }
}

/**
 * The offset the service picks when none is sent: 10 s for sub-minute checks, otherwise a value in
 * the allowed range derived from the id, so runs of many checks spread out but a given check keeps
 * its offset across restarts and re-reads.
 */
export function assignFrequencyOffset(id: string, frequency: number): number {
  if (frequency === 0) return 10;
  const max = maxFrequencyOffset(frequency);
  return (createHash('sha256').update(id).digest().readUInt32BE(0) % max) + 1;
}

export function createCheck(store: Store, accountId: string, options: { variant: CheckVariant; body: CheckBody; autoAssignAlerts: boolean }): StoredDoc {
  const { body, variant } = options;
  assertReferences(store, accountId, body);
  const now = new Date().toISOString();
  const doc = store.checks.insert(accountId, (id) => {
    const checkType = variant === 'generic' ? body['checkType'] : variant.checkType;
    const frequency = typeof body['frequency'] === 'number' ? body['frequency'] : 10;
    return {
      ...ABSENT_AS_NULL,
      ...body,
      id,
      checkType,
      ...heartbeatOnCreate(checkType, body['heartbeat']),
      frequency,
      frequencyOffset: typeof body['frequencyOffset'] === 'number' ? body['frequencyOffset'] : assignFrequencyOffset(String(id), frequency),
      groupId: body['groupId'] ?? null,
      groupOrder: body['groupOrder'] ?? null,
      alertChannelSubscriptions: resolveSubscriptions(store, accountId, {
        sent: (body['alertChannelSubscriptions'] as AlertChannelSubscription[] | undefined) ?? [],
        autoAssignAlerts: options.autoAssignAlerts,
        newCheck: true,
      }),
      created_at: now,
      updated_at: null,
    } as StoredDoc;
  });
  // A new id has no index rows yet, so only a check that subscribes needs the index written.
  if ((doc['alertChannelSubscriptions'] as AlertChannelSubscription[]).length > 0) indexSubscriptions(store, accountId, 'check', doc);
  return doc;
}

/** The stored check behind `id` for this call; a check of another type reads as missing. */
export function getCheck(store: Store, accountId: string, id: string, variant: CheckVariant = 'generic'): StoredDoc {
  const doc = store.checks.get(accountId, id);
  if (!doc || (variant !== 'generic' && doc['checkType'] !== variant.checkType)) throw notFound(variant === 'generic' ? 'Check' : variant.label, id);
  return doc;
}

export function updateCheck(
  store: Store,
  accountId: string,
  options: { id: string; variant: CheckVariant; body: CheckBody; autoAssignAlerts: boolean },
): StoredDoc {
  const stored = getCheck(store, accountId, options.id, options.variant);
  const { body } = options;
  if (body['checkType'] !== undefined && body['checkType'] !== stored['checkType']) {
    throw invalid(`"checkType" cannot be changed from ${String(stored['checkType'])} to ${String(body['checkType'])}; create a new check instead`, ['checkType']);
  }
  assertReferences(store, accountId, body);
  const merged = mergeUpdate(stored, body);
  keepPingToken(stored, merged);
  // The schema checks the offset only when a PUT sends both values; the merged record decides.
  const frequency = merged['frequency'] as number;
  const offset = merged['frequencyOffset'] as number;
  const problem = frequencyOffsetProblem(frequency, offset, frequencyOffsetKind(merged['checkType']));
  if (problem !== undefined) {
    if (body['frequencyOffset'] !== undefined) throw invalid(problem, ['frequencyOffset']);
    // An offset the caller never chose is re-assigned to fit the new frequency.
    merged['frequencyOffset'] = assignFrequencyOffset(String(stored.id), frequency);
  }
  merged['alertChannelSubscriptions'] = resolveSubscriptions(store, accountId, {
    sent: (merged['alertChannelSubscriptions'] as AlertChannelSubscription[] | undefined) ?? [],
    autoAssignAlerts: options.autoAssignAlerts,
    newCheck: false,
  });
  merged['updated_at'] = new Date().toISOString();
  store.checks.replace(accountId, merged);
  indexSubscriptions(store, accountId, 'check', merged);
  return merged;
}

/** `incidents`: where the incident the check has open is resolved (`Repositories.deletedCheckIncidents`). */
export function deleteCheck(store: Store, incidents: Pick<CheckIncidents, 'checkDeleted'>, accountId: string, id: string): void {
  const check = store.checks.get(accountId, id);
  if (!check || !store.checks.remove(accountId, id)) throw notFound('Check', id);
  store.subscriptions.set(accountId, 'check', id, []);
  // Nothing runs the check any more to resolve an incident it opened: resolved here, in the deletion's transaction.
  incidents.checkDeleted(accountId, check, Date.now());
}

export { checkFilters } from '../store/sqlite/check-filters.js';

/**
 * Response shape of stored checks: `alertChannels` summary added, secret values hidden, and the
 * `heartbeat.pingUrl` of heartbeat monitors under `pingBase` (the service's public URL,
 * ../heartbeats/ping-urls.ts; none when unknown).
 */
export function presentChecks(store: Store, accountId: string, docs: readonly StoredDoc[], pingBase?: string): StoredDoc[] {
  if (docs.length === 0) return [];
  const channels = new Map(store.alertChannels.all(accountId).map((channel) => [channel.id as number, channel]));
  return docs.map((doc) => ({
    ...withPingUrl(hideSecretValues(doc), pingBase),
    alertChannels: summarizeChannels(channels, (doc['alertChannelSubscriptions'] as AlertChannelSubscription[] | undefined) ?? []),
  }));
}

export function presentCheck(store: Store, accountId: string, doc: StoredDoc, pingBase?: string): StoredDoc {
  return presentChecks(store, accountId, [doc], pingBase)[0]!;
}

/** The spliced-in tail of a check without activated channels, the common case (Vigil never auto-assigns). */
const NO_CHANNELS_TAIL = `,"alertChannels":${JSON.stringify(summarizeChannels(new Map(), []))}}`;

/**
 * A page of checks as response text: `alertChannels` is spliced into each stored document's JSON
 * (from the subscription index), so documents are parsed only when they hold secret variables.
 * Relies on stored documents being JSON objects written by `JSON.stringify` (ending in `}`).
 */
export function presentCheckPage(store: Store, accountId: string, request: PageRequest, pingBase?: string): Page<RawJson> | SerializedPage {
  const channels = new Map(store.alertChannels.all(accountId).map((channel) => [channel.id as number, channel]));
  if (channels.size === 0) {
    // The common case: one tail for every check, so SQLite serialises the page unless it holds a
    // check with secret values.
    const spliced = store.checks.pageSpliced(accountId, request, NO_CHANNELS_TAIL, 'has_secret');
    // A page holding a heartbeat monitor is presented below instead, for its pingUrl: one scan of
    // the bytes, and no stored flag that a change of the service's URL would leave wrong.
    if (spliced && !(pingBase !== undefined && spliced.json.includes(HEARTBEAT_TYPE_TEXT))) {
      return new SerializedPage(new JsonBytes(spliced.json), spliced.count, spliced.total);
    }
    // Every summary is empty, so the ids (only needed to look subscriptions up) are not read.
    const { items, total } = store.checks.pageText(accountId, request);
    return { items: items.map((doc) => presentStoredCheck(store, accountId, doc, NO_CHANNELS_TAIL, pingBase)), total };
  }
  const { items, total } = store.checks.pageRows(accountId, request);
  if (items.length === 0) return { items: [], total };
  const subscriptions = store.subscriptions.ofOwners(accountId, 'check', items.map((row) => row.id));
  // Checks of one page mostly share their subscriptions, so each distinct summary is rendered once.
  const tails = new Map<string, string>();
  const presented = items.map((row) => {
    const subscribed = subscriptions.get(row.id);
    if (subscribed === undefined) return presentStoredCheck(store, accountId, row.doc, NO_CHANNELS_TAIL, pingBase);
    const key = subscribed.map((subscription) => `${subscription.alertChannelId}${subscription.activated ? '+' : '-'}`).join(',');
    const tail = tails.get(key) ?? `,"alertChannels":${JSON.stringify(summarizeChannels(channels, subscribed))}}`;
    tails.set(key, tail);
    return presentStoredCheck(store, accountId, row.doc, tail, pingBase);
  });
  return { items: presented, total };
}

/** A stored check's JSON with `tail` (`,"alertChannels":...}`) in place of its closing brace. */
function presentStoredCheck(store: Store, accountId: string, doc: string, tail: string, pingBase: string | undefined): RawJson {
  if (doc.includes('"secret":true') || (pingBase !== undefined && doc.includes(HEARTBEAT_TYPE_TEXT))) {
    return new RawJson(JSON.stringify(presentChecks(store, accountId, [JSON.parse(doc) as StoredDoc], pingBase)[0]));
  }
  return new RawJson(doc.slice(0, -1), tail);
}
