/**
 * Slot claims in SQLite, behind the async port the scheduler claims, finishes and prunes through
 * (scheduler/scheduler.ts). A claim is an `INSERT OR IGNORE` of the slot's key: whoever inserts the
 * row owns the slot. A tick's slots are one call and one transaction, which joins the store's group
 * commit when one is open.
 */
import type { Statement } from 'better-sqlite3';
import type { SqliteDatabase } from '../database.js';
import type { ClaimState, SlotClaim, SlotClaims } from '../ports.js';
import { checkMoment, checkSlotKey, checkSlots } from '../port-rules.js';
import { committed, type BatchedSqlite } from './batched.js';

/** Rows deleted per statement when pruning, so a large backlog never holds the database for long. */
const PRUNE_BATCH = 500;

/** The statements; the port wraps them in its transactions. */
export class SlotClaimTable {
  readonly #claim: Statement;
  readonly #finish: Statement;
  readonly #find: Statement;
  readonly #prune: Statement;

  constructor(db: SqliteDatabase) {
    this.#claim = db.prepare(
      'INSERT OR IGNORE INTO scheduled_runs (account_id, slot_key, check_id, due_ms, location, claimed_ms) VALUES (?, ?, ?, ?, ?, ?)',
    );
    this.#finish = db.prepare('UPDATE scheduled_runs SET finished_ms = ? WHERE account_id = ? AND slot_key = ?');
    this.#find = db.prepare('SELECT claimed_ms AS claimedMs, finished_ms AS finishedMs FROM scheduled_runs WHERE account_id = ? AND slot_key = ?');
    this.#prune = db.prepare(`DELETE FROM scheduled_runs WHERE rowid IN (SELECT rowid FROM scheduled_runs WHERE due_ms < ? LIMIT ${PRUNE_BATCH})`);
  }

  /** Whether this call claimed the slot (false: it was claimed before, by anyone). */
  claim(slot: SlotClaim, claimedMs: number): boolean {
    return this.#claim.run(slot.accountId, slot.key, slot.checkId, slot.dueMs, slot.location, claimedMs).changes > 0;
  }

  finish(accountId: string, key: string, finishedMs: number): boolean {
    return this.#finish.run(finishedMs, accountId, key).changes > 0;
  }

  find(accountId: string, key: string): ClaimState | undefined {
    return this.#find.get(accountId, key) as ClaimState | undefined;
  }

  /** Deletes one batch of claims due before `dueBeforeMs`; how many went (0: none left). */
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
    return committed(this.#store, () => slots.filter((slot) => this.#table.claim(slot, claimedMs)));
  }

  async finish(accountId: string, key: string, finishedMs: number): Promise<boolean> {
    checkSlotKey(accountId, key);
    checkMoment('finishedMs', finishedMs);
    return committed(this.#store, () => this.#table.finish(accountId, key, finishedMs));
  }

  async find(accountId: string, key: string): Promise<ClaimState | undefined> {
    checkSlotKey(accountId, key);
    return this.#table.find(accountId, key);
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
