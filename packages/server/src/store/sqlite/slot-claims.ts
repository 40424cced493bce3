/**
 * Slot claims in SQLite, behind the async port the scheduler claims, finishes and prunes through
 * (scheduler/scheduler.ts). One row per check and location holds the highest due time claimed (the
 * mark, see `SlotClaims` in ../ports.ts), so the table does not grow with runs. A claim is one
 * conditional upsert per check and location (../formats/slot-claim-marks.ts): it raises the mark only
 * when the stored one is below, and returns the mark it replaced, so the call knows which of its
 * slots it won; one statement, so two processes on the file cannot both raise past the same slot.
 * A tick's slots are one call and one transaction, which joins the store's group commit when one is open.
 */
import type { Statement } from 'better-sqlite3';
import type { SqliteDatabase } from '../database.js';
import type { ClaimMark, SlotClaim, SlotClaims } from '../ports.js';
import { checkClaimMarkOf, checkMoment, checkSlot, checkSlots } from '../port-rules.js';
import { MarkOutcomes, markWrites, type MarkOutcome, type MarkWrite } from '../formats/slot-claim-marks.js';
import { committed, type BatchedSqlite } from './batched.js';

/** Rows deleted per statement when pruning, so a large backlog never holds the database for long. */
const PRUNE_BATCH = 500;

/** The statements; the port wraps them in its transactions. */
export class SlotClaimTable {
  readonly #raise: Statement;
  readonly #finish: Statement;
  readonly #find: Statement;
  readonly #prune: Statement;

  constructor(db: SqliteDatabase) {
    // In an upsert's SET every column on the right is the stored row's, so prior_due_ms gets the mark
    // being replaced; RETURNING gives it back. A new row's prior_due_ms is NULL.
    this.#raise = db.prepare(
      `INSERT INTO slot_claims (account_id, check_id, location, due_ms, claimed_ms) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (account_id, check_id, location) DO UPDATE SET prior_due_ms = due_ms, due_ms = excluded.due_ms, claimed_ms = excluded.claimed_ms
       WHERE due_ms < excluded.due_ms
       RETURNING prior_due_ms AS priorDueMs`,
    );
    // The latest finished stays the latest: a slot's run that ends after a later slot's leaves it.
    this.#finish = db.prepare(
      `UPDATE slot_claims SET finished_ms = CASE WHEN finished_due_ms IS NULL OR finished_due_ms <= :dueMs THEN :finishedMs ELSE finished_ms END,
         finished_due_ms = max(coalesce(finished_due_ms, :dueMs), :dueMs)
       WHERE account_id = :accountId AND check_id = :checkId AND location = :location AND due_ms >= :dueMs`,
    );
    this.#find = db.prepare(
      'SELECT due_ms AS dueMs, claimed_ms AS claimedMs, finished_due_ms AS finishedDueMs, finished_ms AS finishedMs FROM slot_claims WHERE account_id = ? AND check_id = ? AND location = ?',
    );
    // No index on due_ms: the mark changes at every claim, and the table holds a row per check and location.
    this.#prune = db.prepare(`DELETE FROM slot_claims WHERE rowid IN (SELECT rowid FROM slot_claims WHERE due_ms < ? LIMIT ${PRUNE_BATCH})`);
  }

  raise(write: MarkWrite, claimedMs: number): MarkOutcome {
    const row = this.#raise.get(write.accountId, write.checkId, write.location, write.dueMs, claimedMs) as { priorDueMs: number | null } | undefined;
    return row === undefined ? { raised: false } : { raised: true, priorDueMs: row.priorDueMs };
  }

  finish(slot: SlotClaim, finishedMs: number): boolean {
    return this.#finish.run({ accountId: slot.accountId, checkId: slot.checkId, location: slot.location, dueMs: slot.dueMs, finishedMs }).changes > 0;
  }

  find(accountId: string, checkId: string, location: string): ClaimMark | undefined {
    return this.#find.get(accountId, checkId, location) as ClaimMark | undefined;
  }

  /** Deletes one batch of marks below `dueBeforeMs`; how many went (0: none left). */
  pruneBatch(dueBeforeMs: number): number {
    return this.#prune.run(dueBeforeMs).changes;
  }
}

export class SqliteSlotClaims implements SlotClaims {
  readonly #store: BatchedSqlite;
  readonly #table: SlotClaimTable;

  constructor(store: BatchedSqlite) {
    this.#store = store;
    this.#table = new SlotClaimTable(store.db);
  }

  async claim(slots: readonly SlotClaim[], claimedMs: number): Promise<SlotClaim[]> {
    checkSlots(slots, claimedMs);
    if (slots.length === 0) return [];
    return committed(this.#store, () => {
      const outcomes = new MarkOutcomes();
      for (const write of markWrites(slots)) outcomes.record(write, this.#table.raise(write, claimedMs));
      return outcomes.won(slots);
    });
  }

  async finish(slot: SlotClaim, finishedMs: number): Promise<boolean> {
    checkSlot(slot);
    checkMoment('finishedMs', finishedMs);
    return committed(this.#store, () => this.#table.finish(slot, finishedMs));
  }

  async find(accountId: string, checkId: string, location: string): Promise<ClaimMark | undefined> {
    checkClaimMarkOf(accountId, checkId, location);
    return this.#table.find(accountId, checkId, location);
  }

  async prune(dueBeforeMs: number): Promise<number> {
    checkMoment('dueBeforeMs', dueBeforeMs);
    let removed = 0;
    // Each batch its own commit, so pruning a backlog never holds the database for long.
    for (let batch = await committed(this.#store, () => this.#table.pruneBatch(dueBeforeMs)); batch > 0; batch = await committed(this.#store, () => this.#table.pruneBatch(dueBeforeMs))) {
      removed += batch;
    }
    return removed;
  }
}
