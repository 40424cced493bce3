/**
 * How both engines turn a claim of slots into one conditional write per check and location, and the
 * write's answer back into the slots won. A claim stores only the highest due time per check and
 * location (the mark, `ClaimMark` in ../ports.ts); a tick may claim several slots of one check at
 * once (a location each, or several due times after a slow tick), and one statement cannot update
 * a row twice, so the engine writes each check and location once, with the highest due time of the
 * call, and learns from the write the mark it raised: the call won exactly its slots above that.
 */
import type { SlotClaim } from '../ports.js';

/** The slots of one call at one check and location: what the engine writes once. */
export interface MarkWrite {
  readonly accountId: string;
  readonly checkId: string;
  readonly location: string;
  /** The highest due time among the call's slots of this check and location: the new mark. */
  readonly dueMs: number;
}

/**
 * What a conditional write found: `raised` when it raised the mark (inserted the row, or the stored
 * mark was below `dueMs`), with the mark before it (`null`: the row is new); not raised when the
 * stored mark was already at or above `dueMs`, and the call won none of these slots.
 */
export type MarkOutcome = { readonly raised: false } | { readonly raised: true; readonly priorDueMs: number | null };

const markId = (accountId: string, checkId: string, location: string): string => `${accountId}\u0000${checkId}\u0000${location}`;

/**
 * One write per check and location of `slots`, in one order every caller uses (account, check,
 * location, compared as JavaScript strings): two callers locking overlapping rows in different orders
 * would each wait on a row the other holds, a deadlock the database breaks by failing one of them.
 */
export function markWrites(slots: readonly SlotClaim[]): MarkWrite[] {
  const highest = new Map<string, MarkWrite>();
  for (const slot of slots) {
    const id = markId(slot.accountId, slot.checkId, slot.location);
    const known = highest.get(id);
    if (known === undefined || known.dueMs < slot.dueMs) highest.set(id, { accountId: slot.accountId, checkId: slot.checkId, location: slot.location, dueMs: slot.dueMs });
  }
  return [...highest.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, write]) => write);
}

/** Collects each write's outcome, then answers which of the call's slots it won, in the order given. */
export class MarkOutcomes {
  readonly #outcomes = new Map<string, MarkOutcome>();

  record(write: MarkWrite, outcome: MarkOutcome): void {
    this.#outcomes.set(markId(write.accountId, write.checkId, write.location), outcome);
  }

  /** The slots above the mark each write raised; a write that raised nothing won none. */
  won(slots: readonly SlotClaim[]): SlotClaim[] {
    return slots.filter((slot) => {
      const outcome = this.#outcomes.get(markId(slot.accountId, slot.checkId, slot.location));
      return outcome !== undefined && outcome.raised && (outcome.priorDueMs === null || slot.dueMs > outcome.priorDueMs);
    });
  }
}
