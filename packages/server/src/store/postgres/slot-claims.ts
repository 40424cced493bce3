/**
 * Slot claims in PostgreSQL: a claim is an INSERT … ON CONFLICT DO NOTHING RETURNING of the slots'
 * keys, and the rows it returns are the slots this caller won. Of two replicas inserting the same key
 * at once, the second waits for the first's commit and then skips the row, so each slot has exactly
 * one owner. Same rules as store/sqlite/slot-claims.ts.
 */
import { sql, type Kysely } from 'kysely';
import type { ClaimState, SlotClaim, SlotClaims } from '../ports.js';
import { checkMoment, checkSlotKey, checkSlots } from '../port-rules.js';
import type { PostgresSchema } from './database.js';

/** Rows per INSERT: 7 parameters each stays far below PostgreSQL's 65,535 parameters a statement. */
const CLAIM_CHUNK = 1000;
/** Rows deleted per statement when pruning, so a large backlog never holds locks for long. */
const PRUNE_BATCH = 500;

const byKey = (a: SlotClaim, b: SlotClaim): number =>
  a.accountId < b.accountId ? -1 : a.accountId > b.accountId ? 1 : a.key < b.key ? -1 : a.key > b.key ? 1 : 0;

export class PostgresSlotClaims implements SlotClaims {
  readonly #db: Kysely<PostgresSchema>;

  constructor(db: Kysely<PostgresSchema>) {
    this.#db = db;
  }

  async claim(slots: readonly SlotClaim[], claimedMs: number): Promise<SlotClaim[]> {
    checkSlots(slots, claimedMs);
    if (slots.length === 0) return [];
    // Every caller inserts in one order: two replicas inserting overlapping slots in different orders
    // would each wait on a key the other inserted first, a deadlock PostgreSQL breaks by failing one.
    const ordered = [...slots].sort(byKey);
    const won = new Set<string>();
    await this.#db.transaction().execute(async (tx) => {
      for (let start = 0; start < ordered.length; start += CLAIM_CHUNK) {
        const rows = ordered.slice(start, start + CLAIM_CHUNK).map((slot) => ({
          account_id: slot.accountId,
          slot_key: slot.key,
          check_id: slot.checkId,
          due_ms: slot.dueMs,
          location: slot.location,
          claimed_ms: claimedMs,
        }));
        const inserted = await tx
          .insertInto('scheduled_runs')
          .values(rows)
          .onConflict((conflict) => conflict.columns(['account_id', 'slot_key']).doNothing())
          .returning(['account_id', 'slot_key'])
          .execute();
        for (const row of inserted) won.add(`${row.account_id}\u0000${row.slot_key}`);
      }
    });
    return slots.filter((slot) => won.has(`${slot.accountId}\u0000${slot.key}`));
  }

  async finish(accountId: string, key: string, finishedMs: number): Promise<boolean> {
    checkSlotKey(accountId, key);
    checkMoment('finishedMs', finishedMs);
    const result = await this.#db
      .updateTable('scheduled_runs')
      .set({ finished_ms: finishedMs })
      .where('account_id', '=', accountId)
      .where('slot_key', '=', key)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  async find(accountId: string, key: string): Promise<ClaimState | undefined> {
    checkSlotKey(accountId, key);
    const row = await this.#db
      .selectFrom('scheduled_runs')
      .select(['claimed_ms', 'finished_ms'])
      .where('account_id', '=', accountId)
      .where('slot_key', '=', key)
      .executeTakeFirst();
    return row && { claimedMs: row.claimed_ms, finishedMs: row.finished_ms };
  }

  async prune(dueBeforeMs: number): Promise<number> {
    checkMoment('dueBeforeMs', dueBeforeMs);
    let removed = 0;
    for (;;) {
      const result = await this.#db
        .deleteFrom('scheduled_runs')
        .where(sql<boolean>`(account_id, slot_key) IN (SELECT account_id, slot_key FROM scheduled_runs WHERE due_ms < ${dueBeforeMs}::bigint LIMIT ${PRUNE_BATCH})`)
        .executeTakeFirst();
      const batch = Number(result.numDeletedRows);
      if (batch === 0) return removed;
      removed += batch;
    }
  }
}
