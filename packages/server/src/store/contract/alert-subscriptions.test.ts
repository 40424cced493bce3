/** The alert-subscription index port, the same assertions on every engine (see engines.ts). */
import { describe, expect, it } from 'vitest';
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

  it.each([
    ['an empty account', (p: StoragePorts) => p.alertSubscriptions.replace('', 'group', '1', []), 'accountId must be a string that is not empty, got ""'],
    ['an unknown owner kind', (p: StoragePorts) => p.alertSubscriptions.ofOwners('acc', 'team' as 'group', ['1']), 'ownerKind must be "check" or "group", got "team"'],
    ['an empty owner id', (p: StoragePorts) => p.alertSubscriptions.ofOwners('acc', 'group', ['']), 'ownerId must be a string of 1 to 255 characters, got ""'],
    ['a channel id of 0', (p: StoragePorts) => p.alertSubscriptions.replace('acc', 'group', '1', [on(0)]), 'subscriptions[0].alertChannelId must be a whole number of at least 1, got 0'],
    ['an activated flag that is not a boolean', (p: StoragePorts) => p.alertSubscriptions.replace('acc', 'group', '1', [on(1), { alertChannelId: 2, activated: 1 as unknown as boolean }]), 'subscriptions[1].activated must be true or false, got 1'],
  ])('refuses %s', async (_, call, message) => {
    const [a] = await twoReplicas(engine);
    await expect(call(a)).rejects.toThrow(message);
  });
});
