/**
 * What both engines do the same way around a unit of work (`StoragePorts.transaction`): refusing a
 * unit asked for from inside another unit of the same ports. On SQLite the inner one would wait for
 * the outer one to end, which waits for the inner one; on PostgreSQL it would be a second transaction
 * on another connection, not part of the first, and could wait on the first one's row locks.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

interface OpenUnit {
  readonly owner: object;
  open: boolean;
}

/** The unit whose `work` is running, as seen from any code it awaits or calls. */
const runningUnit = new AsyncLocalStorage<OpenUnit>();

export class NestedUnitError extends Error {
  override readonly name = 'NestedUnitError';
}

/**
 * Runs `work` as a unit of `owner`'s (the ports it belongs to), refusing, before it starts, to run
 * inside another unit of the same owner. A timer or callback a unit started keeps the unit's async
 * context after it ended; the unit is marked closed then, so that later work is not refused.
 */
export async function asUnitOf<T>(owner: object, work: () => Promise<T>): Promise<T> {
  const outer = runningUnit.getStore();
  if (outer?.open === true && outer.owner === owner) {
    throw new NestedUnitError('transaction() was called inside a unit of work of the same ports; write through the ports the unit was given instead');
  }
  const unit: OpenUnit = { owner, open: true };
  try {
    return await runningUnit.run(unit, work);
  } finally {
    unit.open = false;
  }
}
