/**
 * The nested-unit guard with its async context switched on only while units run: a unit's work must
 * still be found after it awaited a timer and other units began and ended meanwhile, and work it left
 * behind must be free to run units once it ended.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { NestedUnitError, asUnitOf, refuseNestedUnit, runAsUnitOf } from './unit-of-work.js';

const NESTED = 'transaction() was called inside a unit of work of the same ports; write through the ports the unit was given instead';

describe('units of work refuse nested units', () => {
  it('finds the outer unit after it awaited a timer while a unit of other ports began and ended', async () => {
    const ours = {};
    const theirs = {};
    const outer = asUnitOf(ours, async () => {
      await sleep(20);
      expect(() => refuseNestedUnit(ours)).toThrow(NESTED);
      await expect(asUnitOf(ours, async () => 'inner')).rejects.toThrow(NestedUnitError);
      // Another owner's units are not this one's to refuse.
      expect(await asUnitOf(theirs, async () => 'theirs')).toBe('theirs');
      return 'outer';
    });
    expect(await asUnitOf(theirs, async () => 'ended first')).toBe('ended first');
    expect(await outer).toBe('outer');
  });

  it('lets a callback a unit left behind run a unit of the same ports once the unit ended', async () => {
    const ours = {};
    let later!: Promise<string>;
    await runAsUnitOf(ours, async () => {
      later = sleep(20).then(() => asUnitOf(ours, async () => 'later'));
    });
    expect(await later).toBe('later');
    expect(() => refuseNestedUnit(ours)).not.toThrow();
  });

  it('refuses from the unit\'s own synchronous start as from its awaited continuations', async () => {
    const ours = {};
    await runAsUnitOf(ours, () => {
      expect(() => refuseNestedUnit(ours)).toThrow(NESTED);
      return Promise.resolve();
    });
  });
});
