// Over 400 lines: a block's bookkeeping (its changes, its pieces and the memory they are written into) and the scrape that reads and writes it share the Block type and its rules.
/**
 * The per-check series of `GET /metrics`, written as text (exposition.ts).
 *
 * What a check's last FINAL run said (up, degraded, when, SSL days) comes from the stored check
 * statuses: they survive a restart and are written by the scheduler and the heartbeat watch alike,
 * so the table is the one place that is always current. Their lines are kept between scrapes, and
 * a scrape takes only the statuses written since the previous one, by any replica: the storage
 * ports' MetricsReads follows them per account (store/metrics-read-ports.ts). Reading all 10,000
 * rows was most of a scrape in which nothing had changed.
 *
 * The lines are kept joined by blocks of BLOCK_SIZE checks in the checks' order: per block, one
 * UTF-8 piece per family (check-blocks.ts). A block's piece is written again only when one of its
 * checks stored a result or its status changed, and then only those checks' lines are written:
 * over their old bytes when they keep their length and no scrape still sending the piece, else
 * into a new piece with the others' bytes copied, when the response's body reaches that piece; a
 * scrape in which nothing changed sends the kept pieces as they are. Walking 10,000 checks and handing their 70,000 lines
 * one by one to the body cost a scrape more than its reads.
 * When a check is added, removed or relabelled, or a group renamed, the account's blocks are laid
 * out again. The checks come from the check catalog (check-catalog.ts),
 * which follows the documents port's change feed, so a deleted check's series are gone from the next
 * scrape and a renamed or retagged one shows its new name, group or tags there.
 *
 * Every series is labelled by ids only (`account`, `check_id`, and `location` where it has one): a
 * check's name, type, group and tags are on its `vigil_check_info` line alone, joined in queries
 * (Prometheus' info-metric pattern). Repeated on each of a check's run and histogram lines per
 * location they made most of a scrape's bytes, and a rename started new series, breaking rate()
 * across it; an id never changes.
 *
 * Only what no table holds lives in memory: the runs counted by outcome, the response times'
 * histogram and the last response time, since this process started, updated as each result is
 * stored.
 *
 * Series per check: up, degraded, last run timestamp, last response time, and SSL days remaining
 * when its last run saw a certificate (at most 5), plus its info line; per location it ran in, 4
 * run counters (one per outcome) and the histogram's bounds + 3 lines (each bound, +Inf, sum,
 * count): 6 + (7 + bounds) × locations in all, 19 with the default 6 bounds in one location. A
 * scrape exports at most `maxChecks` checks and counts the others.
 */
import type { MetricsReads, StatusBatch, StatusFollower } from '../store/metrics-read-ports.js';
import { CheckCatalog, type CatalogCheck, type CatalogDocuments } from './check-catalog.js';
import { AheadOfScrape, type Pass } from './ahead-of-scrape.js';
import { buildPiece, patchPiece, type FamilyPiece } from './check-blocks.js';
import { CHECK_FAMILIES, CheckLineWriter, OUTCOMES, bucketHeads, checkLabels, infoLine, sameStatusFacts, statusFactsOf, type RunOutcome, type RunSeries, type StatusFacts } from './check-lines.js';
import { escapeLabelValue, type FamilySamples, type Piece } from './exposition.js';
import { DEFAULT_RESPONSE_TIME_BUCKETS } from './response-time-buckets.js';

export type { RunOutcome } from './check-lines.js';

/** The most checks one scrape exports; past it a scrape would cost seconds and Prometheus' memory. */
export const DEFAULT_MAX_CHECKS = 50_000;

/**
 * Checks per block. Larger blocks hand the body fewer pieces, smaller ones copy less when a few of
 * their checks changed; at 256 a block's histogram piece is about 300 KB, written to the socket as
 * it is (exposition.ts).
 */
export const BLOCK_SIZE = 256;

/** What a stored FINAL result contributes to the in-memory series. */
export interface StoredRun {
  accountId: string;
  checkId: string;
  location: string;
  hasFailures: boolean;
  hasErrors: boolean;
  isDegraded: boolean;
  /** Milliseconds, when the run measured one. */
  responseTime: number | null;
}

