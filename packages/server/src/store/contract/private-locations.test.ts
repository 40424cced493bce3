/** The private-location port, the same assertions on every engine (see engines.ts). */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { PrivateLocationSlugTaken, type PrivateLocationDocument, type PrivateLocationKeyRecord } from '../agent-ports.js';
import { enginesUnderTest, twoReplicas } from './engines.js';

const engines = enginesUnderTest();

const location = (id: string, slugName: string, name = slugName): PrivateLocationDocument => ({ id, slugName, name, created_at: '2026-11-01T00:00:00.000Z', updated_at: null });
const digest = (key: string) => createHash('sha256').update(key).digest();
const key = (id: string, privateLocationId: string): PrivateLocationKeyRecord => ({ id, privateLocationId, maskedKey: `...${id.slice(-4)}`, createdAt: '2026-11-01T00:00:00.000Z' });

describe.each(engines)('private locations on $name', (engine) => {
  it('stores, pages, replaces and deletes locations, each account its own, seen from another replica', async () => {
    const [a, b] = await twoReplicas(engine);
    await a.privateLocations.insert('acme', location('l1', 'dc-1'));
    await a.privateLocations.insert('acme', location('l2', 'dc-2'));
    await a.privateLocations.insert('acme', location('l3', 'dc-3'));
    await a.privateLocations.insert('globex', location('g1', 'dc-1'));
    expect(await b.privateLocations.get('acme', 'l2')).toEqual(location('l2', 'dc-2'));
    expect(await b.privateLocations.get('globex', 'l2')).toBeUndefined();
    expect(await b.privateLocations.page('acme', { limit: 2, page: 1 })).toEqual({ items: [location('l1', 'dc-1'), location('l2', 'dc-2')], total: 3 });
    expect(await b.privateLocations.page('acme', { limit: 2, page: 2 })).toEqual({ items: [location('l3', 'dc-3')], total: 3 });
    expect(await b.privateLocations.page('acme', { limit: 2, page: 3 })).toEqual({ items: [], total: 3 });
    expect(await b.privateLocations.page('initech', { limit: 2, page: 1 })).toEqual({ items: [], total: 0 });
    expect(await b.privateLocations.replace('acme', location('l2', 'dc-2', 'Second'))).toBe(true);
    expect(await a.privateLocations.get('acme', 'l2')).toEqual(location('l2', 'dc-2', 'Second'));
    expect(await a.privateLocations.replace('globex', location('l2', 'dc-2'))).toBe(false);
    expect(await b.privateLocations.remove('acme', 'l1')).toEqual([]);
    expect(await b.privateLocations.remove('acme', 'l1')).toBeUndefined();
    expect((await a.privateLocations.page('acme', { limit: 10, page: 1 })).items.map((each) => each.id)).toEqual(['l2', 'l3']);
  });

  it('refuses a second location of one slug in an account, also from two replicas at once', async () => {
    const [a, b] = await twoReplicas(engine);
    await a.privateLocations.insert('acme', location('l1', 'dc-1'));
    await expect(b.privateLocations.insert('acme', location('l2', 'dc-1'))).rejects.toThrow(new PrivateLocationSlugTaken('dc-1'));
    const racing = await Promise.allSettled([a, b].map((replica, index) => replica.transaction((tx) => tx.privateLocations.insert('acme', location(`r${index}`, 'dc-9')))));
    expect(racing.map((outcome) => outcome.status).sort()).toEqual(['fulfilled', 'rejected']);
    expect(racing.find((outcome) => outcome.status === 'rejected')).toMatchObject({ reason: { name: 'PrivateLocationSlugTaken', slugName: 'dc-9' } });
  });

  it('finds a key by its digest with its location’s slug, lists and revokes keys, and deletes them with their location', async () => {
    const [a, b] = await twoReplicas(engine);
    await a.privateLocations.insert('acme', location('l1', 'dc-1'));
    await a.privateLocations.insert('acme', location('l2', 'dc-2'));
    await a.privateLocations.addKey('acme', key('k1', 'l1'), digest('pl_one'));
    await a.privateLocations.addKey('acme', key('k2', 'l1'), digest('pl_two'));
    await a.privateLocations.addKey('acme', key('k3', 'l2'), digest('pl_three'));
    expect(await b.privateLocations.keyHolder(digest('pl_two'))).toEqual({ accountId: 'acme', privateLocationId: 'l1', keyId: 'k2', slugName: 'dc-1' });
    expect(await b.privateLocations.keyHolder(digest('pl_nope'))).toBeUndefined();
    expect(await b.privateLocations.keysOf('acme', 'l1')).toEqual([key('k1', 'l1'), key('k2', 'l1')]);
    expect(await b.privateLocations.keysOf('globex', 'l1')).toEqual([]);
    expect(await b.privateLocations.removeKey('acme', 'l2', 'k1')).toBe(false);
    expect(await b.privateLocations.removeKey('acme', 'l1', 'k1')).toBe(true);
    expect(await a.privateLocations.keyHolder(digest('pl_one'))).toBeUndefined();
    expect(await a.privateLocations.remove('acme', 'l1')).toEqual(['k2']);
    expect(await b.privateLocations.keyHolder(digest('pl_two'))).toBeUndefined();
    expect(await b.privateLocations.keysOf('acme', 'l2')).toEqual([key('k3', 'l2')]);
  });

  it('undoes a location and its key written in a unit that failed', async () => {
    const [a, b] = await twoReplicas(engine);
    const failed = a.transaction(async (tx) => {
      await tx.privateLocations.insert('acme', location('l1', 'dc-1'));
      await tx.privateLocations.addKey('acme', key('k1', 'l1'), digest('pl_one'));
      throw new Error('the response could not be stored');
    });
    await expect(failed).rejects.toThrow('the response could not be stored');
    expect(await b.privateLocations.get('acme', 'l1')).toBeUndefined();
    expect(await b.privateLocations.keyHolder(digest('pl_one'))).toBeUndefined();
  });

  it('refuses input the engines could not store', async () => {
    const [a] = await twoReplicas(engine);
    await expect(a.privateLocations.insert('acme', { id: 'l1', name: 'x' } as unknown as PrivateLocationDocument)).rejects.toThrow('slugName must be a string of 1 to 255 characters, got undefined');
    await expect(a.privateLocations.page('acme', { limit: 0, page: 1 })).rejects.toThrow('limit must be a whole number of at least 1, got 0');
    await expect(a.privateLocations.keyHolder(new Uint8Array(3))).rejects.toThrow('a key digest must be the 32 bytes of a SHA-256');
  });
});
