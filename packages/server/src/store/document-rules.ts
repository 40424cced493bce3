/**
 * The checks of the documents port's input (document-ports.ts), worded once for every engine, and the
 * matching rules an engine cannot leave to its SQL dialect.
 */
import { CHECK_RUN_STATES, DOCUMENT_ID_KINDS, DOCUMENT_KINDS, MAX_DOCUMENTS_READ_AT_ONCE, type DocumentId, type DocumentKind, type DocumentPageRequest, type ResourceDocument } from './document-ports.js';
import { moment, positive, shown, StoreInputError, text } from './port-rules.js';

export function checkDocumentKind(kind: unknown): asserts kind is DocumentKind {
  if (!(DOCUMENT_KINDS as readonly unknown[]).includes(kind)) {
    throw new StoreInputError(`kind must be one of ${DOCUMENT_KINDS.join(', ')}, got ${shown(kind)}`);
  }
}

export function checkDocumentKey(kind: unknown, accountId: unknown, id: unknown): asserts kind is DocumentKind {
  checkDocumentKind(kind);
  text('accountId', accountId);
  checkDocumentId(kind, id);
}

function checkDocumentId(kind: DocumentKind, id: unknown): void {
  const valid = DOCUMENT_ID_KINDS[kind] === 'integer' ? typeof id === 'number' && Number.isSafeInteger(id) && id >= 1 : typeof id === 'string' && id.length > 0 && id.length <= 255;
  if (!valid) throw new StoreInputError(`id of ${kind} must be ${DOCUMENT_ID_KINDS[kind] === 'integer' ? 'a whole number of at least 1' : 'a string of 1 to 255 characters'}, got ${shown(id)}`);
}

/** The ids of one `getMany`: a list of at most MAX_DOCUMENTS_READ_AT_ONCE ids of the kind. */
export function checkDocumentKeys(kind: unknown, accountId: unknown, ids: unknown): asserts kind is DocumentKind {
  checkDocumentKind(kind);
  text('accountId', accountId);
  if (!Array.isArray(ids)) throw new StoreInputError(`ids must be a list, got ${shown(ids)}`);
  if (ids.length > MAX_DOCUMENTS_READ_AT_ONCE) throw new StoreInputError(`ids must be a list of at most ${MAX_DOCUMENTS_READ_AT_ONCE}, got ${ids.length} ids`);
  for (const id of ids) checkDocumentId(kind, id);
}

/** A document to store: a JSON object whose `id` is one of its kind. */
export function checkDocument(kind: DocumentKind, doc: unknown): asserts doc is ResourceDocument {
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) throw new StoreInputError(`a document of ${kind} must be a JSON object, got ${Array.isArray(doc) ? 'an array' : shown(doc)}`);
  checkDocumentId(kind, (doc as { id?: unknown }).id);
}

/** A document stored under the id its writer chose: only kinds whose ids are UUIDs take one. */
export function checkChosenIdDocument(kind: unknown, accountId: unknown, doc: unknown): asserts doc is ResourceDocument {
  checkDocumentKind(kind);
  text('accountId', accountId);
  if (DOCUMENT_ID_KINDS[kind] !== 'uuid') throw new StoreInputError(`ids of ${kind} are counted by the store; only ${DOCUMENT_KINDS.filter((each) => DOCUMENT_ID_KINDS[each] === 'uuid').join(' and ')} take a chosen id`);
  checkDocument(kind, doc);
}

/** `insertUnlessAny`'s kinds and limit: a kind whose id the store makes (a UUID), and a whole number of the other kind's documents. */
export function checkInsertUnless(kind: unknown, accountId: unknown, unless: unknown, limit: unknown): void {
  checkDocumentKind(kind);
  text('accountId', accountId);
  if (DOCUMENT_ID_KINDS[kind] !== 'uuid') throw new StoreInputError(`insertUnlessAny makes a UUID id; ids of ${kind} are counted by the store`);
  checkDocumentKind(unless);
  if (typeof limit !== 'number' || !Number.isSafeInteger(limit) || limit < 1) throw new StoreInputError(`limit must be a whole number of at least 1, got ${shown(limit)}`);
}

