/**
 * The resources accounts declare (checks, groups, alert channels, maintenance windows, status-page
 * services) as one port: JSON documents owned by accounts, and the change feed that tells every
 * replica which of them changed. Part of the storage ports (ports.ts), with an engine per database
 * and the same contract suite (contract/documents.test.ts).
 *
 * Documents are stored as the text they were written as, so a response built from one has the keys
 * in the order the service wrote them on every engine. Paging is by insertion order, oldest first.
 */

/** The collections of account-owned documents, named as their tables are. */
export const DOCUMENT_KINDS = ['checks', 'check_groups', 'alert_channels', 'maintenance_windows', 'services'] as const;
export type DocumentKind = (typeof DOCUMENT_KINDS)[number];

/**
 * How a kind's public ids are made: a UUID (version 7, so new ids sort after old ones) or an integer
 * counted per account, never handed out twice, since a deleted group's id must not come back as another
 * group, and one tenant's ids must say nothing about what other tenants create.
 */
export const DOCUMENT_ID_KINDS: Readonly<Record<DocumentKind, 'uuid' | 'integer'>> = {
  checks: 'uuid',
  check_groups: 'integer',
  alert_channels: 'integer',
  maintenance_windows: 'integer',
  services: 'uuid',
};

export type DocumentId = string | number;

/** The most ids one `ResourceDocuments.getMany` reads: a bound on one statement's parameters. */
export const MAX_DOCUMENTS_READ_AT_ONCE = 1000;

/** A stored resource: the document as the API returns it, with its public id. */
export type ResourceDocument = { readonly id: DocumentId } & Readonly<Record<string, unknown>>;

/**
 * Which documents a page holds; every condition given must hold. Matching is the same on every
 * engine: `nameContains` and `apiUrlContains` ignore the case of ASCII letters only (as SQLite's
 * `lower`), and `%` or `_` in them are plain characters.
 */
export interface DocumentQuery {
  /** Every one of these must be in the document's `tags`. */
  readonly tags?: readonly string[];
  /** Part of the document's `name`. */
  readonly nameContains?: string;
  /** Checks only: the check's `checkType`. */
  readonly checkType?: string;
  /** Checks only: an API check whose `request.url` contains this. */
  readonly apiUrlContains?: string;
  /** Checks only: the checks whose `groupId` is this group's id. */
  readonly groupId?: number;
  /** Checks only: the checks whose `triggerIncident.serviceId` is this status-page service's id. */
  readonly serviceId?: string;
  /**
   * Checks only: the checks whose latest run is in this state (their row in `check_statuses`, which
   * recording a run writes); a check that never ran has none, so no state matches it.
   */
  readonly state?: CheckRunState;
}

/** A check's latest run as the list's `status` filter names it. */
export const CHECK_RUN_STATES = ['passing', 'failing', 'degraded'] as const;
export type CheckRunState = (typeof CHECK_RUN_STATES)[number];

export interface DocumentPageRequest extends DocumentQuery {
  /** Documents per page, 1 or more. */
  readonly limit: number;
  /** 1 for the first page. */
  readonly page: number;
}

export interface DocumentPage {
  readonly items: ResourceDocument[];
  /** How many documents match the query, on every page. */
  readonly total: number;
}

/** A document as the text it was stored as, for a response built without parsing it. */
export interface StoredText {
  /** The public id as text. */
  readonly id: string;
  /** The document's JSON, as written (an object written by `JSON.stringify`, so it ends in `}`). */
  readonly text: string;
}

export interface TextPage {
  readonly items: StoredText[];
  readonly total: number;
}

/** A page the database wrote as one JSON array (`ResourceDocuments.splicedCheckPage`). */
export interface SplicedPage {
  /** UTF-8 JSON array text. */
  readonly json: Buffer;
  /** How many documents it holds. */
  readonly count: number;
  /** How many documents match the query, on every page. */
  readonly total: number;
}

/** What `insertUnlessAny` did: stored the document, or found the account's documents of the other kind (up to the limit). */
export type InsertedUnless = { readonly inserted: ResourceDocument } | { readonly present: ResourceDocument[] };

/** A document with its place in its kind's insertion order, which a list paged by cursor goes on from. */
export interface SequencedDocument {
  /** Higher for documents stored later; a positive whole number, never reused. */
  readonly seq: number;
  readonly doc: ResourceDocument;
}

/** A document of any account as the text it was stored as, with its place in its kind's insertion order. */
export interface AccountStoredText extends StoredText {
  readonly seq: number;
  readonly accountId: string;
}

/** One write to a document: it was created, replaced or deleted (read it to know which). */
export interface DocumentChange {
  /** The change's position in the feed; later writes have higher positions. */
  readonly position: number;
  readonly kind: DocumentKind;
  readonly accountId: string;
  /** The public id as text. */
  readonly id: string;
}

