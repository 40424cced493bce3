/**
 * What `GET /metrics` reads of the database beyond the documents (metrics/): each check's stored
 * status, followed from scrape to scrape, and the open incidents of an account. Part of the storage
 * ports (ports.ts), with an engine per database and a contract suite (contract/metrics-reads.test.ts).
 *
 * Why a follower and not one read per scrape: at 10,000 checks reading and parsing every status row
 * was most of a scrape in which nothing had changed. A follower hands over the statuses written
 * since its previous call, by any replica, so a scrape parses only what changed. How an engine knows
 * what changed is its own: SQLite is told of its connection's writes as they are made and watches
 * its `data_version` for other connections' commits; PostgreSQL keeps, per status row, the id of the
 * transaction that wrote it, and reads the rows written by transactions not yet committed at its
 * previous read.
 */

/** The fields of a stored check status (`CheckStatus` of @vigil/schema) that the metrics show. */
export interface StatusFields {
  readonly hasFailures?: unknown;
  readonly hasErrors?: unknown;
  readonly isDegraded?: unknown;
  readonly updated_at?: unknown;
  readonly sslDaysRemaining?: unknown;
}

/** A check's stored status as a follower hands it over; undefined: the check has no status (any more). */
export type FollowedStatus = readonly [checkId: string, status: StatusFields | undefined];

export interface StatusBatch {
  /**
   * True: `statuses` are every status the account has stored (a deleted check's left-behind row may
   * be among them), and a status kept from earlier batches but not among them is gone. False: the
   * statuses written since the previous batch, some perhaps again though unchanged.
   */
  readonly full: boolean;
  readonly statuses: readonly FollowedStatus[];
}

/** One account's statuses, followed by one reader. */
export interface StatusFollower {
  /**
   * The first call: every status of the account (`full`). Every later one: what was written since the
   * previous call resolved, by this replica or another, once committed; or everything again (`full`)
   * when the engine can no longer tell what. Calls must not overlap: each goes on from the previous one.
   */
  next(): Promise<StatusBatch>;
  /** Stops following: the engine forgets what it kept for this follower. */
  close(): void;
}

export interface MetricsReads {
  followStatuses(accountId: string): StatusFollower;
  /** Per account, in the order given, how many of its incidents are not resolved yet. */
  openIncidents(accountIds: readonly string[]): Promise<number[]>;
}
