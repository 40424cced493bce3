/**
 * Checks: what the service adds and enforces beyond the request schemas — references to groups,
 * channels and services, the assigned `frequencyOffset`, merge on PUT, secrets hidden on the way out,
 * and the alert-subscription index. Written over the storage ports a route's unit of work hands in
 * (`tx`), so each write is one transaction on every engine: the check, its subscription index and the
 * Idempotency-Key response. The `--seed` loader creates its checks here too, under the ids it names.
 */
import { createHash } from 'node:crypto';
import { frequencyOffsetKind, frequencyOffsetProblem, maxFrequencyOffset } from '@vigil/schema';
import { conflict, invalid, notFound } from './errors.js';
import { JsonBytes, RawJson, SerializedPage } from './json-text.js';
import type { AlertChannelSubscription, Page, StoredDoc } from '../store/index.js';
import type { CheckRunState, DocumentPageRequest, ResourceDocument } from '../store/document-ports.js';
import type { TransactionPorts } from '../store/ports.js';
import type { CheckVariant } from './check-variants.js';
import { summarizeChannels } from './alerting.js';
import { hideSecretValues, mergeUpdate, nullsForAbsent } from './documents.js';
import { heartbeatOnCreate, keepPingToken } from '../heartbeats/tokens.js';
import { HEARTBEAT_TYPE_TEXT, withPingUrl } from '../heartbeats/ping-urls.js';

export type { CheckVariant } from './check-variants.js';

type CheckBody = Record<string, unknown>;
/** What the check aggregate reads and writes: documents and the alert-subscription index. */
export type CheckPorts = Pick<TransactionPorts, 'documents' | 'alertSubscriptions'>;

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

/** Documents read per page when the aggregate needs all of an account's alert channels. */
const READ_ALL_PAGE = 500;

/** Integer ids the ports accept; any other id names no document (the ports would refuse it as a bug). */
function isDocumentNumber(id: unknown): id is number {
  return typeof id === 'number' && Number.isSafeInteger(id) && id >= 1;
}

/** Text ids (checks, services) the ports accept; any other names no document. */
function isDocumentText(id: unknown): id is string {
  return typeof id === 'string' && id.length > 0 && id.length <= 255;
}

/** The account's alert channels, oldest first. */
async function allChannels(tx: CheckPorts, accountId: string): Promise<StoredDoc[]> {
  const all: ResourceDocument[] = [];
  for (let page = 1; ; page++) {
    const { items, total } = await tx.documents.page('alert_channels', accountId, { limit: READ_ALL_PAGE, page });
    all.push(...items);
    if (items.length === 0 || all.length >= total) return all as StoredDoc[];
  }
}

/**
 * The account's alert channels by id (oldest first), read once per request: a create needs them for
 * the channels that subscribe new checks and again for the response's summary. Check writes never
 * change channels, so the first read stays right for the rest of the request.
 */
export class AccountChannels {
  readonly #tx: CheckPorts;
  readonly #accountId: string;
  #byId: Promise<ReadonlyMap<number, StoredDoc>> | undefined;

  constructor(tx: CheckPorts, accountId: string) {
    this.#tx = tx;
    this.#accountId = accountId;
  }

  byId(): Promise<ReadonlyMap<number, StoredDoc>> {
    this.#byId ??= allChannels(this.#tx, this.#accountId).then((channels) => new Map(channels.map((channel) => [channel.id as number, channel])));
    return this.#byId;
  }

  /** Whether the channels were read (or told) already. */
  get known(): boolean {
    return this.#byId !== undefined;
  }

  /** Every channel of the account, read by the caller in the request's unit: no read of its own then. */
  tell(channels: readonly ResourceDocument[]): void {
    this.#byId ??= Promise.resolve(new Map(channels.map((channel) => [channel.id as number, channel as StoredDoc])));
  }
}

