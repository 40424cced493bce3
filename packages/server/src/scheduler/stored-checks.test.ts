/** The scheduler's copy of the stored checks and groups, followed through the documents port's change feed on every engine. */
import { describe, expect, it, vi } from 'vitest';
import type { DocumentId, ResourceDocument } from '../store/document-ports.js';
import { enginesUnderTest, twoReplicas } from '../store/contract/engines.js';
import { keyOf, StoredChecks } from './stored-checks.js';

const engines = enginesUnderTest();

const check = (name: string, extra: Record<string, unknown> = {}) => (id: DocumentId): ResourceDocument => ({ id, name, checkType: 'API', tags: [], ...extra });

describe.each(engines)('stored checks on $name', (engine) => {
  it('reads the checks a bulk apply changed a thousand at a time, one read per account and kind, not one per check', async () => {
    const [writer, reader] = await twoReplicas(engine);
    const group = await writer.documents.insert('check_groups', 'acc', (id) => ({ id, name: 'g' }));
    const grouped = await writer.documents.insert('checks', 'acc', check('grouped', { groupId: group.id }));
    const untouched = await writer.documents.insert('checks', 'acc', check('untouched'));
    const doomed = await writer.documents.insert('checks', 'acc', check('doomed'));
    const stored = new StoredChecks(reader.documents, 0);
    expect(await stored.follow(0)).toBe('all');
    const parsedBefore = stored.check(keyOf('acc', String(untouched.id)));

    const applied = await writer.transaction(async (tx) => Promise.all(Array.from({ length: 1001 }, (_, index) => tx.documents.insert('checks', 'acc', check(`c${index}`)))));
    const theirs = await writer.documents.insert('checks', 'other', check('theirs'));
    await writer.documents.replace('check_groups', 'acc', { ...group, name: 'renamed' });
    await writer.documents.replace('checks', 'acc', untouched); // the same text again: in the feed, not a change
    await writer.documents.remove('checks', 'acc', doomed.id);
    const getMany = vi.spyOn(reader.documents, 'getMany');

    const changed = await stored.follow(1);
    const expected = [...applied, theirs].map((doc) => keyOf(String(doc === theirs ? 'other' : 'acc'), String(doc.id)));
    expect(changed).toEqual(new Set([...expected, keyOf('acc', String(grouped.id)), keyOf('acc', String(doomed.id))]));
    // The account's 1,003 changed checks in two reads, the other account's one in one, the group in one.
    expect(getMany.mock.calls.map(([kind, accountId, ids]) => [kind, accountId, ids.length]).sort()).toEqual([
      ['check_groups', 'acc', 1],
      ['checks', 'acc', 1000],
      ['checks', 'acc', 3],
      ['checks', 'other', 1],
    ]);
    expect(stored.checks.size).toBe(1 + 1 + 1001 + 1);
    expect(stored.check(keyOf('acc', String(doomed.id)))).toBeUndefined();
    expect(stored.check(keyOf('acc', String(untouched.id)))).toBe(parsedBefore);
    expect(stored.group('acc', group.id)?.doc['name']).toBe('renamed');
    expect(stored.check(keyOf('acc', String(applied[0]!.id)))?.doc).toEqual(applied[0]);
  });
});
