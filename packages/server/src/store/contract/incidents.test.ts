/** The incidents port, the same assertions on every engine (see engines.ts). */
import { describe, expect, it } from 'vitest';
import type { IncidentDocument } from '../incident-ports.js';
import { enginesUnderTest, twoReplicas } from './engines.js';

const engines = enginesUnderTest();

function incident(id: string, status: IncidentDocument['lastUpdateStatus'] = 'INVESTIGATING', name = `incident ${id}`): IncidentDocument {
  return {
    id,
    name,
    severity: 'MAJOR',
    serviceIds: ['s1'],
    lastUpdateStatus: status,
    incidentUpdates: [
      { id: `${id}-u1`, description: 'looking', status, publicIncidentUpdateDate: '2024-05-01T00:00:00.000Z', notifySubscribers: false, created_at: '2024-05-01T00:00:00.000Z' },
    ],
    created_at: '2024-05-01T00:00:00.000Z',
    updated_at: '2024-05-01T00:00:00.000Z',
  };
}

describe.each(engines)('incidents on $name', (engine) => {
  it('lists the account’s open incidents and those changed since a moment, newest first, as a public page shows them', async () => {
    const [a, b] = await twoReplicas(engine);
    const at = (doc: IncidentDocument, updatedAt: string): IncidentDocument => ({ ...doc, updated_at: updatedAt });
    await a.incidents.insert('acc', at(incident('old-open'), '2024-01-01T00:00:00.000Z'));
    await a.incidents.insert('acc', at(incident('old-resolved', 'RESOLVED'), '2024-01-01T00:00:00.000Z'));
    await a.incidents.insert('acc', at(incident('recent-resolved', 'RESOLVED'), '2024-05-10T00:00:00.000Z'));
    await a.incidents.insert('acc', at(incident('edge-resolved', 'RESOLVED'), '2024-05-01T00:00:00.000Z'));
    await a.incidents.insert('other', at(incident('elsewhere'), '2024-05-10T00:00:00.000Z'));
    const shown = await b.incidents.openOrUpdatedSince('acc', '2024-05-01T00:00:00.000Z');
    expect(shown.map((each) => each.id)).toEqual(['edge-resolved', 'recent-resolved', 'old-open']);
    expect(shown[2]).toEqual(at(incident('old-open'), '2024-01-01T00:00:00.000Z'));
    expect(await b.incidents.openOrUpdatedSince('nobody', '2024-05-01T00:00:00.000Z')).toEqual([]);
  });

  it('gives an incident back as written, from another replica, and replaces and removes it', async () => {
    const [a, b] = await twoReplicas(engine);
    await a.incidents.insert('acc', incident('i1'));
    expect(await b.incidents.get('acc', 'i1')).toEqual(incident('i1'));
    expect(await b.incidents.get('other', 'i1')).toBeUndefined();
    expect(await b.incidents.replace('acc', incident('i1', 'RESOLVED', 'renamed'))).toBe(true);
    expect(await a.incidents.get('acc', 'i1')).toEqual(incident('i1', 'RESOLVED', 'renamed'));
    expect(await a.incidents.replace('acc', incident('missing'))).toBe(false);
    expect(await a.incidents.replace('other', incident('i1'))).toBe(false);
    expect(await a.incidents.remove('other', 'i1')).toBe(false);
    expect(await a.incidents.remove('acc', 'i1')).toBe(true);
    expect(await a.incidents.remove('acc', 'i1')).toBe(false);
    expect(await b.incidents.get('acc', 'i1')).toBeUndefined();
  });

  it('refuses a second incident of one id', async () => {
    const [a] = await twoReplicas(engine);
    await a.incidents.insert('acc', incident('i1'));
    await expect(a.incidents.insert('acc', incident('i1'))).rejects.toThrow();
    expect(await a.incidents.get('acc', 'i1')).toEqual(incident('i1'));
  });

  it('pages newest first by the place of creation, a replaced incident keeping its place', async () => {
    const [a, b] = await twoReplicas(engine);
    for (const id of ['i1', 'i2', 'i3', 'i4']) await a.incidents.insert('acc', incident(id));
    await a.incidents.insert('other', incident('o1'));
    await b.incidents.replace('acc', incident('i1', 'MONITORING'));
    const first = await b.incidents.pageBefore('acc', Number.MAX_SAFE_INTEGER, 3);
    expect(first.map((row) => row.incident.id)).toEqual(['i4', 'i3', 'i2']);
    const rest = await b.incidents.pageBefore('acc', first.at(-1)!.seq, 3);
    expect(rest.map((row) => row.incident)).toEqual([incident('i1', 'MONITORING')]);
    expect(await b.incidents.pageBefore('acc', rest[0]!.seq, 3)).toEqual([]);
  });

  it("opens a check's incident once, until it is resolved, resolved through the API or deleted", async () => {
    const [a, b] = await twoReplicas(engine);
    expect(await a.incidents.openOfCheck('acc', 'c1')).toBeUndefined();
    expect(await a.incidents.openForCheck('acc', 'c1', incident('i1'))).toBe(true);
    expect(await b.incidents.openForCheck('acc', 'c1', incident('i2'))).toBe(false);
    expect(await b.incidents.get('acc', 'i2')).toBeUndefined();
    expect(await b.incidents.openOfCheck('acc', 'c1')).toEqual(incident('i1'));
    expect(await b.incidents.openOfCheck('acc', 'c2')).toBeUndefined();
    expect(await b.incidents.openOfCheck('other', 'c1')).toBeUndefined();

    // Resolved by the check: forgotten, and the resolved state stored.
    await b.incidents.resolveForCheck('acc', 'c1', incident('i1', 'RESOLVED'));
    expect(await a.incidents.openOfCheck('acc', 'c1')).toBeUndefined();
    expect(await a.incidents.get('acc', 'i1')).toEqual(incident('i1', 'RESOLVED'));

    // Resolved through the API (the check's row still names it): no longer open, the next one opens.
    expect(await a.incidents.openForCheck('acc', 'c1', incident('i3'))).toBe(true);
    await b.incidents.replace('acc', incident('i3', 'RESOLVED'));
    expect(await a.incidents.openOfCheck('acc', 'c1')).toBeUndefined();
    expect(await a.incidents.openForCheck('acc', 'c1', incident('i4'))).toBe(true);

    // Deleted through the API: the same.
    await b.incidents.remove('acc', 'i4');
    expect(await a.incidents.openOfCheck('acc', 'c1')).toBeUndefined();
    expect(await a.incidents.openForCheck('acc', 'c1', incident('i5'))).toBe(true);
    expect(await b.incidents.openOfCheck('acc', 'c1')).toEqual(incident('i5'));

    // Forgotten without a resolution (nothing was open to resolve): the incident is left as it is.
    await a.incidents.resolveForCheck('acc', 'c1');
    expect(await b.incidents.openOfCheck('acc', 'c1')).toBeUndefined();
    expect(await b.incidents.get('acc', 'i5')).toEqual(incident('i5'));
  });

  it('of two replicas opening one check\'s incident at once, stores one', async () => {
    const [a, b] = await twoReplicas(engine);
    const opened = await Promise.all([a.incidents.openForCheck('acc', 'c1', incident('ia')), b.incidents.openForCheck('acc', 'c1', incident('ib'))]);
    expect(opened.filter(Boolean)).toHaveLength(1);
    const winner = opened[0] ? 'ia' : 'ib';
    expect((await a.incidents.openOfCheck('acc', 'c1'))?.id).toBe(winner);
    expect(await a.incidents.get('acc', winner === 'ia' ? 'ib' : 'ia')).toBeUndefined();
  });

  it('moves the status pages\' revision with every incident write, as seen from another replica', async () => {
    const [a, b] = await twoReplicas(engine);
    const seen = [await b.statusPages.revision()];
    await a.incidents.insert('acc', incident('i1'));
    seen.push(await b.statusPages.revision());
    await a.incidents.replace('acc', incident('i1', 'RESOLVED'));
    seen.push(await b.statusPages.revision());
    await a.incidents.openForCheck('acc', 'c1', incident('i2'));
    seen.push(await b.statusPages.revision());
    await a.incidents.remove('acc', 'i1');
    seen.push(await b.statusPages.revision());
    expect(new Set(seen).size).toBe(seen.length);
  });

  it('writes in a unit of work commit with it, the subscribers\' mail queued with them, and a throw undoes them', async () => {
    const [a, b] = await twoReplicas(engine);
    // A page subscriber's mail comes from no alert channel: its channel id is 0.
    const mail = { id: 'mail-1', accountId: 'acc', checkId: 'c1', alertChannelId: 0, channelType: 'STATUS_PAGE_SUBSCRIBER', alertType: 'INCIDENT_INVESTIGATING', doc: '{}' };
    await a.transaction(async (tx) => {
      await tx.incidents.insert('acc', incident('i1'));
      await tx.incidents.openForCheck('acc', 'c1', incident('i2'));
      await tx.outbox.enqueue(mail, 1_000);
    });
    expect(await b.incidents.get('acc', 'i1')).toEqual(incident('i1'));
    expect(await b.outbox.find('mail-1')).toMatchObject({ delivery: 'PENDING' });
    await expect(a.outbox.enqueue({ ...mail, id: 'mail-2', channelType: 'EMAIL' }, 1_000)).rejects.toThrow('alertChannelId must be a whole number of at least 1, got 0');
    await expect(
      a.transaction(async (tx) => {
        await tx.incidents.resolveForCheck('acc', 'c1', incident('i2', 'RESOLVED'));
        await tx.incidents.remove('acc', 'i1');
        throw new Error('the unit fails');
      }),
    ).rejects.toThrow('the unit fails');
    expect(await b.incidents.openOfCheck('acc', 'c1')).toEqual(incident('i2'));
    expect(await b.incidents.get('acc', 'i1')).toEqual(incident('i1'));
  });

  it('refuses input the engines could not key, with one wording', async () => {
    const [a] = await twoReplicas(engine);
    await expect(a.incidents.get('', 'i1')).rejects.toThrow('accountId must be a string that is not empty, got ""');
    await expect(a.incidents.pageBefore('acc', 0, 10)).rejects.toThrow('beforeSeq must be a whole number of at least 1, got 0');
    await expect(a.incidents.openOfCheck('acc', '')).rejects.toThrow('checkId must be a string of 1 to 255 characters, got ""');
    await expect(a.incidents.insert('acc', { ...incident('i1'), lastUpdateStatus: '' as never })).rejects.toThrow("an incident's lastUpdateStatus must be a status, got \"\"");
  });
});