/** The group, the channels and the status-page service a check names must exist (400 naming the field). */
async function assertReferences(tx: CheckPorts, accountId: string, body: CheckBody): Promise<void> {
  const groupId = body['groupId'];
  if (typeof groupId === 'number' && !(isDocumentNumber(groupId) && (await tx.documents.get('check_groups', accountId, groupId)))) {
    throw invalid(`"groupId" references check group ${groupId}, which does not exist`, ['groupId']);
  }
  const subscriptions = body['alertChannelSubscriptions'] as AlertChannelSubscription[] | undefined;
  for (const [index, subscription] of (subscriptions ?? []).entries()) {
    const id = subscription.alertChannelId;
    if (!isDocumentNumber(id) || !(await tx.documents.get('alert_channels', accountId, id))) {
      throw invalid(`"alertChannelSubscriptions[${index}].alertChannelId" references alert channel ${id}, which does not exist`, [`alertChannelSubscriptions.${index}.alertChannelId`]);
    }
  }
  const trigger = body['triggerIncident'] as { serviceId?: string } | null | undefined;
  if (trigger?.serviceId !== undefined && !(isDocumentText(trigger.serviceId) && (await tx.documents.get('services', accountId, trigger.serviceId)))) {
    throw invalid(`"triggerIncident.serviceId" references status-page service ${trigger.serviceId}, which does not exist`, ['triggerIncident.serviceId']);
  }
}

/**
 * The subscriptions a check ends up with: the ones sent (or kept), plus every channel of the account
 * when `autoAssignAlerts` is true, plus — for a new check — every channel with `autoSubscribe`. A
 * channel already listed keeps its sent `activated` value. As domain/alerting.ts resolves them.
 */
async function resolveSubscriptions(
  channels: AccountChannels,
  options: { sent: readonly AlertChannelSubscription[]; autoAssignAlerts: boolean; newCheck: boolean },
): Promise<AlertChannelSubscription[]> {
  const result = options.sent.map((subscription) => ({ alertChannelId: subscription.alertChannelId, activated: subscription.activated }));
  if (!options.autoAssignAlerts && !options.newCheck) return result;
  const listed = new Set(result.map((subscription) => subscription.alertChannelId));
  for (const [id, channel] of await channels.byId()) {
    if (listed.has(id)) continue;
    if (options.autoAssignAlerts || (options.newCheck && channel['autoSubscribe'] === true)) {
      result.push({ alertChannelId: id, activated: true });
      listed.add(id);
    }
  }
  return result;
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

/** The stored document of a new check with the id allocated for it. */
function newCheckDocument(
  id: string | number,
  options: { variant: CheckVariant; body: CheckBody; alertChannelSubscriptions: AlertChannelSubscription[]; now: string },
): StoredDoc {
  const { body, variant } = options;
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
    alertChannelSubscriptions: options.alertChannelSubscriptions,
    created_at: options.now,
    updated_at: null,
  } as StoredDoc;
}

/**
 * `channels`: the account's, over `tx`; the caller presents the check with the same, so they are read
 * once. `id`: the id a `--seed` file names (the routes let the store allocate it); a 409 when taken.
 */
export async function createCheck(
  tx: CheckPorts,
  accountId: string,
  options: { variant: CheckVariant; body: CheckBody; autoAssignAlerts: boolean; channels: AccountChannels; id?: string },
): Promise<StoredDoc> {
  const { body } = options;
  await assertReferences(tx, accountId, body);
  const sent = (body['alertChannelSubscriptions'] as AlertChannelSubscription[] | undefined) ?? [];
  // An account without alert channels subscribes a new check to none, whatever autoAssignAlerts
  // says: the check is stored in the statement that finds there are none (one round trip fewer on
  // PostgreSQL). When there are some, that statement read them, and the check is built from them.
  if (options.id === undefined && sent.length === 0 && !options.channels.known) {
    const now = new Date().toISOString();
    const stored = await tx.documents.insertUnlessAny('checks', accountId, (id) => newCheckDocument(id, { ...options, alertChannelSubscriptions: [], now }), 'alert_channels', READ_ALL_PAGE);
    if ('inserted' in stored) {
      options.channels.tell([]);
      return stored.inserted as StoredDoc;
    }
    if (stored.present.length < READ_ALL_PAGE) options.channels.tell(stored.present);
  }
  const alertChannelSubscriptions = await resolveSubscriptions(options.channels, {
    sent: (body['alertChannelSubscriptions'] as AlertChannelSubscription[] | undefined) ?? [],
    autoAssignAlerts: options.autoAssignAlerts,
    newCheck: true,
  });
  const now = new Date().toISOString();
  const doc = options.id === undefined
    ? ((await tx.documents.insert('checks', accountId, (id) => newCheckDocument(id, { ...options, alertChannelSubscriptions, now }))) as StoredDoc)
    : newCheckDocument(options.id, { ...options, alertChannelSubscriptions, now });
  if (options.id !== undefined && !(await tx.documents.insertWithId('checks', accountId, doc))) throw conflict(`Check ${options.id} already exists`);
  // A new id has no index rows yet, so only a check that subscribes needs the index written.
  if (alertChannelSubscriptions.length > 0) await tx.alertSubscriptions.replace(accountId, 'check', String(doc.id), alertChannelSubscriptions);
  return doc;
}

