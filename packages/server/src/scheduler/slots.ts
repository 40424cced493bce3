/**
 * When a check runs, as a pure function of (check, time window) → due slots. Nothing
 * here reads a clock or a database, so the same function serves the in-process scheduler, a future
 * job-queue producer, tests and `vigil status`' "next run".
 *
 * A slot is one run of one check in one location at one moment. Its key is stable across restarts,
 * so the store can refuse a slot that already ran (at most once per location, also after a crash).
 *
 * Timing, from the spec's `frequencyOffset` rules (§8):
 * - frequency 0: a run every `frequencyOffset` seconds (10, 20 or 30);
 * - frequency 1..60 minutes: `frequencyOffset` 1..frequency×10 picks the 6-second step (a tenth of a
 *   minute) of the period the start falls in, so checks with the same frequency do not all start at
 *   once;
 * - frequency above 60 minutes: `frequencyOffset` 1..ceil(frequency/60) picks the hour.
 * Inside its step, and over the whole period for a check without an offset or with frequency 0, a
 * check starts at a moment taken from a hash of its id, to the millisecond: deterministic per check.
 * The service assigns offsets, so without that spread the 1,000 checks of one step would all be due
 * at the same instant; with it, 10,000 checks every minute arrive as a steady 167 runs a second.
 * Periods are aligned to the UNIX epoch, so a slot's moment does not depend on when the service
 * started.
 */
import { createHash } from 'node:crypto';

export interface SchedulableCheck {
  /** Account and check id: together, the identity of a check across tenants. */
  accountId: string;
  id: string;
  frequency: number;
  frequencyOffset?: number | null;
  /** Effective locations (the group's when the check has none); empty: the service's default location. */
  locations: readonly string[];
  runParallel?: boolean | null;
}

export interface Slot {
  accountId: string;
  checkId: string;
  /** The moment the run is due, ms since the epoch. */
  dueMs: number;
  location: string;
  /** `${checkId}@${dueMs}@${location}`: unique per account, the idempotency key of the run. */
  key: string;
}

/** The location label runs get when a check names none. */
export const DEFAULT_LOCATION = 'local';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/** Milliseconds between two runs of the check. */
export function periodMs(check: Pick<SchedulableCheck, 'frequency' | 'frequencyOffset'>): number {
  if (check.frequency === 0) {
    const seconds = check.frequencyOffset === 10 || check.frequencyOffset === 20 || check.frequencyOffset === 30 ? check.frequencyOffset : 10;
    return seconds * SECOND;
  }
  return Math.max(1, check.frequency) * MINUTE;
}

/** Where inside its period the check starts, ms after the period's start. */
export function phaseMs(check: Pick<SchedulableCheck, 'id' | 'frequency' | 'frequencyOffset'>): number {
  const period = periodMs(check);
  const offset = check.frequencyOffset;
  if (check.frequency === 0 || offset === undefined || offset === null || offset < 1) return hashPhase(check, period);
  const step = check.frequency <= 60 ? 6 * SECOND : HOUR;
  return (((offset * step) % period) + hashPhase(check, step)) % period;
}

/** Every slot of `check` due in `[fromMs, toMs)`, in time order (locations in their listed order). */
export function dueSlots(check: SchedulableCheck, fromMs: number, toMs: number): Slot[] {
  const period = periodMs(check);
  const phase = phaseMs(check);
  const locations = check.locations.length > 0 ? check.locations : [DEFAULT_LOCATION];
  const slots: Slot[] = [];
  for (let index = Math.ceil((fromMs - phase) / period); index * period + phase < toMs; index++) {
    const dueMs = index * period + phase;
    // Rotating by the slot's index (not a counter) keeps the rotation the same after a restart.
    const chosen = check.runParallel ? locations : [locations[positiveModulo(index, locations.length)]!];
    for (const location of chosen) {
      slots.push({ accountId: check.accountId, checkId: check.id, dueMs, location, key: `${check.id}@${dueMs}@${location}` });
    }
  }
  return slots;
}

/** The next moment at or after `nowMs` the check is due. */
export function nextDueMs(check: Pick<SchedulableCheck, 'id' | 'frequency' | 'frequencyOffset'>, nowMs: number): number {
  const period = periodMs(check);
  const phase = phaseMs(check);
  return Math.ceil((nowMs - phase) / period) * period + phase;
}

/** The hashed moments already computed, per check object (the scheduler keeps one per check). */
const hashedPhases = new WeakMap<object, { period: number; phase: number }>();

/** A moment in `[0, span)` from a hash of the check's id. */
function hashPhase(check: Pick<SchedulableCheck, 'id'>, span: number): number {
  const known = hashedPhases.get(check);
  if (known?.period === span) return known.phase;
  const digest = createHash('sha256').update(check.id).digest();
  // 48 bits of the hash: an even spread over spans up to the longest (a day is 8.6e7 ms).
  const phase = digest.readUIntBE(0, 6) % span;
  hashedPhases.set(check, { period: span, phase });
  return phase;
}

function positiveModulo(value: number, modulus: number): number {
  return ((value % modulus) + modulus) % modulus;
}
