/** The service-identity port, the same assertions on every engine (see engines.ts). */
import { describe, expect, it } from 'vitest';
import { StoreInputError } from '../port-rules.js';
import type { GroupTriggerDocument } from '../service-identity-ports.js';
import { enginesUnderTest, twoReplicas } from './engines.js';

const engines = enginesUnderTest();

const trigger = (groupId: number, token: string) => (id: number): GroupTriggerDocument => ({ id, groupId, token, created_at: '2026-01-01T00:00:00.000Z' });

describe.each(engines)('service identity on $name', (engine) => {
  it('keeps one service id per database, the same for every replica however many ask at once', async () => {
    const [a, b] = await twoReplicas(engine);
    const ids = await Promise.all([a, b, a, b].map((replica, index) => replica.serviceIdentity.serviceId(`made-${index}`)));
    for (const id of ids) expect(id).toBe(ids[0]);
    expect(await b.serviceIdentity.serviceId('made-later')).toBe(ids[0]);
    expect(await a.transaction((tx) => tx.serviceIdentity.serviceId('made-in-unit'))).toBe(ids[0]);
    const [other] = await twoReplicas(engine);
    expect(await other.serviceIdentity.serviceId('made-elsewhere')).not.toBe(ids[0]);
  });

  it("makes a group's trigger once, even when replicas read it first at once, and counts trigger ids per account", async () => {
    const [a, b] = await twoReplicas(engine);
    const first = await Promise.all([a, b, a, b].map((replica, index) => replica.serviceIdentity.groupTrigger('acc', 7, trigger(7, `token-${index}`))));
    for (const made of first) expect(made).toEqual(first[0]);
    expect(first[0]).toMatchObject({ id: 1, groupId: 7 });
    expect(await b.serviceIdentity.groupTrigger('acc', 7, trigger(7, 'again'))).toEqual(first[0]);
    expect(await a.transaction((tx) => tx.serviceIdentity.groupTrigger('acc', 8, trigger(8, 'second')))).toMatchObject({ id: 2, groupId: 8, token: 'second' });
    expect(await b.serviceIdentity.groupTrigger('other', 7, trigger(7, 'theirs'))).toMatchObject({ id: 1, groupId: 7, token: 'theirs' });
  });

  it('refuses input it could not key', async () => {
    const [a] = await twoReplicas(engine);
    await expect(a.serviceIdentity.serviceId('')).rejects.toThrow(new StoreInputError('service id must be a string of 1 to 255 characters, got ""'));
    await expect(a.serviceIdentity.groupTrigger('', 1, trigger(1, 't'))).rejects.toThrow(new StoreInputError('accountId must be a string that is not empty, got ""'));
    await expect(a.serviceIdentity.groupTrigger('acc', 1, trigger(2, 't'))).rejects.toThrow(new StoreInputError('a trigger of group 1 must name it as its groupId'));
    // The refused trigger left nothing behind: the next one made is the account's first.
    expect(await a.serviceIdentity.groupTrigger('acc', 1, trigger(1, 't'))).toMatchObject({ id: 1 });
  });
});
