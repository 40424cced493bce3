/** The project-states port, the same assertions on every engine (see engines.ts). */
import { describe, expect, it } from 'vitest';
import { StoreInputError } from '../port-rules.js';
import type { StoragePorts } from '../ports.js';
import { enginesUnderTest, twoReplicas } from './engines.js';

const engines = enginesUnderTest();

const state = (serial: number, lineage = 'L1') => ({ lineage, serial, doc: JSON.stringify({ lineage, serial, resources: [] }) });

/** The route's rule (routes/state.ts) in one unit: a newer serial of the same lineage is stored, anything else refused. */
function writeNewer(ports: StoragePorts, project: string, next: ReturnType<typeof state>): Promise<'stored' | 'refused'> {
  return ports.transaction(async ({ projectStates }) => {
    await projectStates.takeTurn('acc', project);
    const stored = await projectStates.get('acc', project);
    if (stored && (stored.lineage !== next.lineage || next.serial <= stored.serial)) return 'refused';
    await projectStates.put('acc', project, next, 1_000);
    return 'stored';
  });
}

describe.each(engines)('project states on $name', (engine) => {
  it('gives a state back as written, from another replica, per account and project, and removes it', async () => {
    const [a, b] = await twoReplicas(engine);
    expect(await a.projectStates.get('acc', 'web')).toBeUndefined();
    await a.projectStates.put('acc', 'web', state(1), 1_000);
    expect(await b.projectStates.get('acc', 'web')).toEqual(state(1));
    expect(await b.projectStates.get('other', 'web')).toBeUndefined();
    expect(await b.projectStates.get('acc', 'api')).toBeUndefined();
    await b.projectStates.put('acc', 'web', state(2), 2_000);
    expect(await a.projectStates.get('acc', 'web')).toEqual(state(2));
    expect(await a.projectStates.remove('other', 'web')).toBe(false);
    expect(await a.projectStates.remove('acc', 'web')).toBe(true);
    expect(await a.projectStates.remove('acc', 'web')).toBe(false);
    expect(await b.projectStates.get('acc', 'web')).toBeUndefined();
  });

  it('keeps a serial past 2^31 and a document of several megabytes as sent', async () => {
    const [a, b] = await twoReplicas(engine);
    const big = { lineage: 'L1', serial: 2 ** 40, doc: JSON.stringify({ padding: 'é'.repeat(3_000_000) }) };
    await a.projectStates.put('acc', 'big', big, 1_000);
    expect(await b.projectStates.get('acc', 'big')).toEqual(big);
  });

  it('takes a lock once, renews it under its id, reports its holder to others, and releases it only to its id', async () => {
    const [a, b] = await twoReplicas(engine);
    const first = await a.projectStates.lock('acc', 'web', { lockId: 'L-a', info: '{"ID":"L-a"}', nowMs: 1_000, expiresMs: 301_000 });
    expect(first).toEqual({ taken: true, holder: { lockId: 'L-a', info: '{"ID":"L-a"}', createdMs: 1_000, expiresMs: 301_000 } });
    const other = await b.projectStates.lock('acc', 'web', { lockId: 'L-b', info: '{"ID":"L-b"}', nowMs: 2_000, expiresMs: 302_000 });
    expect(other).toEqual({ taken: false, holder: first.holder });
    const renewed = await b.projectStates.lock('acc', 'web', { lockId: 'L-a', info: '{"ID":"L-a","again":true}', nowMs: 3_000, expiresMs: 603_000 });
    expect(renewed).toEqual({ taken: false, holder: { ...first.holder, expiresMs: 603_000 } });
    expect(await a.projectStates.held('other', 'web')).toBeUndefined();
    expect(await a.projectStates.unlock('acc', 'web', 'L-b')).toBe(false);
    expect(await b.projectStates.held('acc', 'web')).toEqual(renewed.holder);
    expect(await a.projectStates.unlock('acc', 'web', 'L-a')).toBe(true);
    expect(await b.projectStates.held('acc', 'web')).toBeUndefined();
    expect((await b.projectStates.lock('acc', 'web', { lockId: 'L-b', info: '{"ID":"L-b"}', nowMs: 4_000, expiresMs: 304_000 })).taken).toBe(true);
  });

  it('of two replicas locking one project at once, one takes it and the other is told its holder', async () => {
    const [a, b] = await twoReplicas(engine);
    const locks = [a, b].map((ports, index) =>
      ports.transaction(async ({ projectStates }) => {
        await projectStates.takeTurn('acc', 'web');
        return projectStates.lock('acc', 'web', { lockId: `L-${index}`, info: `{"ID":"L-${index}"}`, nowMs: 1_000, expiresMs: 2_000 });
      }),
    );
    const [one, two] = await Promise.all(locks);
    expect([one!.taken, two!.taken].sort()).toEqual([false, true]);
    expect(one!.holder).toEqual(two!.holder);
  });

  it('of replicas racing to write one serial over the same stored state, exactly one stores it', async () => {
    const [a, b] = await twoReplicas(engine);
    await a.projectStates.put('acc', 'web', state(1), 1_000);
    for (let serial = 2; serial <= 6; serial++) {
      const outcomes = await Promise.all([writeNewer(a, 'web', state(serial)), writeNewer(b, 'web', state(serial)), writeNewer(a, 'web', state(serial))]);
      expect(outcomes.filter((outcome) => outcome === 'stored')).toHaveLength(1);
    }
    expect(await b.projectStates.get('acc', 'web')).toEqual(state(6));
  });

  it('refuses input it could not key', async () => {
    const [a] = await twoReplicas(engine);
    await expect(a.projectStates.get('acc', '')).rejects.toThrow(new StoreInputError('project must be a string of 1 to 200 characters, got ""'));
    await expect(a.projectStates.put('acc', 'web', { lineage: 'L1', serial: -1, doc: '{}' }, 1_000)).rejects.toThrow(new StoreInputError('serial must be a whole number of at least 0, got -1'));
    await expect(a.projectStates.lock('acc', 'web', { lockId: '', info: '{}', nowMs: 1, expiresMs: 2 })).rejects.toThrow(new StoreInputError('lock id must be a string of 1 to 200 characters, got ""'));
  });
});