/** The stored check behind `id` for this call; a check of another type reads as missing. */
export async function getCheck(tx: CheckPorts, accountId: string, id: string, variant: CheckVariant = 'generic'): Promise<StoredDoc> {
  const doc = isDocumentText(id) ? ((await tx.documents.get('checks', accountId, id)) as StoredDoc | undefined) : undefined;
  if (!doc || (variant !== 'generic' && doc['checkType'] !== variant.checkType)) throw notFound(variant === 'generic' ? 'Check' : variant.label, id);
  return doc;
}

export async function updateCheck(
  tx: CheckPorts,
  accountId: string,
  options: { id: string; variant: CheckVariant; body: CheckBody; autoAssignAlerts: boolean; channels: AccountChannels },
): Promise<StoredDoc> {
  const stored = await getCheck(tx, accountId, options.id, options.variant);
  const { body } = options;
  if (body['checkType'] !== undefined && body['checkType'] !== stored['checkType']) {
    throw invalid(`"checkType" cannot be changed from ${String(stored['checkType'])} to ${String(body['checkType'])}; create a new check instead`, ['checkType']);
  }
  await assertReferences(tx, accountId, body);
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
  const subscriptions = await resolveSubscriptions(options.channels, {
    sent: (merged['alertChannelSubscriptions'] as AlertChannelSubscription[] | undefined) ?? [],
    autoAssignAlerts: options.autoAssignAlerts,
    newCheck: false,
  });
  merged['alertChannelSubscriptions'] = subscriptions;
  merged['updated_at'] = new Date().toISOString();
  await tx.documents.replace('checks', accountId, merged);
  await tx.alertSubscriptions.replace(accountId, 'check', String(stored.id), subscriptions);
  return merged;
}

/**
 * Deletes the check and its subscription index rows; resolves to the check as it was, whose open
 * incident the caller resolves in the same unit (alerting/incidents.ts `resolveDeletedCheckIncident`).
 */
export async function deleteCheck(tx: CheckPorts, accountId: string, id: string): Promise<StoredDoc> {
  const check = isDocumentText(id) ? ((await tx.documents.get('checks', accountId, id)) as StoredDoc | undefined) : undefined;
  if (!check || !(await tx.documents.remove('checks', accountId, id))) throw notFound('Check', id);
  await tx.alertSubscriptions.replace(accountId, 'check', id, []);
  return check;
}

/** The list's query as the documents port filters (`status` is the check's latest run's state). */
export function checkQuery(query: {
  tag?: string | string[] | undefined;
  checkType?: string | undefined;
  search?: string | undefined;
  apiCheckUrlFilterPattern?: string | undefined;
  status?: CheckRunState | undefined;
}): Omit<DocumentPageRequest, 'limit' | 'page'> {
  const tags = query.tag === undefined ? [] : Array.isArray(query.tag) ? query.tag : [query.tag];
  return {
    ...(tags.length > 0 ? { tags } : {}),
    ...(query.checkType !== undefined ? { checkType: query.checkType } : {}),
    ...(query.search ? { nameContains: query.search } : {}),
    ...(query.apiCheckUrlFilterPattern ? { apiUrlContains: query.apiCheckUrlFilterPattern } : {}),
    ...(query.status !== undefined ? { state: query.status } : {}),
  };
}

/**
 * Response shape of stored checks: `alertChannels` summary added, secret values hidden, and the
 * `heartbeat.pingUrl` of heartbeat monitors under `pingBase` (the service's public URL,
 * ../heartbeats/ping-urls.ts; none when unknown).
 */
