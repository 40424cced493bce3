import { describe, expect, it } from 'vitest';
import { inTurn } from './in-turn.js';

describe('inTurn', () => {
  it('runs operations in call order, one at a time, and a failure rejects only its own caller', async () => {
    const run = inTurn();
    const events: string[] = [];
    let releaseFirst!: () => void;
    const first = run(async () => {
      events.push('first starts');
      await new Promise<void>((resolve) => (releaseFirst = resolve));
      events.push('first ends');
      return 1;
    });
    const second = run(async () => {
      events.push('second runs');
      throw new Error('second failed');
    });
    const third = run(async () => {
      events.push('third runs');
      return 3;
    });
    await Promise.resolve();
    expect(events).toEqual(['first starts']);
    releaseFirst();
    await expect(first).resolves.toBe(1);
    await expect(second).rejects.toThrow('second failed');
    await expect(third).resolves.toBe(3);
    await run.settled();
    expect(events).toEqual(['first starts', 'first ends', 'second runs', 'third runs']);
  });
});