/** The document `build` made around the id allocated for it. */
export function checkBuiltDocument(kind: DocumentKind, id: DocumentId, doc: unknown): asserts doc is ResourceDocument {
  checkDocument(kind, doc);
  if (doc.id !== id) throw new StoreInputError(`the document built for ${kind} ${JSON.stringify(id)} has id ${JSON.stringify(doc.id)}`);
}

export function checkPageRequest(kind: DocumentKind, accountId: unknown, request: DocumentPageRequest): void {
  text('accountId', accountId);
  positive('limit', request.limit);
  positive('page', request.page);
  if (request.tags !== undefined && (!Array.isArray(request.tags) || request.tags.some((tag) => typeof tag !== 'string'))) {
    throw new StoreInputError(`tags must be a list of strings, got ${shown(request.tags)}`);
  }
  for (const field of ['nameContains', 'checkType', 'apiUrlContains'] as const) {
    const value = request[field];
    if (value !== undefined && typeof value !== 'string') throw new StoreInputError(`${field} must be a string, got ${shown(value)}`);
  }
  if (request.groupId !== undefined) positive('groupId', request.groupId);
  if (request.serviceId !== undefined) text('serviceId', request.serviceId, 255);
  if (request.state !== undefined && !(CHECK_RUN_STATES as readonly unknown[]).includes(request.state)) {
    throw new StoreInputError(`state must be one of ${CHECK_RUN_STATES.join(', ')}, got ${shown(request.state)}`);
  }
  for (const field of ['checkType', 'apiUrlContains', 'groupId', 'serviceId', 'state'] as const) {
    if (request[field] !== undefined && kind !== 'checks') throw new StoreInputError(`${field} filters checks only, not ${kind}`);
  }
}

/** A spliced page's tail: the text that takes each check's closing brace's place. */
export function checkSplicedTail(tail: unknown): void {
  if (typeof tail !== 'string' || !tail.endsWith('}')) throw new StoreInputError(`tail must be text ending in "}", got ${shown(tail)}`);
}

export function checkPageAfter(accountId: unknown, afterSeq: unknown, limit: unknown): void {
  text('accountId', accountId);
  checkCursor(afterSeq, limit);
}

/** A page by cursor: after a `seq` (0 for the first page), `limit` documents at most. */
export function checkCursor(afterSeq: unknown, limit: unknown): void {
  if (typeof afterSeq !== 'number' || !Number.isSafeInteger(afterSeq) || afterSeq < 0) {
    throw new StoreInputError(`afterSeq must be a whole number of at least 0, got ${shown(afterSeq)}`);
  }
  positive('limit', limit);
}

export function checkSubscriptionOwner(accountId: unknown, ownerKind: unknown, ownerId: unknown): void {
  text('accountId', accountId);
  if (ownerKind !== 'check' && ownerKind !== 'group') throw new StoreInputError(`ownerKind must be "check" or "group", got ${shown(ownerKind)}`);
  text('ownerId', ownerId, 255);
}

export function checkChannelSubscriptions(subscriptions: unknown): void {
  if (!Array.isArray(subscriptions)) throw new StoreInputError(`subscriptions must be a list, got ${shown(subscriptions)}`);
  subscriptions.forEach((subscription: { alertChannelId?: unknown; activated?: unknown } | null, index) => {
    positive(`subscriptions[${index}].alertChannelId`, subscription?.alertChannelId);
    if (typeof subscription?.activated !== 'boolean') throw new StoreInputError(`subscriptions[${index}].activated must be true or false, got ${shown(subscription?.activated)}`);
  });
}

export function checkFeedRead(position: unknown, limit: unknown): void {
  if (typeof position !== 'number' || !Number.isSafeInteger(position) || position < 0) {
    throw new StoreInputError(`position must be a whole number of at least 0, got ${shown(position)}`);
  }
  positive('limit', limit);
}

export function checkPruneChanges(beforeMs: unknown): void {
  moment('beforeMs', beforeMs);
}

/** The public id as the tables keep it (text), and back. */
export function idText(id: DocumentId): string {
  return String(id);
}

/**
 * ASCII letters only, as SQLite's `lower` (without ICU): both engines then find the same documents for
 * a search, whatever the database's locale.
 */
export function asciiLower(value: string): string {
  return value.replace(/[A-Z]+/g, (letters) => letters.toLowerCase());
}
