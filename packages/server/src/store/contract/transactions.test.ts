/** Units of work (`StoragePorts.transaction`), the same assertions on every engine (see engines.ts). */
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import type { DocumentId, DocumentKind, ResourceDocument } from '../document-ports.js';
import type { StoragePorts, StoredResponse } from '../ports.js';
import { enginesUnderTest, twoReplicas } from './engines.js';

const engines = enginesUnderTest();
const NOW = Date.UTC(2026, 10, 1);
const named = (name: string) => (id: DocumentId): ResourceDocument => ({ id, name });
const response = (body: string): StoredResponse => ({ fingerprint: `fp-${body}`, status: 201, body: JSON.stringify({ body }) });

async function names(ports: StoragePorts, kind: DocumentKind = 'check_groups'): Promise<string[]> {
  return (await ports.documents.page(kind, 'acc', { limit: 100, page: 1 })).items.map((item) => String(item['name']));
}

describe.each(engines)('units of work on $name', (engine) => {
  it('shows its writes to another replica only once it resolved, and to itself at once', async () => {
    const [a, b] = await twoReplicas(engine);
    const result = await a.transaction(async (tx) => {
      const group = await tx.documents.insert('check_groups', 'acc', named('g'));
      await tx.idempotency.remember('acc', 'key', response('created'), NOW);
      await tx.alertSubscriptions.replace('acc', 'group', String(group.id), [{ alertChannelId: 1, activated: true }]);
      expect(await tx.documents.get('check_groups', 'acc', group.id)).toEqual(group);
      expect((await tx.documents.page('check_groups', 'acc', { limit: 10, page: 1 })).total).toBe(1);
      expect(await b.documents.get('check_groups', 'acc', group.id)).toBeUndefined();
      expect(await b.idempotency.lookup('acc', 'key', NOW)).toBeUndefined();
      return group;
    });
    expect(result).toEqual({ id: 1, name: 'g' });
    expect(await b.documents.get('check_groups', 'acc', 1)).toEqual(result);
    expect(await b.idempotency.lookup('acc', 'key', NOW)).toEqual(response('created'));
    expect([...(await b.alertSubscriptions.ofOwners('acc', 'group', ['1']))]).toEqual([['1', [{ alertChannelId: 1, activated: true }]]]);
  });

  it('rolls back every write of a unit that throws, and rejects with the same error', async () => {
    const [a, b] = await twoReplicas(engine);
    await a.documents.insert('check_groups', 'acc', named('kept'));
    const failure = new Error('the unit gave up');
    const unit = a.transaction(async (tx) => {
      const group = await tx.documents.insert('check_groups', 'acc', named('gone'));
      await tx.documents.replace('check_groups', 'acc', { id: 1, name: 'renamed' });
      await tx.idempotency.remember('acc', 'key', response('created'), NOW);
      await tx.alertSubscriptions.replace('acc', 'group', String(group.id), [{ alertChannelId: 1, activated: true }]);
      throw failure;
    });
    await expect(unit).rejects.toBe(failure);
    for (const replica of [a, b]) {
      expect(await names(replica)).toEqual(['kept']);
      expect(await replica.idempotency.lookup('acc', 'key', NOW)).toBeUndefined();
      expect((await replica.alertSubscriptions.ofOwners('acc', 'group', ['2'])).size).toBe(0);
    }
    // The rolled-back group's id was given back with it.
    expect((await b.documents.insert('check_groups', 'acc', named('next'))).id).toBe(2);
  });

  it('keeps a unit that awaits a timer between its writes one transaction: nothing shows until it resolves', async () => {
    const [a, b] = await twoReplicas(engine);
    const unit = a.transaction(async (tx) => {
      await tx.documents.insert('check_groups', 'acc', named('before the timer'));
      await sleep(30);
      expect(await names(b)).toEqual([]);
      await tx.documents.insert('check_groups', 'acc', named('after the timer'));
      await sleep(30);
      expect(await names(b)).toEqual([]);
      return 'done';
    });
    expect(await unit).toBe('done');
    expect(await names(b)).toEqual(['before the timer', 'after the timer']);
  });

  it('rolls back a unit that throws after awaiting a timer', async () => {
    const [a, b] = await twoReplicas(engine);
    const unit = a.transaction(async (tx) => {
      await tx.documents.insert('check_groups', 'acc', named('written'));
      await sleep(30);
      throw new Error('late failure');
    });
    await expect(unit).rejects.toThrow('late failure');
    expect(await names(a)).toEqual([]);
    expect(await names(b)).toEqual([]);
  });

  it('lands every unit when a replica runs several at once, each its own transaction', async () => {
    // On one replica: SQLite replicas in one process cannot interleave units, since a unit holds the
    // file's write lock across its awaits and the other connection's busy wait blocks the one thread
    // that would release it (replicas in their own processes just wait their turn).
    const [a, b] = await twoReplicas(engine);
    const units = Array.from({ length: 12 }, (_, index) =>
      a.transaction(async (tx) => {
        const group = await tx.documents.insert('check_groups', 'acc', named(`g${index}`));
        await tx.idempotency.remember('acc', `key-${index}`, response(`r${index}`), NOW);
        if (index === 5) throw new Error('only this one fails');
        return group.id;
      }),
    );
    const settled = await Promise.allSettled(units);
    expect(settled.filter((outcome) => outcome.status === 'rejected')).toHaveLength(1);
    const ids = settled.flatMap((outcome) => (outcome.status === 'fulfilled' ? [outcome.value as number] : []));
    expect(new Set(ids).size).toBe(11);
    expect((await names(a)).sort()).toEqual(Array.from({ length: 12 }, (_, index) => `g${index}`).filter((name) => name !== 'g5').sort());
    expect(await b.idempotency.lookup('acc', 'key-4', NOW)).toEqual(response('r4'));
    expect(await b.idempotency.lookup('acc', 'key-5', NOW)).toBeUndefined();
  });

  it('refuses a unit asked for inside a unit of the same ports, and the outer unit goes on', async () => {
    const [a, b] = await twoReplicas(engine);
    await a.transaction(async (tx) => {
      await expect(a.transaction(async () => 'inner')).rejects.toThrow(
        'transaction() was called inside a unit of work of the same ports; write through the ports the unit was given instead',
      );
      await tx.documents.insert('check_groups', 'acc', named('outer'));
    });
    expect(await names(b)).toEqual(['outer']);
    // Once a unit has ended, work it started may run units of its own.
    expect(await a.transaction(async () => 'after')).toBe('after');
  });

  it('refuses bad input inside a unit with the errors the ports give outside one, and the unit goes on', async () => {
    const [a, b] = await twoReplicas(engine);
    await a.transaction(async (tx) => {
      await expect(tx.documents.get('results' as DocumentKind, 'acc', 'x')).rejects.toThrow('kind must be one of checks, check_groups, alert_channels, maintenance_windows, services, got "results"');
      await expect(tx.documents.insert('check_groups', 'acc', () => ({ id: 99, name: 'x' }))).rejects.toThrow('the document built for check_groups 1 has id 99');
      await expect(tx.documents.page('check_groups', 'acc', { limit: 1, page: 1, groupId: 1 })).rejects.toThrow('groupId filters checks only, not check_groups');
      await expect(tx.idempotency.lookup('acc', '', NOW)).rejects.toThrow('Idempotency-Key must be a string of 1 to 255 characters, got ""');
      await expect(tx.idempotency.remember('acc', 'k', { ...response('x'), status: 42 }, NOW)).rejects.toThrow('status must be an HTTP status code (100 to 599), got 42');
      await expect(tx.alertSubscriptions.replace('acc', 'group', '', [])).rejects.toThrow('ownerId must be a string of 1 to 255 characters, got ""');
      await tx.documents.insert('check_groups', 'acc', named('still written'));
    });
    expect(await names(b)).toEqual(['still written']);
  });
});
