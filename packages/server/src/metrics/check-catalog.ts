/**
 * The checks as the metrics know them, kept between scrapes: per check its name, type, group and
 * tags (the labels of its `vigil_check_info` line), and the escaped `account` and `check_id` label
 * text every one of its series starts with. Parsing 10,000 check documents on every scrape cost
 * about 50 ms; here an account is read in full once, and then a scrape reads only the documents the
 * documents port's change feed says were written since, by this replica or another:
 * - the checks created, edited or deleted are read again (or dropped), an account's up to a
 *   thousand in one read (`getMany`), so a bulk apply of thousands of checks is a few statements,
 *   never a read per check (one round trip each on PostgreSQL) nor the whole account again;
 * - a change to one of an account's groups reads its group names again (a rename changes
 *   `vigil_check_info`);
 * - a feed that no longer reaches back to the position followed (pruned) reads every account again.
 */
import { MAX_DOCUMENTS_READ_AT_ONCE, type DocumentKind, type ResourceDocument, type ResourceDocuments } from '../store/document-ports.js';
import { checkLabels } from './check-lines.js';

/** One check as its info line labels it, plus what the scrape caches next to it (see checks.ts). */
export interface CatalogCheck {
  readonly checkId: string;
  readonly name: string;
  readonly type: string;
  readonly groupId: string | null;
  /** Sorted, without repeats, comma-separated. */
  readonly tags: string;
  /** `account="…",check_id="…"`, escaped: the labels of every series of the check. */
  readonly labels: string;
  /** `labels` as UTF-8, as the scrape writes them. */
  readonly labelBytes: Buffer;
  /** The scrape's info line of the check, and the group name it was written with; dropped with the entry when the check changes. */
  info?: { group: string; line: Buffer };
}

/** What the catalog reads of the documents port. */
export type CatalogDocuments = Pick<ResourceDocuments, 'getMany' | 'pageAfter' | 'latestPosition' | 'changesSince'>;

interface AccountCatalog {
  /** In the checks' insertion order, which is the order of their series in a scrape. */
  readonly checks: Map<string, CatalogCheck>;
  groupNames: Map<string, string>;
  /** Changes whenever a check is added, removed or relabelled, or a group renamed: see `versionOf`. */
  version: number;
}

/** Documents read per page when an account is read in full, and feed entries per read of the feed. */
const PAGE = 1000;

export class CheckCatalog {
  readonly #documents: CatalogDocuments;
  readonly #accounts = new Map<string, AccountCatalog>();
  /** The feed position followed from; undefined until the first call. */
  #position: number | undefined;
  /** The last version handed to an account; versions never repeat, so a re-read account gets a new one. */
  #lastVersion = 0;
  /** The last call's work: calls take turns, each going on from where the previous one left the feed. */
  #turn: Promise<unknown> = Promise.resolve();

  constructor(documents: CatalogDocuments) {
    this.#documents = documents;
  }

  /**
   * The accounts' checks as they are now, in insertion order, and their group names: the changes the
   * feed tells since the last call applied, and each account not read yet read in full. Calls take
   * turns, so each one sees what was committed before it began.
   */
  follow(accountIds: readonly string[]): Promise<void> {
    const turn = this.#turn.then(() => this.#follow(accountIds));
    this.#turn = turn.catch(() => undefined);
    return turn;
  }

  /** The account's checks as the last `follow` of it left them, in insertion order; empty before it. */
  checksOf(accountId: string): ReadonlyMap<string, CatalogCheck> {
    return this.#accounts.get(accountId)?.checks ?? NO_CHECKS;
  }

  /**
   * A number that changes whenever the account's checks (`checksOf`) or their info lines' group
   * names change, so a caller can keep what it built from them until then.
   */
  versionOf(accountId: string): number {
    return this.#accounts.get(accountId)?.version ?? 0;
  }

  /** The name of the account's group `groupId`, `''` for none or an unknown one. */
  groupName(accountId: string, groupId: string | null): string {
    if (groupId === null) return '';
    return this.#accounts.get(accountId)?.groupNames.get(groupId) ?? '';
  }

  async #follow(accountIds: readonly string[]): Promise<void> {
    if (this.#position === undefined) {
      // The position first, then the documents: a write in between is seen twice, never lost.
      this.#position = await this.#documents.latestPosition();
    } else {
      await this.#applyFeed();
    }
    for (const accountId of accountIds) {
      if (!this.#accounts.has(accountId)) this.#accounts.set(accountId, await this.#readAccount(accountId));
    }
  }

