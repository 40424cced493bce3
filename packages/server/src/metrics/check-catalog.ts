/**
 * The checks as the metrics know them, kept between scrapes: per check its name, type, group and
 * tags (the labels of its `vigil_check_info` line), and the escaped `account` and `check_id` label
 * text every one of its series starts with. Parsing 10,000 check
 * documents on every scrape cost about 50 ms; here a scrape reads only the documents written since
 * the last one, from the checks collection's change log, so it stays fresh at almost no cost:
 * - an edit or a delete through this process's connection shows in the collection's revision;
 * - a write by another connection to the same database file shows in SQLite's `data_version`, and
 *   so does anything the change log no longer covers: both re-read the account in full;
 * - group names follow the groups collection the same way (a rename changes `vigil_check_info`).
 */
import type { Store, StoredDoc } from '../store/index.js';
import type { MetricsReads } from '../store/sqlite/metrics-reads.js';
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

interface AccountCatalog {
  /** In the checks' insertion order, which is the order of their series in a scrape. */
  readonly checks: Map<string, CatalogCheck>;
  groupNames?: Map<string, string>;
  /** Changes whenever a check is added, removed or relabelled, or a group renamed: see `versionOf`. */
  version: number;
}

export class CheckCatalog {
  readonly #store: Store;
  readonly #reads: MetricsReads;
  readonly #accounts = new Map<string, AccountCatalog>();
  #checksRevision: number;
  #groupsRevision: number;
  #dataVersion: number;
  /** The last version handed to an account; versions never repeat, so a re-read account gets a new one. */
  #lastVersion = 0;

  constructor(store: Store, reads: MetricsReads) {
    this.#store = store;
    this.#reads = reads;
    this.#checksRevision = store.checks.revision;
    this.#groupsRevision = store.checkGroups.revision;
    this.#dataVersion = reads.dataVersion();
  }

  /** The account's checks as they are now, in insertion order. */
  checksOf(accountId: string): ReadonlyMap<string, CatalogCheck> {
    this.#follow();
    let account = this.#accounts.get(accountId);
    if (!account) {
      account = { checks: new Map(), version: ++this.#lastVersion };
      for (const doc of this.#store.checks.all(accountId)) {
        const check = catalogCheckOf(accountId, doc);
        account.checks.set(check.checkId, check);
      }
      this.#accounts.set(accountId, account);
    }
    return account.checks;
  }

  /**
   * A number that changes whenever the account's checks (`checksOf`) or their info lines' group
   * names change, so a caller can keep what it built from them until then. Call after `checksOf`.
   */
  versionOf(accountId: string): number {
    return this.#accounts.get(accountId)?.version ?? 0;
  }

  /** The name of the account's group `groupId`, `''` for none or an unknown one. */
  groupName(accountId: string, groupId: string | null): string {
    if (groupId === null) return '';
    const account = this.#accounts.get(accountId);
    if (!account) return '';
    account.groupNames ??= new Map(this.#store.checkGroups.all(accountId).map((group) => [String(group.id), String(group.name ?? '')]));
    return account.groupNames.get(groupId) ?? '';
  }

  /** Applies what was written since the last call: the changed checks one by one, or everything again. */
  #follow(): void {
    const dataVersion = this.#reads.dataVersion();
    if (dataVersion !== this.#dataVersion) {
      this.#dataVersion = dataVersion;
      this.#forgetAll();
      return;
    }
    const { checks, checkGroups } = this.#store;
    if (checkGroups.revision !== this.#groupsRevision) {
      this.#groupsRevision = checkGroups.revision;
      for (const account of this.#accounts.values()) {
        delete account.groupNames;
        account.version = ++this.#lastVersion;
      }
    }
    if (checks.revision === this.#checksRevision) return;
    const changed = checks.changedSince(this.#checksRevision);
    if (!changed) {
      this.#forgetAll();
      return;
    }
    this.#checksRevision = checks.revision;
    for (const { accountId, id } of changed) {
      const account = this.#accounts.get(accountId);
      if (!account) continue; // read in full when first asked for
      const doc = checks.get(accountId, id);
      if (!doc) {
        if (account.checks.delete(id)) account.version = ++this.#lastVersion;
        continue;
      }
      const check = catalogCheckOf(accountId, doc);
      const previous = account.checks.get(id);
      // An unchanged label set keeps its rendering; a new check lands last, as its insertion order says.
      if (!previous || !sameLabels(previous, check)) {
        account.checks.set(id, check);
        account.version = ++this.#lastVersion;
      }
    }
  }

  #forgetAll(): void {
    this.#accounts.clear();
    this.#checksRevision = this.#store.checks.revision;
    this.#groupsRevision = this.#store.checkGroups.revision;
  }
}

function catalogCheckOf(accountId: string, doc: StoredDoc): CatalogCheck {
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
