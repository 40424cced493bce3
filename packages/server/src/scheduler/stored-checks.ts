/**
 * The scheduler's copy of what it schedules from: every account's checks and groups, and the
 * maintenance windows that pause checks, kept up to date through the documents port's change feed,
 * which every replica on the database writes to. So a check created, changed or deleted through any
 * replica is run (or no longer run) by every scheduler, on SQLite and on PostgreSQL alike.
 *
 * - Read in full once (and again only when the feed was pruned past this copy's position: a process
 *   stopped or stuck for longer than the feed keeps its entries), a page of stored texts at a time.
 * - Then followed: every `refreshMs` one small query asks for the feed's latest position; only when it
 *   moved are the changes read and, of those, only the documents that changed, up to a thousand of an
 *   account in one read (`getMany`). A bulk `apply` of thousands of checks while 10,000 run costs a
 *   few queries, not a read per changed check nor a re-read of all.
 * - A document whose stored text is unchanged keeps its parsed copy: a full read parses only what
 *   changed since the last one.
 * - A copy that failed to come up to date keeps its position and tries again at the next follow, so a
 *   database that was away for a while loses no change.
 */
import type { MaintenanceWindowLike } from '../alerting/maintenance.js';
import { DOCUMENT_ID_KINDS, MAX_DOCUMENTS_READ_AT_ONCE, type AccountStoredText, type DocumentKind, type ResourceDocument, type ResourceDocuments } from '../store/document-ports.js';

/** A stored check or group: its text (to tell whether it changed) and the document parsed once. */
export interface StoredDocument {
  readonly accountId: string;
  readonly id: string;
  readonly text: string;
  readonly doc: Record<string, unknown>;
}

/** What a follow changed: everything (a full read), or the checks (by key) whose check or group changed. */
export type FollowedChanges = 'all' | ReadonlySet<string>;

/** Documents per page of a full read, and feed entries per read of the feed. */
const PAGE = 1000;

/** The key of a document in the copy's maps: its account and id. */
export function keyOf(accountId: string, id: string): string {
  return `${accountId}\n${id}`;
}

/** What the copy reads through the documents port. */
export type FollowedDocuments = Pick<ResourceDocuments, 'everyAccountAfter' | 'getMany' | 'pageAfter' | 'latestPosition' | 'changesSince'>;

export class StoredChecks {
  readonly #documents: FollowedDocuments;
  readonly #refreshMs: number;
  #checks = new Map<string, StoredDocument>();
  #groups = new Map<string, StoredDocument>();
  /** Per account, its windows with `pauseAllChecks` (most accounts: none, and no entry). */
  #pausing = new Map<string, MaintenanceWindowLike[]>();
  /** The feed position the copy reflects; undefined until the first full read. */
  #position: number | undefined;
  #polledAt = Number.NEGATIVE_INFINITY;

  /** `refreshMs`: how often the feed's position is asked for (0: at every follow). */
  constructor(documents: FollowedDocuments, refreshMs: number) {
    this.#documents = documents;
    this.#refreshMs = refreshMs;
  }

  /** Every stored check, scheduled or not (a deactivated group's checks come back when it does). */
  get checks(): ReadonlyMap<string, StoredDocument> {
    return this.#checks;
  }

  check(key: string): StoredDocument | undefined {
    return this.#checks.get(key);
  }

  group(accountId: string, groupId: unknown): StoredDocument | undefined {
    return groupId === null || groupId === undefined ? undefined : this.#groups.get(keyOf(accountId, String(groupId)));
  }

  /** The account's maintenance windows that pause checks. */
  pausingWindows(accountId: string): readonly MaintenanceWindowLike[] {
    return this.#pausing.get(accountId) ?? [];
  }