export interface ChangeBatch {
  /** Oldest first, at most the limit asked for. */
  readonly changes: DocumentChange[];
  /** Where to ask from next: the last change's position, or the position asked from when none. */
  readonly position: number;
  /**
   * The feed no longer reaches back to the position asked from (pruned): the reader must read the
   * documents it follows again in full, and go on from `position`.
   */
  readonly reset: boolean;
}

export interface ResourceDocuments {
  /**
   * Allocates the public id, lets `build` make the document around it (its `id` must be that id) and
   * stores it; resolves to the document as stored.
   */
  insert(kind: DocumentKind, accountId: string, build: (id: DocumentId) => ResourceDocument): Promise<ResourceDocument>;
  /**
   * Stores `doc` under the id it carries, for a caller that must choose ids (`--seed`, whose results
   * and pages name their checks and services): resolves to false, storing nothing, when a document of
   * `kind` has that id, in any account (ids of these kinds are unique across the service on SQLite).
   * Only for kinds with UUID ids (checks, services): an integer id chosen here could later be counted
   * out again by `insert`.
   */
  insertWithId(kind: DocumentKind, accountId: string, doc: ResourceDocument): Promise<boolean>;
  /**
   * `insert`, unless the account has documents of `unless`: then nothing is stored and the first
   * `limit` of them come back, oldest first. For a document built from those others when there are
   * some (a check's subscriptions follow the account's alert channels): the look and the write are
   * one round trip when there are none, and when there are some the look was the read the caller
   * needed anyway. Only for kinds with UUID ids (checks, services), whose id is made, not counted.
   */
  insertUnlessAny(kind: DocumentKind, accountId: string, build: (id: DocumentId) => ResourceDocument, unless: DocumentKind, limit: number): Promise<InsertedUnless>;
  /** The document, or undefined; another account's id reads as missing. */
  get(kind: DocumentKind, accountId: string, id: DocumentId): Promise<ResourceDocument | undefined>;
  /**
   * The account's documents of `kind` among `ids` (at most MAX_DOCUMENTS_READ_AT_ONCE), each as its
   * stored text, in no particular order; an id with no document in the account is left out, and one
   * given twice is read once. One statement for a reader that learned of many changed documents at
   * once (the scheduler after a bulk apply), instead of a `get` per document.
   */
  getMany(kind: DocumentKind, accountId: string, ids: readonly DocumentId[]): Promise<StoredText[]>;
  /** Stores `doc` in place of the document with its id; false when there is none in the account. */
  replace(kind: DocumentKind, accountId: string, doc: ResourceDocument): Promise<boolean>;
  /** Deletes the document; false when there was none in the account. */
  remove(kind: DocumentKind, accountId: string, id: DocumentId): Promise<boolean>;
  /** One page of the account's documents of `kind` that match, oldest first, with the total. */
  page(kind: DocumentKind, accountId: string, request: DocumentPageRequest): Promise<DocumentPage>;
  /** As `page`, with each document as its stored text and id, never parsed. */
  pageText(kind: DocumentKind, accountId: string, request: DocumentPageRequest): Promise<TextPage>;
  /**
   * A page of checks as one JSON array the database writes, with `tail` in place of each stored
   * check's closing brace (`,"extra":…}`), so a list is answered without a string per check in the
   * JavaScript heap. Undefined when a check of the page holds a secret value (its response is not
   * its stored text: the caller presents the page itself).
   */
  splicedCheckPage(accountId: string, request: DocumentPageRequest, tail: string): Promise<SplicedPage | undefined>;
  /**
   * Up to `limit` of the account's documents of `kind` stored after `afterSeq` (0: from the first),
   * oldest first: paging by cursor, so a document created or deleted meanwhile never makes a later
   * page skip or repeat one.
   */
  pageAfter(kind: DocumentKind, accountId: string, afterSeq: number, limit: number): Promise<SequencedDocument[]>;
  /**
   * As `pageAfter` across every account, each document as its stored text, never parsed: a reader
   * that follows every account's documents (the scheduler) reads them all once by cursor, then keeps
   * up through the change feed, and parses only the documents whose text changed.
   */
  everyAccountAfter(kind: DocumentKind, afterSeq: number, limit: number): Promise<AccountStoredText[]>;
  /**
   * The feed's latest position. A reader that starts following takes it first, then reads what it
   * follows in full, then asks for changes after it: a write between the two is seen twice, never lost.
   */
  latestPosition(): Promise<number>;
  /**
   * Writes after `position`, in the order they committed, across every replica. A write is in the feed
   * once it has committed, and no write with a lower position can appear after a higher one was read.
   */
  changesSince(position: number, limit: number): Promise<ChangeBatch>;
  /** Drops feed entries written before `beforeMs`; resolves to how many. Readers behind them get a reset. */
  pruneChanges(beforeMs: number): Promise<number>;
}
