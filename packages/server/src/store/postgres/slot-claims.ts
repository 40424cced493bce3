/**
 * Slot claims in PostgreSQL: one row per check and location holds the highest due time claimed (the
 * mark, see `SlotClaims` in ../ports.ts), so the table does not grow with runs. A claim is an
 * INSERT … ON CONFLICT DO UPDATE … WHERE stored mark < new mark RETURNING the mark it replaced, one
 * row per check and location of the call (../formats/slot-claim-marks.ts), so the call knows which of
 * its slots it won. Of two replicas raising the same row at once, the second waits for the first's
 * commit and then sees its mark, so each slot has exactly one owner. Same rules as
 * store/sqlite/slot-claims.ts.
 *
 * Every claim and finish updates a row in place; the table's only index is its key, which neither
 * changes, so PostgreSQL writes the new row versions on the same page (HOT, with the room step 28's
 * fillfactor leaves) and reclaims the old ones as it goes: the table stays the size of its live rows.
 */
import { sql, type Kysely } from 'kysely';
import type { ClaimMark, SlotClaim, SlotClaims } from '../ports.js';
import { checkClaimMarkOf, checkMoment, checkSlot, checkSlots } from '../port-rules.js';
import { MarkOutcomes, markWrites } from '../formats/slot-claim-marks.js';
import type { PostgresSchema } from './database.js';

/** Rows per INSERT: 5 parameters each stays far below PostgreSQL's 65,535 parameters a statement. */
const CLAIM_CHUNK = 1000;
/** Rows deleted per statement when pruning, so a large backlog never holds locks for long. */
const PRUNE_BATCH = 500;

export class PostgresSlotClaims implements SlotClaims {
  readonly #db: Kysely<PostgresSchema>;

  constructor(db: Kysely<PostgresSchema>) {
    this.#db = db;
  }

  async claim(slots: readonly SlotClaim[], claimedMs: number): Promise<SlotClaim[]> {
    checkSlots(slots, claimedMs);
    if (slots.length === 0) return [];
    // In key order (markWrites): rows are locked in the order of the VALUES list, the same for every caller.
    const writes = markWrites(slots);
    const outcomes = new MarkOutcomes();
    await this.#db.transaction().execute(async (tx) => {
      for (let start = 0; start < writes.length; start += CLAIM_CHUNK) {
        const chunk = writes.slice(start, start + CLAIM_CHUNK);
        const raised = await tx
          .insertInto('slot_claims')
          .values(chunk.map((write) => ({ account_id: write.accountId, check_id: write.checkId, location: write.location, due_ms: write.dueMs, claimed_ms: claimedMs })))
          .onConflict((conflict) =>
            conflict
              .columns(['account_id', 'check_id', 'location'])
              // The right-hand sides are the stored row's: prior_due_ms gets the mark being replaced.
              .doUpdateSet((update) => ({ prior_due_ms: update.ref('slot_claims.due_ms'), due_ms: update.ref('excluded.due_ms'), claimed_ms: update.ref('excluded.claimed_ms') }))
              .where('slot_claims.due_ms', '<', (where) => where.ref('excluded.due_ms')),
          )
          .returning(['account_id', 'check_id', 'location', 'prior_due_ms'])
          .execute();
        const byKey = new Map(raised.map((row) => [`${row.account_id}\u0000${row.check_id}\u0000${row.location}`, row.prior_due_ms]));
        for (const write of chunk) {
          const key = `${write.accountId}\u0000${write.checkId}\u0000${write.location}`;
          outcomes.record(write, byKey.has(key) ? { raised: true, priorDueMs: byKey.get(key) ?? null } : { raised: false });
        }
      }
    });
    return outcomes.won(slots);
  }

  async finish(slot: SlotClaim, finishedMs: number): Promise<boolean> {
    checkSlot(slot);
    checkMoment('finishedMs', finishedMs);
    const dueMs = sql`${slot.dueMs}::bigint`;
    const result = await this.#db
      .updateTable('slot_claims')
      // The latest finished stays the latest: a slot's run that ends after a later slot's leaves it.
      .set({
        finished_ms: sql<number>`CASE WHEN finished_due_ms IS NULL OR finished_due_ms <= ${dueMs} THEN ${finishedMs}::bigint ELSE finished_ms END`,
        finished_due_ms: sql<number>`GREATEST(finished_due_ms, ${dueMs})`,
      })
      .where('account_id', '=', slot.accountId)
      .where('check_id', '=', slot.checkId)
      .where('location', '=', slot.location)
      .where('due_ms', '>=', slot.dueMs)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  async find(accountId: string, checkId: string, location: string): Promise<ClaimMark | undefined> {
    checkClaimMarkOf(accountId, checkId, location);
    const row = await this.#db
      .selectFrom('slot_claims')
      .select(['due_ms', 'claimed_ms', 'finished_due_ms', 'finished_ms'])
      .where('account_id', '=', accountId)
      .where('check_id', '=', checkId)
      .where('location', '=', location)
      .executeTakeFirst();
    return row && { dueMs: row.due_ms, claimedMs: row.claimed_ms, finishedDueMs: row.finished_due_ms, finishedMs: row.finished_ms };
  }

  async prune(dueBeforeMs: number): Promise<number> {
    checkMoment('dueBeforeMs', dueBeforeMs);
    let removed = 0;
    for (;;) {
      // No index on due_ms (it changes at every claim, which would end the in-place updates); the
      // table holds a row per check and location, so each batch reads it whole, once a minute at most.
      const result = await this.#db
        .deleteFrom('slot_claims')
        .where(sql<boolean>`(account_id, check_id, location) IN (SELECT account_id, check_id, location FROM slot_claims WHERE due_ms < ${dueBeforeMs}::bigint LIMIT ${PRUNE_BATCH})`)
        .executeTakeFirst();
      const batch = Number(result.numDeletedRows);
      if (batch === 0) return removed;
      removed += batch;
    }
  }
}