/** The in-memory facts of one check: its series per location and its last response time. */
interface Tracked {
  /** `account` and `check_id`, escaped. */
  readonly labels: string;
  readonly series: Map<string, RunSeries>;
  /** `series`' values in the order added, as the check's lines list them. */
  readonly seriesList: RunSeries[];
  lastResponseSeconds: number | null;
}

interface Block {
  readonly checkIds: readonly string[];
  /** Per family, its piece; absent until a scrape writes it. */
  readonly pieces: Array<FamilyPiece | undefined>;
  /** Counts the changes to the block's checks. */
  changes: number;
  /**
   * Per check, the count of `changes` at its last change; per family, the count its piece was
   * written at. A family's piece is out of date when changes came since, and then holds the checks
   * that changed after it was written. Counts, not a set of changed checks per family: a check
   * that stores a result is marked once, not once per family.
   */
  readonly changedAt: Float64Array;
  readonly writtenAt: number[];
  /** Per family, the last scrape (its number) that sent the current piece. */
  readonly sentBy: number[];
  /**
   * Per family, the memory of the piece before the current one and the last scrape that sent it:
   * the next piece is written into it once that scrape is done, instead of into new memory.
   */
  readonly spares: Array<{ storage: Buffer; sentBy: number } | undefined>;
  /**
   * The changed checks' lines as written for the block's first family reached, kept for its other
   * families while nothing changed since: made per family, they cost as much as writing them.
   */
  writers?: { changes: number; byIndex: Array<CheckLineWriter | typeof NO_LINES | undefined> };
}

/** What the scrape keeps of an account, from its first scrape on. */
interface AccountLines {
  /** What the stored statuses say, by check id, for the checks that exist and have a status. */
  readonly statuses: Map<string, StatusFacts>;
  /** Hands over the account's statuses written since its previous batch. */
  readonly follower: StatusFollower;
  /** The last batch's taking: batches are taken one after another, each applied in its turn. */
  turn: Promise<unknown>;
  /** The catalog version (CheckCatalog.versionOf) the blocks were laid out for. */
  catalogVersion: number;
  blocks: Block[];
  /** Each check's block and its index in it. */
  placeOf: Map<string, { block: Block; index: number }>;
  /** Whether a scrape sent the kept pieces (the account was within `maxChecks`): only those are written ahead. */
  piecesSent: boolean;
}

/** Which accounts a scrape shows: one tenant's, or every configured account's (the operator's). */
export interface ChecksView {
  readonly accountIds: readonly string[];
}

/** The storage ports the metrics read through. */
export interface MetricsPorts {
  readonly documents: CatalogDocuments;
  readonly metricsReads: MetricsReads;
}

export interface CheckMetricsOptions {
  maxChecks?: number;
  /** Bounds of the response-time histogram, seconds, increasing (response-time-buckets.ts). */
  responseTimeBuckets?: readonly number[];
}

export function outcomeOf(run: Pick<StoredRun, 'hasFailures' | 'hasErrors' | 'isDegraded'>): RunOutcome {
  if (run.hasErrors) return 'error';
  if (run.hasFailures) return 'failed';
  return run.isDegraded ? 'degraded' : 'passed';
}

/** A check without lines (no status yet) in a block's `writers`, where undefined is not made yet. */
const NO_LINES = 0;

/**
 * Room a piece's new memory leaves past its size, so that the next pieces of the block, a few
 * digits longer as counts grow, fit in it too.
 */
const STORAGE_ROOM = 1 / 16;

/** The scrape number of a piece written ahead of a scrape (ahead-of-scrape.ts): sent by none yet. */
const NOT_SENT = 0;

export class CheckMetrics {
  readonly #catalog: CheckCatalog;
  readonly #reads: MetricsReads;
  readonly #maxChecks: number;
  readonly #buckets: readonly number[];
  /** The heads of the histogram's bucket lines, encoded once. */
  readonly #bucketHeads: readonly Buffer[];
  /** Per account, per check id. */
  readonly #tracked = new Map<string, Map<string, Tracked>>();
  readonly #accounts = new Map<string, AccountLines>();
  /** The number of the last scrape. */
  #scrapes = 0;
  /** The scrapes whose pieces may still be sent, oldest first (see `scrape`'s `done`). */
  readonly #sending = new Set<number>();
  readonly #ahead = new AheadOfScrape(() => this.#passAhead());
  /** Whether blocks were laid out since their spare memory was last made (`#makeSpares`), and whether that runs now. */
  #sparesMissing = true;
  #makingSpares = false;

