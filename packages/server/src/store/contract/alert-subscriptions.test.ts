/** The alert-subscription index port, the same assertions on every engine (see engines.ts). */
import { describe, expect, it } from 'vitest';
import { subscriptionId } from '../formats/subscription-ids.js';
import type { ChannelSubscription, StoragePorts } from '../ports.js';
import { enginesUnderTest, twoReplicas } from './engines.js';

const engines = enginesUnderTest();
const on = (alertChannelId: number, activated = true): ChannelSubscription => ({ alertChannelId, activated });

describe.each(engines)('alert subscriptions on $name', (engine) => {
  it('answers what one replica wrote from another, each owner in the order written', async () => {
    const [a, b] = await twoReplicas(engine);
    await a.alertSubscriptions.replace('acc', 'group', '1', [on(3), on(1, false)]);
    await a.alertSubscriptions.replace('acc', 'group', '2', [on(2)]);
    await a.alertSubscriptions.replace('acc', 'check', '1', [on(9)]);
    const groups = await b.alertSubscriptions.ofOwners('acc', 'group', ['1', '2', '7']);
    expect([...groups]).toEqual([['1', [on(3), on(1, false)]], ['2', [on(2)]]]);
    expect([...(await b.alertSubscriptions.ofOwners('acc', 'check', ['1']))]).toEqual([['1', [on(9)]]]);
    expect((await b.alertSubscriptions.ofOwners('acc', 'group', [])).size).toBe(0);
  });

  it('replaces an owner\'s subscriptions, drops them for an empty list, and keeps a twice-listed channel\'s last entry', async () => {
    const [a, b] = await twoReplicas(engine);
    await a.alertSubscriptions.replace('acc', 'group', '1', [on(1), on(2)]);
    await b.alertSubscriptions.replace('acc', 'group', '1', [on(2, false), on(4), on(2)]);
    expect((await a.alertSubscriptions.ofOwners('acc', 'group', ['1'])).get('1')).toEqual([on(4), on(2)]);
    await b.alertSubscriptions.replace('acc', 'group', '1', []);
    expect((await a.alertSubscriptions.ofOwners('acc', 'group', ['1'])).size).toBe(0);
  });

  it('keeps accounts and owner kinds apart', async () => {
    const [a, b] = await twoReplicas(engine);
    await a.alertSubscriptions.replace('acc', 'group', '1', [on(1)]);
    expect((await b.alertSubscriptions.ofOwners('other', 'group', ['1'])).size).toBe(0);
    expect((await b.alertSubscriptions.ofOwners('acc', 'check', ['1'])).size).toBe(0);
  });

  it('lists a channel\'s subscribers from another replica, in the order written, with ids derived from what they join', async () => {
    const [a, b] = await twoReplicas(engine);
    await a.alertSubscriptions.replace('acc', 'group', '1', [on(5), on(6)]);
    await a.alertSubscriptions.replace('acc', 'check', 'c-1', [on(5, false)]);
    await a.alertSubscriptions.replace('other', 'group', '1', [on(5)]);
    const subscribers = await b.alertSubscriptions.subscribersOf('acc', 5);
    expect(subscribers).toEqual([
      { id: subscriptionId('group', '1', 5), ownerKind: 'group', ownerId: '1', activated: true },
      { id: subscriptionId('check', 'c-1', 5), ownerKind: 'check', ownerId: 'c-1', activated: false },
    ]);
    expect(subscribers.every((subscriber) => Number.isSafeInteger(subscriber.id) && subscriber.id >= 1)).toBe(true);
    expect(await b.alertSubscriptions.subscribersOf('acc', 7)).toEqual([]);
  });

  it('drops a channel from every owner of its account, and only that channel', async () => {
    const [a, b] = await twoReplicas(engine);
    await a.alertSubscriptions.replace('acc', 'group', '1', [on(5), on(6)]);
    await a.alertSubscriptions.replace('acc', 'check', 'c-1', [on(5, false)]);
    await a.alertSubscriptions.replace('other', 'group', '1', [on(5)]);
    expect(await b.alertSubscriptions.dropChannel('acc', 5)).toBe(2);
    expect(await a.alertSubscriptions.subscribersOf('acc', 5)).toEqual([]);
    expect((await a.alertSubscriptions.ofOwners('acc', 'group', ['1'])).get('1')).toEqual([on(6)]);
    expect((await a.alertSubscriptions.ofOwners('acc', 'check', ['c-1'])).size).toBe(0);
    expect((await a.alertSubscriptions.subscribersOf('other', 5)).map((subscriber) => subscriber.ownerId)).toEqual(['1']);
    expect(await b.alertSubscriptions.dropChannel('acc', 5)).toBe(0);
  });

  it('takes a dropped channel back with the unit of work that dropped it', async () => {
    const [a, b] = await twoReplicas(engine);
    await a.alertSubscriptions.replace('acc', 'group', '1', [on(5)]);
    const failed = a.transaction(async (tx) => {
      await tx.alertSubscriptions.dropChannel('acc', 5);
      expect(await tx.alertSubscriptions.subscribersOf('acc', 5)).toEqual([]);
      throw new Error('undo');
    });
    await expect(failed).rejects.toThrow('undo');
    expect((await b.alertSubscriptions.subscribersOf('acc', 5)).map((subscriber) => subscriber.ownerId)).toEqual(['1']);
  });

  it.each([
    ['an empty account', (p: StoragePorts) => p.alertSubscriptions.replace('', 'group', '1', []), 'accountId must be a string that is not empty, got ""'],
    ['an unknown owner kind', (p: StoragePorts) => p.alertSubscriptions.ofOwners('acc', 'team' as 'group', ['1']), 'ownerKind must be "check" or "group", got "team"'],
    ['an empty owner id', (p: StoragePorts) => p.alertSubscriptions.ofOwners('acc', 'group', ['']), 'ownerId must be a string of 1 to 255 characters, got ""'],
    ['a channel id of 0', (p: StoragePorts) => p.alertSubscriptions.replace('acc', 'group', '1', [on(0)]), 'subscriptions[0].alertChannelId must be a whole number of at least 1, got 0'],
    ['a channel id of 0 to list subscribers of', (p: StoragePorts) => p.alertSubscriptions.subscribersOf('acc', 0), 'channelId must be a whole number of at least 1, got 0'],
    ['an empty account to drop a channel from', (p: StoragePorts) => p.alertSubscriptions.dropChannel('', 1), 'accountId must be a string that is not empty, got ""'],
    ['a channel id that is not a whole number to drop', (p: StoragePorts) => p.alertSubscriptions.dropChannel('acc', 1.5), 'channelId must be a whole number of at least 1, got 1.5'],
    ['an activated flag that is not a boolean', (p: StoragePorts) => p.alertSubscriptions.replace('acc', 'group', '1', [on(1), { alertChannelId: 2, activated: 1 as unknown as boolean }]), 'subscriptions[1].activated must be true or false, got 1'],
  ])('refuses %s', async (_, call, message) => {
    const [a] = await twoReplicas(engine);
    await expect(call(a)).rejects.toThrow(message);
  });
});
