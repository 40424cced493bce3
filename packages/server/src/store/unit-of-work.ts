/**
 * What both engines do the same way around a unit of work (`StoragePorts.transaction`): refusing a
 * unit asked for from inside another unit of the same ports. On SQLite the inner one would wait for
 * the outer one to end, which waits for the inner one; on PostgreSQL it would be a second transaction
 * on another connection, not part of the first, and could wait on the first one's row locks.
 *
 * The unit is found through an AsyncLocalStorage, which is switched on only while some unit's work
 * runs: while one is on, Node runs a hook on every promise the process makes, which cost an API
 * create about a tenth of its CPU when it stayed on for good.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

interface OpenUnit {
  readonly owner: object;
  open: boolean;
}

/** The unit whose `work` is running, as seen from any code it awaits or calls. */
const runningUnit = new AsyncLocalStorage<OpenUnit>();
/** Units whose work is running now (in every engine): the storage is switched off when none is. */
let unitsRunning = 0;

export class NestedUnitError extends Error {
  override readonly name = 'NestedUnitError';
}

/**
 * Throws when called from inside the work of a unit of `owner`'s (the ports it belongs to). An engine
 * that queues its units calls it before queueing, where the nested unit would otherwise wait forever.
 */
export function refuseNestedUnit(owner: object): void {
  const outer = runningUnit.getStore();
  if (outer?.open === true && outer.owner === owner) {
    throw new NestedUnitError('transaction() was called inside a unit of work of the same ports; write through the ports the unit was given instead');
  }
}

/**
 * Runs a unit's `work`, marked as a unit of `owner`'s for `refuseNestedUnit`. A timer or callback
 * the unit started keeps its async context after it ended; the unit is marked closed then, so that
 * later work is not refused.
 */
export async function runAsUnitOf<T>(owner: object, work: () => Promise<T>): Promise<T> {
  const unit: OpenUnit = { owner, open: true };
  unitsRunning += 1;
  try {
    return await runningUnit.run(unit, work);
  } finally {
    unit.open = false;
    unitsRunning -= 1;
    if (unitsRunning === 0) runningUnit.disable();
  }
}

/**
 * The unit whose work is running here (the same object for every call it makes), or undefined outside
 * any: PostgreSQL's pool tells a unit's connection (held for the unit's every statement) from a
 * single statement's by it, and reserves connections for the latter (postgres/guarded-pool.ts).
 */
export function unitRunningHere(): object | undefined {
  const unit = runningUnit.getStore();
  return unit?.open === true ? unit : undefined;
}

/** Both at once, for an engine whose units start as soon as they are asked for. */
export async function asUnitOf<T>(owner: object, work: () => Promise<T>): Promise<T> {
  refuseNestedUnit(owner);
  return runAsUnitOf(owner, work);
}