  constructor(ports: MetricsPorts, options: CheckMetricsOptions = {}) {
    this.#reads = ports.metricsReads;
    this.#catalog = new CheckCatalog(ports.documents);
    this.#maxChecks = options.maxChecks ?? DEFAULT_MAX_CHECKS;
    this.#buckets = [...(options.responseTimeBuckets ?? DEFAULT_RESPONSE_TIME_BUCKETS)];
    this.#bucketHeads = bucketHeads(this.#buckets);
  }

  /** Counts a stored FINAL result. */
  recordRun(run: StoredRun): void {
    let account = this.#tracked.get(run.accountId);
    if (!account) {
      account = new Map();
      this.#tracked.set(run.accountId, account);
    }
    let tracked = account.get(run.checkId);
    if (!tracked) {
      tracked = { labels: checkLabels(run.accountId, run.checkId), series: new Map(), seriesList: [], lastResponseSeconds: null };
      account.set(run.checkId, tracked);
    }
    let series = tracked.series.get(run.location);
    if (!series) {
      const labels = `${tracked.labels},location="${escapeLabelValue(run.location)}"`;
      // Every outcome from the first run on, so rate() over a series that starts failing later works.
      series = { labels: Buffer.from(labels), outcomes: OUTCOMES.map(() => 0), buckets: this.#buckets.map(() => 0), sum: 0, count: 0 };
      tracked.series.set(run.location, series);
      tracked.seriesList.push(series);
    }
    series.outcomes[OUTCOMES.indexOf(outcomeOf(run))]! += 1;
    if (run.responseTime !== null && Number.isFinite(run.responseTime)) {
      const seconds = run.responseTime / 1000;
      tracked.lastResponseSeconds = seconds;
      const bucket = this.#buckets.findIndex((bound) => seconds <= bound);
      if (bucket >= 0) series.buckets[bucket]! += 1;
      series.sum += seconds;
      series.count += 1;
    }
    this.#changed(this.#accounts.get(run.accountId), run.checkId);
  }

  /**
   * The per-check families of the view's accounts, and how many checks were left out past
   * `maxChecks`. Forgets what it kept of the view's checks that were deleted.
   *
   * A family's piece of a block whose checks changed is written when the body reaches it, not
   * before the first byte: that work then overlaps sending what comes before it. It is written
   * with what the checks say then, so a result stored while the body is sent may show in the
   * families still to come; its check stays marked until each family has written it.
   *
   * `done` tells that the scrape's pieces are sent (or will never be): until then, the memory of a
   * piece it sends is not written over. A piece replaced by a newer one is written over by the one
   * after, so a scrape in which checks changed needs no new memory. A new piece in new memory each
   * time was about 22 MB a scrape at 10,000 checks with results spread over every block, and that
   * memory drove a full garbage collection of the service's heap every scrape or two.
   */
  async scrape(view: ChecksView): Promise<{ families: FamilySamples[]; omitted: number; done: () => void }> {
    const scrape = ++this.#scrapes;
    this.#sending.add(scrape);
    this.#ahead.scraped();
    try {
      await this.#follow(view.accountIds);
    } catch (error) {
      this.#sending.delete(scrape);
      throw error;
    }
    const pieces: Piece[][] = CHECK_FAMILIES.map(() => []);
    let shown = 0;
    let omitted = 0;
    for (const accountId of view.accountIds) {
      const account = this.#accounts.get(accountId)!;
      const checks = this.#catalog.checksOf(accountId);
      // Each check with a status has lines, and the statuses kept are those of existing checks.
      if (shown + account.statuses.size <= this.#maxChecks) {
        shown += account.statuses.size;
        account.piecesSent = true;
        for (const block of account.blocks) {
          for (let family = 0; family < CHECK_FAMILIES.length; family++) {
            const kept = block.pieces[family];
            if (kept && block.writtenAt[family] === block.changes) {
              block.sentBy[family] = scrape;
              pieces[family]!.push(kept.piece);
            } else {
              pieces[family]!.push(() => this.#piece(accountId, account, checks, block, family, scrape));
            }
          }
        }
        continue;
      }
      account.piecesSent = false;
      for (const block of account.blocks) {
        // Past the limit: this scrape's own cut of the block, written now and not kept, the same
        // checks in every family.
        let inBlock = 0;
        for (const checkId of block.checkIds) if (account.statuses.has(checkId)) inBlock++;
        const room = Math.max(0, Math.min(inBlock, this.#maxChecks - shown));
        for (let family = 0; family < CHECK_FAMILIES.length; family++) {
          let left = room;
          const cut = buildPiece(family, block.checkIds.length, undefined, () => true, (index) => {
            const lines = left > 0 ? this.#lines(accountId, account, checks, block.checkIds[index]!) : undefined;
            if (lines) left--;
            return lines;
          });
          pieces[family]!.push(cut.piece);
        }
        shown += room;
        omitted += inBlock - room;
      }
    }
    return { families: CHECK_FAMILIES.map((family, index) => ({ family, samples: pieces[index]! })), omitted, done: () => this.#sent(scrape) };
  }

  /** Scrape `scrape` is sent (or never will be); the pass ahead of the next is timed from the last one's end. */
  #sent(scrape: number): void {
    if (this.#sending.delete(scrape) && scrape === this.#scrapes) this.#ahead.sent();
    if (this.#sparesMissing && !this.#makingSpares) this.#makeSpares();
  }

  /**
   * Gives each piece of the blocks scrapes send a spare of its size, off any request, one block per
   * turn of the event loop: a copy of the piece, so that its memory is touched and the copying code
   * has run. The first piece a block writes anew after its first scrape then takes no new memory.
   * Made then instead, 12–22 MB of new memory and code not yet optimised made the first scrape
   * after an interval of results cost about twice the CPU of the later ones: at 10,000 checks with
   * results spread over every block, 66–101 ms against 49–60 ms with the spares made (a busy
   * machine; later scrapes 35–40 ms). Every piece written anew takes a spare anyway; a family only
   * ever written over in place would not, for up to one more scrape's size of memory.
   */
  #makeSpares(): void {
    this.#sparesMissing = false;
    this.#makingSpares = true;
    const blocks = [...this.#accounts.values()].filter((account) => account.piecesSent).flatMap((account) => account.blocks);
    let at = 0;
    const slice = () => {
      const block = blocks[at++];
      if (block === undefined) {
        this.#makingSpares = false;
        return;
      }
      for (let family = 0; family < CHECK_FAMILIES.length; family++) {
        const kept = block.pieces[family];
        if (kept === undefined || block.spares[family] !== undefined) continue;
        const copy = buildPiece(family, block.checkIds.length, kept, () => false, () => undefined, () => Buffer.allocUnsafe(kept.storage.length));
        block.spares[family] = { storage: copy.storage, sentBy: NOT_SENT };
      }
      setImmediate(slice);
    };
    setImmediate(slice);
  }

  /** The block's piece of `family` as scrape `scrape` sends it, written again first if any of its checks changed since. */
  #piece(accountId: string, account: AccountLines, checks: ReadonlyMap<string, CatalogCheck>, block: Block, family: number, scrape: number): Buffer {
    const kept = block.pieces[family];
    const writtenAt = block.writtenAt[family]!;
    if (kept && writtenAt === block.changes) {
      // Written by another scrape since this one began; sent by both.
      block.sentBy[family] = Math.max(block.sentBy[family]!, scrape);
      return kept.piece;
    }
    if (block.writers?.changes !== block.changes) block.writers = { changes: block.changes, byIndex: new Array(block.checkIds.length) };
    const { byIndex } = block.writers;
    const linesOf = (index: number) => {
      let writer = byIndex[index];
      if (writer === undefined) byIndex[index] = writer = this.#lines(accountId, account, checks, block.checkIds[index]!) ?? NO_LINES;
      return writer === NO_LINES ? undefined : writer;
    };
    const changedAt = block.changedAt;
    const changed = (index: number) => changedAt[index]! > writtenAt;
    // Scrapes are numbered in order and `#sending` holds them oldest first: memory a scrape sent is
    // free when every scrape that sent it is done.
    const oldestSending = this.#sending.values().next().value ?? Number.POSITIVE_INFINITY;
    if (kept && block.sentBy[family]! < oldestSending && patchPiece(family, block.checkIds.length, kept, changed, linesOf)) {
      block.writtenAt[family] = block.changes;
      block.sentBy[family] = Math.max(block.sentBy[family]!, scrape);
      this.#writersDone(block);
      return kept.piece;
    }
    const spare = block.spares[family];
    const free = spare !== undefined && spare.sentBy < oldestSending ? spare.storage : undefined;
    const storageFor = (size: number) => (free !== undefined && free.length >= size ? free : Buffer.allocUnsafe(size + Math.ceil(size * STORAGE_ROOM)));
    const built = buildPiece(family, block.checkIds.length, kept, changed, linesOf, storageFor);
    block.spares[family] = kept && { storage: kept.storage, sentBy: block.sentBy[family]! };
    block.pieces[family] = built;
    block.writtenAt[family] = block.changes;
    block.sentBy[family] = scrape;
    this.#writersDone(block);
    return built.piece;
  }

  /** Forgets the block's changed checks' lines once every family of it is written. */
  #writersDone(block: Block): void {
    if (block.writtenAt.every((at) => at === block.changes) && block.pieces.every(Boolean)) delete block.writers;
  }

  /**
   * The accounts' kept lines brought up to date with their checks and statuses: the checks first
   * (a status is kept only for a check the catalog lists), laid out again where they changed, then
   * the statuses written since the previous scrape.
   */
  async #follow(accountIds: readonly string[]): Promise<void> {
    await this.#catalog.follow(accountIds);
    await Promise.all(accountIds.map((accountId) => this.#followStatuses(accountId)));
  }

  #followStatuses(accountId: string): Promise<unknown> {
    const checks = this.#catalog.checksOf(accountId);
    const catalogVersion = this.#catalog.versionOf(accountId);
    let account = this.#accounts.get(accountId);
    if (!account) {
      account = { statuses: new Map(), follower: this.#reads.followStatuses(accountId), turn: Promise.resolve(), catalogVersion, blocks: [], placeOf: new Map(), piecesSent: false };
      this.#accounts.set(accountId, account);
      this.#layOut(accountId, account, checks);
    } else if (account.catalogVersion !== catalogVersion) {
      account.catalogVersion = catalogVersion;
      this.#layOut(accountId, account, checks);
    }
    const following = account;
    // Batches applied out of turn could put an older status over a newer one.
    const turn = following.turn.then(async () => this.#apply(accountId, following, await following.follower.next()));
    following.turn = turn.catch(() => undefined);
    return turn;
  }

  /** Keeps what the batch says of the account's statuses, and marks the checks whose lines it changes. */
  #apply(accountId: string, account: AccountLines, batch: StatusBatch): void {
    const checks = this.#catalog.checksOf(accountId);
    if (batch.full) {
      const stored = new Map<string, StatusFacts>();
      for (const [checkId, status] of batch.statuses) {
        // A deleted check's row is left behind; its check is not listed.
        if (status !== undefined && checks.has(checkId)) stored.set(checkId, statusFactsOf(status));
      }
      for (const [checkId, facts] of account.statuses) {
        if (!stored.has(checkId)) {
          account.statuses.delete(checkId);
          this.#changed(account, checkId);
        } else if (!sameStatusFacts(facts, stored.get(checkId)!)) {
          this.#changed(account, checkId);
        }
      }
      for (const [checkId, facts] of stored) {
        if (!account.statuses.has(checkId)) this.#changed(account, checkId);
        account.statuses.set(checkId, facts);
      }
      return;
    }
    for (const [checkId, status] of batch.statuses) {
      const kept = account.statuses.get(checkId);
      // A check without a status any more (its first write rolled back) keeps no lines.
      if (status !== undefined && checks.has(checkId)) {
        const facts = statusFactsOf(status);
        // A status handed over again unchanged (PostgreSQL's followers may) leaves its lines as they are.
        if (kept !== undefined && sameStatusFacts(kept, facts)) continue;
        account.statuses.set(checkId, facts);
      } else {
        if (kept === undefined) continue;
        account.statuses.delete(checkId);
      }
      this.#changed(account, checkId);
    }
  }

  /**
   * A pass that writes, ahead of the next scrape, the out-of-date pieces of the accounts whose kept
   * pieces scrapes send, one block per slice; undefined when there is nothing it may do. It first
   * takes the checks and statuses written since (as a scrape does), so a piece is written with what
   * stands then; whatever changes after it marks the block again, and the scrape writes it anew.
   * A piece written ahead is sent by no scrape yet, so its memory is free to write over once a
   * newer one replaces it.
   */
  async #passAhead(): Promise<Pass | undefined> {
    const accounts = [...this.#accounts].filter(([, account]) => account.piecesSent);
    if (accounts.length === 0) return undefined;
    await this.#follow(accounts.map(([accountId]) => accountId));
    let accountAt = 0;
    let blockAt = 0;
    return () => {
      while (accountAt < accounts.length) {
        const [accountId, account] = accounts[accountAt]!;
        const checks = this.#catalog.checksOf(accountId);
        // Forgotten, or laid out again since: the scrape writes it.
        if (this.#accounts.get(accountId) !== account || account.catalogVersion !== this.#catalog.versionOf(accountId)) {
          accountAt++;
          continue;
        }
        for (; blockAt < account.blocks.length; blockAt++) {
          const block = account.blocks[blockAt]!;
          let written = false;
          for (let family = 0; family < CHECK_FAMILIES.length; family++) {
            if (block.pieces[family] && block.writtenAt[family] === block.changes) continue;
            this.#piece(accountId, account, checks, block, family, NOT_SENT);
            written = true;
          }
          if (written) {
            blockAt++;
            return true;
          }
        }
        accountAt++;
        blockAt = 0;
      }
      return false;
    };
  }

  /** Marks the check's lines as changed, so the next scrape writes them again. */
  #changed(account: AccountLines | undefined, checkId: string): void {
    const place = account?.placeOf.get(checkId);
    if (!place) return;
    place.block.changes++;
    place.block.changedAt[place.index] = place.block.changes;
  }

  /** Splits the account's checks into blocks, none written yet, and forgets what it kept of deleted checks. */
  #layOut(accountId: string, account: AccountLines, checks: ReadonlyMap<string, CatalogCheck>): void {
    this.#sparesMissing = true;
    const ids = [...checks.keys()];
    account.blocks = [];
    account.placeOf = new Map();
    for (let start = 0; start < ids.length; start += BLOCK_SIZE) {
      const checkIds = ids.slice(start, start + BLOCK_SIZE);
      const block: Block = { checkIds, pieces: CHECK_FAMILIES.map(() => undefined), changes: 0, changedAt: new Float64Array(checkIds.length), writtenAt: CHECK_FAMILIES.map(() => 0), sentBy: CHECK_FAMILIES.map(() => 0), spares: CHECK_FAMILIES.map(() => undefined) };
      account.blocks.push(block);
      block.checkIds.forEach((checkId, index) => account.placeOf.set(checkId, { block, index }));
    }
    forgetDeleted(account.statuses, checks);
    const tracked = this.#tracked.get(accountId);
    if (tracked) forgetDeleted(tracked, checks);
  }

  /** The check's lines; undefined when it has no status (it has not run yet). */
  #lines(accountId: string, account: AccountLines, checks: ReadonlyMap<string, CatalogCheck>, checkId: string): CheckLineWriter | undefined {
    const status = account.statuses.get(checkId);
    const check = checks.get(checkId);
    if (status === undefined || check === undefined) return undefined;
    const runs = this.#tracked.get(accountId)?.get(checkId);
    return new CheckLineWriter(check.labelBytes, status, this.#infoLine(accountId, check), runs && { lastResponseSeconds: runs.lastResponseSeconds, series: runs.seriesList }, this.#bucketHeads);
  }

  /** The check's info line: the one kept with it while its group's name is unchanged. */
  #infoLine(accountId: string, check: CatalogCheck): Buffer {
    const group = this.#catalog.groupName(accountId, check.groupId);
    if (check.info?.group !== group) check.info = { group, line: infoLine(check, group) };
    return check.info.line;
  }
}

/** Drops the entries of checks that are no longer in `checks`. */
function forgetDeleted(kept: Map<string, unknown>, checks: ReadonlyMap<string, CatalogCheck>): void {
  for (const checkId of kept.keys()) {
    if (!checks.has(checkId)) kept.delete(checkId);
  }
}