  /** Brings the copy up to date with the database, reading as little as it can; resolves to what changed. */
  async follow(nowMs: number): Promise<FollowedChanges> {
    if (this.#position === undefined) return this.#readAll(nowMs);
    if (nowMs - this.#polledAt < this.#refreshMs) return NOTHING;
    this.#polledAt = nowMs;
    // One small query while nothing changed, which is nearly always.
    if ((await this.#documents.latestPosition()) <= this.#position) return NOTHING;
    const checks = new Map<string, { accountId: string; id: string }>();
    const groups = new Map<string, { accountId: string; id: string }>();
    const windowAccounts = new Set<string>();
    let position = this.#position;
    for (;;) {
      const batch = await this.#documents.changesSince(position, PAGE);
      if (batch.reset) return this.#readAll(nowMs);
      for (const { kind, accountId, id } of batch.changes) {
        if (kind === 'checks') checks.set(keyOf(accountId, id), { accountId, id });
        else if (kind === 'check_groups') groups.set(keyOf(accountId, id), { accountId, id });
        else if (kind === 'maintenance_windows') windowAccounts.add(accountId);
      }
      position = batch.position;
      if (batch.changes.length < PAGE) break;
    }
    // Everything read before anything changes here: a read that fails leaves the copy and its position as they were.
    const [readChecks, readGroups] = await Promise.all([this.#readEach('checks', checks.values()), this.#readEach('check_groups', groups.values())]);
    const windows = new Map<string, MaintenanceWindowLike[]>();
    for (const accountId of windowAccounts) windows.set(accountId, await this.#pausingWindowsOf(accountId));
    const changed = new Set<string>();
    for (const { key, read } of readChecks) {
      if (this.#replace(this.#checks, key, read)) changed.add(key);
    }
    const changedGroups = new Set(readGroups.filter(({ key, read }) => this.#replace(this.#groups, key, read)).map(({ key }) => key));
    if (changedGroups.size > 0) {
      for (const [key, stored] of this.#checks) if (changedGroups.has(keyOf(stored.accountId, String(stored.doc.groupId)))) changed.add(key);
    }
    for (const [accountId, pausing] of windows) this.#setPausing(this.#pausing, accountId, pausing);
    this.#position = position;
    return changed;
  }

  /** Everything read again, a page at a time; a document whose text is unchanged keeps its parsed copy. */
  async #readAll(nowMs: number): Promise<'all'> {
    // The position first: a write between it and the reads is read twice, never missed.
    const position = await this.#documents.latestPosition();
    const groupTexts = await this.#everyDocument('check_groups');
    const windowTexts = await this.#everyDocument('maintenance_windows');
    const checkTexts = await this.#everyDocument('checks');
    this.#groups = reused(this.#groups, groupTexts);
    this.#checks = reused(this.#checks, checkTexts);
    const pausing = new Map<string, MaintenanceWindowLike[]>();
    for (const row of windowTexts) {
      const window = JSON.parse(row.text) as MaintenanceWindowLike;
      if (window.pauseAllChecks === true) this.#setPausing(pausing, row.accountId, [...(pausing.get(row.accountId) ?? []), window]);
    }
    this.#pausing = pausing;
    this.#position = position;
    this.#polledAt = nowMs;
    return 'all';
  }

  async #everyDocument(kind: DocumentKind): Promise<AccountStoredText[]> {
    const all: AccountStoredText[] = [];
    for (let page = await this.#documents.everyAccountAfter(kind, 0, PAGE); ; page = await this.#documents.everyAccountAfter(kind, page.at(-1)!.seq, PAGE)) {
      all.push(...page);
      if (page.length < PAGE) return all;
    }
  }

  /**
   * The documents as they are now (a deleted one: no text), an account's up to a thousand in one read,
   * one read after another: a bulk apply's thousands of changes are a few statements, never a burst on
   * the pool. Only a document whose text changed is parsed.
   */
  async #readEach(kind: 'checks' | 'check_groups', keys: Iterable<{ accountId: string; id: string }>): Promise<Array<{ key: string; read: StoredDocument | undefined }>> {
    const idsByAccount = new Map<string, string[]>();
    for (const { accountId, id } of keys) {
      const ids = idsByAccount.get(accountId);
      if (ids === undefined) idsByAccount.set(accountId, [id]);
      else ids.push(id);
    }
    const known = kind === 'checks' ? this.#checks : this.#groups;
    const read: Array<{ key: string; read: StoredDocument | undefined }> = [];
    for (const [accountId, ids] of idsByAccount) {
      for (let start = 0; start < ids.length; start += MAX_DOCUMENTS_READ_AT_ONCE) {
        const chunk = ids.slice(start, start + MAX_DOCUMENTS_READ_AT_ONCE);
        const texts = await this.#documents.getMany(kind, accountId, chunk.map((id) => (DOCUMENT_ID_KINDS[kind] === 'integer' ? Number(id) : id)));
        const textById = new Map(texts.map((row) => [row.id, row.text]));
        for (const id of chunk) {
          const key = keyOf(accountId, id);
          const text = textById.get(id);
          const previous = known.get(key);
          read.push({ key, read: text === undefined ? undefined : previous !== undefined && previous.text === text ? previous : storedOf({ accountId, id, text }) });
        }
      }
    }
    return read;
  }

  async #pausingWindowsOf(accountId: string): Promise<MaintenanceWindowLike[]> {
    const pausing: MaintenanceWindowLike[] = [];
    for (let page = await this.#documents.pageAfter('maintenance_windows', accountId, 0, PAGE); ; page = await this.#documents.pageAfter('maintenance_windows', accountId, page.at(-1)!.seq, PAGE)) {
      for (const { doc } of page) if ((doc as ResourceDocument & MaintenanceWindowLike).pauseAllChecks === true) pausing.push(doc as ResourceDocument & MaintenanceWindowLike);
      if (page.length < PAGE) return pausing;
    }
  }

  /** Puts a read document in place of the copy's (or removes it); whether the copy changed. */
  #replace(map: Map<string, StoredDocument>, key: string, read: StoredDocument | undefined): boolean {
    if (read === undefined) return map.delete(key);
    if (map.get(key)?.text === read.text) return false;
    map.set(key, read);
    return true;
  }

  #setPausing(pausing: Map<string, MaintenanceWindowLike[]>, accountId: string, windows: MaintenanceWindowLike[]): void {
    if (windows.length > 0) pausing.set(accountId, windows);
    else pausing.delete(accountId);
  }
}

const NOTHING: ReadonlySet<string> = new Set();

function storedOf(row: Pick<AccountStoredText, 'accountId' | 'id' | 'text'>): StoredDocument {
  return { accountId: row.accountId, id: row.id, text: row.text, doc: JSON.parse(row.text) as Record<string, unknown> };
}

/** The rows as stored documents, each one whose text `previous` holds already taken from there unparsed. */
function reused(previous: ReadonlyMap<string, StoredDocument>, rows: readonly AccountStoredText[]): Map<string, StoredDocument> {
  const documents = new Map<string, StoredDocument>();
  for (const row of rows) {
    const key = keyOf(row.accountId, row.id);
    const known = previous.get(key);
    documents.set(key, known !== undefined && known.text === row.text ? known : storedOf(row));
  }
  return documents;
}
