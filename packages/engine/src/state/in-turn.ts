/**
 * Runs operations one at a time in call order, so the last write called is the one stored. A failed
 * operation rejects only its own caller: the ones queued after it still run.
 */
export interface InTurn {
  <T>(work: () => Promise<T>): Promise<T>;
  /** Resolves once every operation called so far has finished, whatever its outcome. */
  settled(): Promise<void>;
}

export function inTurn(): InTurn {
  let queue: Promise<unknown> = Promise.resolve();
  const run = <T>(work: () => Promise<T>): Promise<T> => {
    const result = queue.then(work);
    queue = result.catch(() => undefined);
    return result;
  };
  return Object.assign(run, { settled: () => queue.then(() => undefined) });
}
