/** The slot-claim port, the same assertions on every engine (see engines.ts). */
import { describe, expect, it } from 'vitest';
import type { SlotClaim } from '../ports.js';
import { enginesUnderTest, twoReplicas } from './engines.js';

const engines = enginesUnderTest();
const DUE = Date.UTC(2026, 10, 1);

function slot(index: number, accountId = 'acc'): SlotClaim {
  const checkId = `check-${index % 20}`;
  const dueMs = DUE + Math.floor(index / 20) * 60_000;
  const location = index % 2 === 0 ? 'eu-west-1' : 'us-east-1';
  return { accountId, key: `${checkId}@${dueMs}@${location}`, checkId, dueMs, location };
}

const SLOTS = Array.from({ length: 200 }, (_, i) => slot(i));
const keys = (slots: readonly SlotClaim[]) => slots.map((claimed) => claimed.key).sort();

describe.each(engines)('slot claims on $name', (engine) => {
  it('gives each of 200 slots to exactly one of two replicas claiming them one by one at once', async () => {
    const [a, b] = await twoReplicas(engine);
    const claims = await Promise.all(SLOTS.flatMap((s) => [a.slotClaims.claim([s], DUE), b.slotClaims.claim([s], DUE + 1)]));
    const won = claims.flat();
    expect(won).toHaveLength(200);
    expect(keys(won)).toEqual(keys(SLOTS));
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

  it('marks a claimed slot finished, seen from the other replica, and says when a slot was never claimed', async () => {
    const [a, b] = await twoReplicas(engine);
    await a.slotClaims.claim([slot(0)], DUE + 3);
    expect(await b.slotClaims.find('acc', slot(0).key)).toEqual({ claimedMs: DUE + 3, finishedMs: null });
    expect(await b.slotClaims.finish('acc', slot(0).key, DUE + 900)).toBe(true);
    expect(await a.slotClaims.find('acc', slot(0).key)).toEqual({ claimedMs: DUE + 3, finishedMs: DUE + 900 });
    expect(await a.slotClaims.finish('acc', slot(1).key, DUE + 900)).toBe(false);
    expect(await a.slotClaims.find('acc', slot(1).key)).toBeUndefined();
  });

  it('prunes the claims of slots due before a moment, in batches, and no others', async () => {
    const [a, b] = await twoReplicas(engine);
    const many = Array.from({ length: 1200 }, (_, i) => slot(i));
    await a.slotClaims.claim(many, DUE);
    const cutoff = DUE + 30 * 60_000;
    const before = many.filter((s) => s.dueMs < cutoff);
    expect(await b.slotClaims.prune(cutoff)).toBe(before.length);
    expect(await a.slotClaims.find('acc', before[0]!.key)).toBeUndefined();
    expect(await a.slotClaims.find('acc', many.at(-1)!.key)).toEqual({ claimedMs: DUE, finishedMs: null });
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
    await expect(a.slotClaims.finish('acc', '', DUE)).rejects.toThrow('slot key must be a string that is not empty, got ""');
    await expect(a.slotClaims.prune(Number.NaN)).rejects.toThrow('dueBeforeMs must be a whole number of milliseconds since the epoch, got NaN');
    expect(await a.slotClaims.find('acc', slot(1).key)).toBeUndefined();
    expect(await a.slotClaims.claim([], DUE)).toEqual([]);
  });
});