function presentWith(channels: ReadonlyMap<number, StoredDoc>, doc: StoredDoc, pingBase: string | undefined): StoredDoc {
  return {
    ...withPingUrl(hideSecretValues(doc), pingBase),
    alertChannels: summarizeChannels(channels, (doc['alertChannelSubscriptions'] as AlertChannelSubscription[] | undefined) ?? []),
  };
}

/** No channels: the summary of a check without an activated subscription, which reads none. */
const NO_CHANNELS: ReadonlyMap<number, StoredDoc> = new Map();

export async function presentCheck(channels: AccountChannels, doc: StoredDoc, pingBase?: string): Promise<StoredDoc> {
  const subscriptions = (doc['alertChannelSubscriptions'] as AlertChannelSubscription[] | undefined) ?? [];
  return presentWith(subscriptions.some((subscription) => subscription.activated) ? await channels.byId() : NO_CHANNELS, doc, pingBase);
}

/** The spliced-in tail of a check without activated channels, the common case (Vigil never auto-assigns). */
const NO_CHANNELS_TAIL = `,"alertChannels":${JSON.stringify(summarizeChannels(NO_CHANNELS, []))}}`;

/**
 * A page of checks as response text: `alertChannels` is spliced into each stored document's JSON
 * (from the subscription index), so documents are parsed only when they hold secret variables.
 * Relies on stored documents being JSON objects written by `JSON.stringify` (ending in `}`).
 */
export async function presentCheckPage(tx: CheckPorts, accountId: string, request: DocumentPageRequest, pingBase?: string): Promise<Page<RawJson> | SerializedPage> {
  const channels = await new AccountChannels(tx, accountId).byId();
  if (channels.size === 0) {
    // The common case: one tail for every check, so the database serialises the page unless it holds
    // a check with secret values.
    const spliced = await tx.documents.splicedCheckPage(accountId, request, NO_CHANNELS_TAIL);
    // A page holding a heartbeat monitor is presented below instead, for its pingUrl: one scan of
    // the bytes, and no stored flag that a change of the service's URL would leave wrong.
    if (spliced && !(pingBase !== undefined && spliced.json.includes(HEARTBEAT_TYPE_TEXT))) {
      return new SerializedPage(new JsonBytes(spliced.json), spliced.count, spliced.total);
    }
    const { items, total } = await tx.documents.pageText('checks', accountId, request);
    return { items: items.map((item) => presentStoredCheck(channels, item.text, NO_CHANNELS_TAIL, pingBase)), total };
  }
  const { items, total } = await tx.documents.pageText('checks', accountId, request);
  if (items.length === 0) return { items: [], total };
  const subscriptions = await tx.alertSubscriptions.ofOwners(accountId, 'check', items.map((item) => item.id));
  // Checks of one page mostly share their subscriptions, so each distinct summary is rendered once.
  const tails = new Map<string, string>();
  const presented = items.map((item) => {
    const subscribed = subscriptions.get(item.id);
    if (subscribed === undefined) return presentStoredCheck(channels, item.text, NO_CHANNELS_TAIL, pingBase);
    const key = subscribed.map((subscription) => `${subscription.alertChannelId}${subscription.activated ? '+' : '-'}`).join(',');
    const tail = tails.get(key) ?? `,"alertChannels":${JSON.stringify(summarizeChannels(channels, subscribed))}}`;
    tails.set(key, tail);
    return presentStoredCheck(channels, item.text, tail, pingBase);
  });
  return { items: presented, total };
}

/** A stored check's JSON with `tail` (`,"alertChannels":...}`) in place of its closing brace. */
function presentStoredCheck(channels: ReadonlyMap<number, StoredDoc>, doc: string, tail: string, pingBase: string | undefined): RawJson {
  if (doc.includes('"secret":true') || (pingBase !== undefined && doc.includes(HEARTBEAT_TYPE_TEXT))) {
    return new RawJson(JSON.stringify(presentWith(channels, JSON.parse(doc) as StoredDoc, pingBase)));
  }
  return new RawJson(doc.slice(0, -1), tail);
}
