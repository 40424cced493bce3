/** The slot-claim port (a mark per check and location), the same assertions on every engine (see engines.ts). */
import { describe, expect, it } from 'vitest';
import type { SlotClaim, StoragePorts } from '../ports.js';
import { enginesUnderTest, twoReplicas } from './engines.js';

const engines = enginesUnderTest();
const DUE = Date.UTC(2026, 10, 1);

function slotOf(checkId: string, dueMs: number, location: string, accountId = 'acc'): SlotClaim {
  return { accountId, key: `${checkId}@${dueMs}@${location}`, checkId, dueMs, location };
}

/** 20 checks, each at one location, a slot a minute: index 0-19 are due first, 20-39 a minute later, … */
function slot(index: number, accountId = 'acc'): SlotClaim {
  const checkId = `check-${index % 20}`;
  const dueMs = DUE + Math.floor(index / 20) * 60_000;
  const location = index % 2 === 0 ? 'eu-west-1' : 'us-east-1';
  return { accountId, key: `${checkId}@${dueMs}@${location}`, checkId, dueMs, location };
}

const SLOTS = Array.from({ length: 200 }, (_, i) => slot(i));
const keys = (slots: readonly SlotClaim[]) => slots.map((claimed) => claimed.key).sort();

describe.each(engines)('slot claims on $name', (engine) => {
  it('gives each of 200 slots to exactly one of two replicas claiming them one by one in time order at once', async () => {
    const [a, b] = await twoReplicas(engine);
    // As schedulers do: each replica claims a check's slots in time order, never one before its last.
    const inTurn = async (replica: StoragePorts, claimedMs: number) => {
      const won: SlotClaim[] = [];
      for (const s of SLOTS) won.push(...(await replica.slotClaims.claim([s], claimedMs)));
      return won;
    };
    const [byA, byB] = await Promise.all([inTurn(a, DUE), inTurn(b, DUE + 1)]);
    expect(byA.length + byB.length).toBe(200);
    expect(keys([...byA, ...byB])).toEqual(keys(SLOTS));
  });

  it('gives each slot to exactly one of two replicas ticking at different paces, several slots of a check in one call', async () => {
    const [a, b] = await twoReplicas(engine);
    const dueTimes = [...new Set(SLOTS.map((s) => s.dueMs))];
    // A claims one due time's slots a call; B two due times' at once, so two slots of each check.
    const ticking = async (replica: StoragePorts, dueTimesPerTick: number) => {
      const won: SlotClaim[] = [];
      for (let first = 0; first < dueTimes.length; first += dueTimesPerTick) {
        const tick = new Set(dueTimes.slice(first, first + dueTimesPerTick));
        won.push(...(await replica.slotClaims.claim(SLOTS.filter((s) => tick.has(s.dueMs)), DUE)));
      }
      return won;
    };
    const [byA, byB] = await Promise.all([ticking(a, 1), ticking(b, 2)]);
    expect(byA.length + byB.length).toBe(200);
    expect(keys([...byA, ...byB])).toEqual(keys(SLOTS));
  });

  it('splits 200 slots between two replicas claiming them in batches, in opposite orders, at once', async () => {
    const [a, b] = await twoReplicas(engine);
    const [byA, byB] = await Promise.all([a.slotClaims.claim(SLOTS, DUE), b.slotClaims.claim([...SLOTS].reverse(), DUE)]);
    expect(byA.length + byB.length).toBe(200);
    expect(keys([...byA, ...byB])).toEqual(keys(SLOTS));
    expect(await a.slotClaims.claim(SLOTS.slice(0, 5), DUE + 10)).toEqual([]);
  });

  it('returns the claimed slots in the order given, skipping those claimed before', async () => {
    const [a, b] = await twoReplicas(engine);
    expect(await a.slotClaims.claim([slot(3), slot(1)], DUE)).toEqual([slot(3), slot(1)]);
    expect(await b.slotClaims.claim([slot(5), slot(3), slot(2), slot(1)], DUE)).toEqual([slot(5), slot(2)]);
  });

  it('keeps the slots of accounts apart', async () => {
    const [a, b] = await twoReplicas(engine);
    expect(await a.slotClaims.claim([slot(7, 'acc-1')], DUE)).toHaveLength(1);
    expect(await b.slotClaims.claim([slot(7, 'acc-2')], DUE)).toHaveLength(1);
  });

  it('refuses a slot at or below the mark of its check and location, whoever asks, and wins those above it', async () => {
    const [a, b] = await twoReplicas(engine);
    const minute = (n: number, location = 'eu-west-1') => slotOf('check-x', DUE + n * 60_000, location);
    expect(await a.slotClaims.claim([minute(2)], DUE)).toEqual([minute(2)]);
    expect(await b.slotClaims.claim([minute(1)], DUE)).toEqual([]);
    expect(await b.slotClaims.claim([minute(2)], DUE)).toEqual([]);
    // Another location of the same check has a mark of its own.
    expect(await b.slotClaims.claim([minute(1, 'us-east-1')], DUE)).toEqual([minute(1, 'us-east-1')]);
    expect(await b.slotClaims.claim([minute(3)], DUE + 5)).toEqual([minute(3)]);
    expect(await a.slotClaims.find('acc', 'check-x', 'eu-west-1')).toEqual({ dueMs: minute(3).dueMs, claimedMs: DUE + 5, finishedDueMs: null, finishedMs: null });
  });

  it('claims several slots of one check in one call: those above the mark, the mark becoming the highest', async () => {
    const [a, b] = await twoReplicas(engine);
    const minute = (n: number, location = 'eu-west-1') => slotOf('check-y', DUE + n * 60_000, location);
    expect(await a.slotClaims.claim([minute(1), minute(2), minute(3), minute(2, 'us-east-1')], DUE)).toEqual([minute(1), minute(2), minute(3), minute(2, 'us-east-1')]);
    expect(await b.slotClaims.claim([minute(2), minute(4), minute(3), minute(5)], DUE + 1)).toEqual([minute(4), minute(5)]);
    expect(await a.slotClaims.claim([minute(5), minute(6), minute(3, 'us-east-1')], DUE + 2)).toEqual([minute(6), minute(3, 'us-east-1')]);
    expect(await b.slotClaims.find('acc', 'check-y', 'eu-west-1')).toEqual({ dueMs: minute(6).dueMs, claimedMs: DUE + 2, finishedDueMs: null, finishedMs: null });
    expect(await b.slotClaims.find('acc', 'check-y', 'us-east-1')).toEqual({ dueMs: minute(3, 'us-east-1').dueMs, claimedMs: DUE + 2, finishedDueMs: null, finishedMs: null });
  });

  it('records the latest finished slot, seen from the other replica, and says when a slot is above the mark or never claimed', async () => {
    const [a, b] = await twoReplicas(engine);
    const minute = (n: number) => slotOf('check-z', DUE + n * 60_000, 'eu-west-1');
    await a.slotClaims.claim([minute(1), minute(2)], DUE + 3);
    expect(await b.slotClaims.find('acc', 'check-z', 'eu-west-1')).toEqual({ dueMs: minute(2).dueMs, claimedMs: DUE + 3, finishedDueMs: null, finishedMs: null });
    expect(await b.slotClaims.finish(minute(2), DUE + 900)).toBe(true);
    // The earlier slot's run ending later leaves the latest finished as it was.
    expect(await b.slotClaims.finish(minute(1), DUE + 950)).toBe(true);
    expect(await a.slotClaims.find('acc', 'check-z', 'eu-west-1')).toEqual({ dueMs: minute(2).dueMs, claimedMs: DUE + 3, finishedDueMs: minute(2).dueMs, finishedMs: DUE + 900 });
    expect(await a.slotClaims.finish(minute(3), DUE + 990)).toBe(false);
    expect(await a.slotClaims.finish(slotOf('check-never', DUE, 'eu-west-1'), DUE + 990)).toBe(false);
    expect(await a.slotClaims.find('acc', 'check-never', 'eu-west-1')).toBeUndefined();
    expect(await a.slotClaims.find('acc', 'check-z', 'eu-west-1')).toEqual({ dueMs: minute(2).dueMs, claimedMs: DUE + 3, finishedDueMs: minute(2).dueMs, finishedMs: DUE + 900 });
  });

  it("marks a slot finished inside a unit of work: seen by the other replica once the unit commits, undone with a unit that fails", async () => {
    const [a, b] = await twoReplicas(engine);
    const minute = (n: number) => slotOf('check-u', DUE + n * 60_000, 'eu-west-1');
    await a.slotClaims.claim([minute(1), minute(2)], DUE);
    await expect(
      a.transaction(async (tx) => {
        expect(await tx.slotClaims.finish(minute(1), DUE + 100)).toBe(true);
        throw new Error('the run was not stored');
      }),
    ).rejects.toThrow('the run was not stored');
    expect(await b.slotClaims.find('acc', 'check-u', 'eu-west-1')).toEqual({ dueMs: minute(2).dueMs, claimedMs: DUE, finishedDueMs: null, finishedMs: null });
    expect(await a.transaction((tx) => tx.slotClaims.finish(minute(2), DUE + 200))).toBe(true);
    expect(await b.slotClaims.find('acc', 'check-u', 'eu-west-1')).toEqual({ dueMs: minute(2).dueMs, claimedMs: DUE, finishedDueMs: minute(2).dueMs, finishedMs: DUE + 200 });
    expect(await a.transaction((tx) => tx.slotClaims.finish(minute(3), DUE + 300))).toBe(false);
    await expect(a.transaction((tx) => tx.slotClaims.finish(minute(2), -1))).rejects.toThrow('finishedMs must be a whole number of milliseconds since the epoch, got -1');
  });

  it('keeps one row per check and location however many slots are claimed', async () => {
    const [a] = await twoReplicas(engine);
    const many = Array.from({ length: 1200 }, (_, i) => slot(i));
    await a.slotClaims.claim(many, DUE);
    // 20 checks and their one location each: pruning everything below the end removes 20 marks.
    expect(await a.slotClaims.prune(DUE + 24 * 60 * 60_000)).toBe(20);
  });

  it('prunes the marks not raised since a moment (deleted checks), in batches, and no others', async () => {
    const [a, b] = await twoReplicas(engine);
    const gone = Array.from({ length: 1100 }, (_, i) => slotOf(`deleted-${i}`, DUE, 'eu-west-1'));
    await a.slotClaims.claim(gone, DUE);
    const live = slotOf('live', DUE, 'eu-west-1');
    const liveLater = slotOf('live', DUE + 60 * 60_000, 'eu-west-1');
    await a.slotClaims.claim([live], DUE);
    await b.slotClaims.claim([liveLater], DUE + 60 * 60_000);
    const cutoff = DUE + 30 * 60_000;
    expect(await b.slotClaims.prune(cutoff)).toBe(1100);
    expect(await a.slotClaims.find('acc', 'deleted-0', 'eu-west-1')).toBeUndefined();
    expect(await a.slotClaims.find('acc', 'live', 'eu-west-1')).toEqual({ dueMs: liveLater.dueMs, claimedMs: DUE + 60 * 60_000, finishedDueMs: null, finishedMs: null });
    expect(await b.slotClaims.prune(cutoff)).toBe(0);
  });

  it('refuses bad input with errors that name it, claiming nothing', async () => {
    const [a] = await twoReplicas(engine);
    await expect(a.slotClaims.claim([{ ...slot(0), key: 'check-0@1@eu-west-1' }], DUE)).rejects.toThrow(
      `slot key "check-0@1@eu-west-1" is not checkId@dueMs@location ("check-0@${DUE}@eu-west-1")`,
    );
    await expect(a.slotClaims.claim([slot(1), slot(2), slot(1)], DUE)).rejects.toThrow(`slot "check-1@${DUE}@us-east-1" of account "acc" is listed twice in one claim`);
    await expect(a.slotClaims.claim([{ ...slot(0), accountId: '' }], DUE)).rejects.toThrow('accountId must be a string that is not empty, got ""');
    await expect(a.slotClaims.claim([slot(0)], -5)).rejects.toThrow('claimedMs must be a whole number of milliseconds since the epoch, got -5');
    await expect(a.slotClaims.finish({ ...slot(0), location: '' }, DUE)).rejects.toThrow('location must be a string that is not empty, got ""');
    await expect(a.slotClaims.finish(slot(0), -1)).rejects.toThrow('finishedMs must be a whole number of milliseconds since the epoch, got -1');
    await expect(a.slotClaims.find('acc', '', 'eu-west-1')).rejects.toThrow('checkId must be a string that is not empty, got ""');
    await expect(a.slotClaims.prune(Number.NaN)).rejects.toThrow('dueBeforeMs must be a whole number of milliseconds since the epoch, got NaN');
    expect(await a.slotClaims.find('acc', slot(1).checkId, slot(1).location)).toBeUndefined();
    expect(await a.slotClaims.claim([], DUE)).toEqual([]);
  });
});