  /** Applies the feed's changes since the position followed to the accounts read. */
  async #applyFeed(): Promise<void> {
    const changedChecks = new Map<string, Set<string>>();
    const changedGroups = new Set<string>();
    for (;;) {
      const batch = await this.#documents.changesSince(this.#position!, PAGE);
      this.#position = batch.position;
      if (batch.reset) {
        this.#accounts.clear();
        return;
      }
      for (const change of batch.changes) {
        if (!this.#accounts.has(change.accountId)) continue; // read in full when first asked for
        if (change.kind === 'checks') {
          const ids = changedChecks.get(change.accountId) ?? new Set<string>();
          changedChecks.set(change.accountId, ids);
          ids.add(change.id);
        } else if (change.kind === 'check_groups') {
          changedGroups.add(change.accountId);
        }
      }
      if (batch.changes.length < PAGE) break;
    }
    for (const [accountId, changed] of changedChecks) {
      const account = this.#accounts.get(accountId)!;
      const ids = [...changed];
      for (let start = 0; start < ids.length; start += MAX_DOCUMENTS_READ_AT_ONCE) {
        const chunk = ids.slice(start, start + MAX_DOCUMENTS_READ_AT_ONCE);
        const textById = new Map((await this.#documents.getMany('checks', accountId, chunk)).map((row) => [row.id, row.text]));
        // In the feed's order, not the read's: new checks land last in the order they were created.
        for (const id of chunk) {
          const text = textById.get(id);
          if (text === undefined) {
            if (account.checks.delete(id)) account.version = ++this.#lastVersion;
            continue;
          }
          const check = catalogCheckOf(accountId, { ...(JSON.parse(text) as Record<string, unknown>), id });
          const previous = account.checks.get(id);
          // An unchanged label set keeps its rendering; a new check lands last, as its insertion order says.
          if (!previous || !sameLabels(previous, check)) {
            account.checks.set(id, check);
            account.version = ++this.#lastVersion;
          }
        }
      }
    }
    for (const accountId of changedGroups) {
      const account = this.#accounts.get(accountId);
      if (!account) continue;
      account.groupNames = await this.#groupNames(accountId);
      account.version = ++this.#lastVersion;
    }
  }

  async #readAccount(accountId: string): Promise<AccountCatalog> {
    const checks = new Map<string, CatalogCheck>();
    for (const doc of await this.#all('checks', accountId)) {
      const check = catalogCheckOf(accountId, doc);
      checks.set(check.checkId, check);
    }
    return { checks, groupNames: await this.#groupNames(accountId), version: ++this.#lastVersion };
  }

  async #groupNames(accountId: string): Promise<Map<string, string>> {
    return new Map((await this.#all('check_groups', accountId)).map((group) => [String(group.id), String(group['name'] ?? '')]));
  }

  /** Every document of the kind in the account, oldest first. */
  async #all(kind: DocumentKind, accountId: string): Promise<ResourceDocument[]> {
    const docs: ResourceDocument[] = [];
    for (let after = 0; ; ) {
      const page = await this.#documents.pageAfter(kind, accountId, after, PAGE);
      for (const { doc } of page) docs.push(doc);
      if (page.length < PAGE) return docs;
      after = page.at(-1)!.seq;
    }
  }
}

const NO_CHECKS: ReadonlyMap<string, CatalogCheck> = new Map();

function catalogCheckOf(accountId: string, doc: ResourceDocument): CatalogCheck {
  const checkId = String(doc.id);
  const name = String(doc['name'] ?? '');
  const type = String(doc['checkType'] ?? '');
  const tags = Array.isArray(doc['tags']) ? [...new Set(doc['tags'].map(String))].sort().join(',') : '';
  const group = doc['groupId'];
  const labels = checkLabels(accountId, checkId);
  return { checkId, name, type, groupId: group === null || group === undefined ? null : String(group), tags, labels, labelBytes: Buffer.from(labels) };
}

function sameLabels(a: CatalogCheck, b: CatalogCheck): boolean {
  return a.name === b.name && a.type === b.type && a.groupId === b.groupId && a.tags === b.tags;
}
