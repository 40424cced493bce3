/** The documents port and its change feed, the same assertions on every engine (see engines.ts). */
import { describe, expect, it } from 'vitest';
import { MAX_DOCUMENTS_READ_AT_ONCE, type DocumentChange, type DocumentId, type DocumentKind, type ResourceDocument } from '../document-ports.js';
import type { StoragePorts } from '../ports.js';
import { enginesUnderTest, twoReplicas } from './engines.js';

const engines = enginesUnderTest();

const check = (name: string, extra: Record<string, unknown> = {}) => (id: DocumentId): ResourceDocument => ({ id, name, checkType: 'API', tags: [], ...extra });
const named = (name: string) => (id: DocumentId): ResourceDocument => ({ id, name });
const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

async function namesOf(ports: StoragePorts, kind: DocumentKind, query: Record<string, unknown> = {}): Promise<string[]> {
  const { items } = await ports.documents.page(kind, 'acc', { limit: 100, page: 1, ...query });
  return items.map((item) => String(item['name']));
}

/** Every change after `position`, read in pages of `limit`. */
async function drain(ports: StoragePorts, position: number, limit = 100): Promise<DocumentChange[]> {
  const changes: DocumentChange[] = [];
  for (;;) {
    const batch = await ports.documents.changesSince(position, limit);
    expect(batch.reset).toBe(false);
    changes.push(...batch.changes);
    if (batch.changes.length === 0) return changes;
    position = batch.position;
  }
}

describe.each(engines)('documents on $name', (engine) => {
  it("stores a check unless the account has alert channels, and answers the account's channels oldest first instead", async () => {
    const [a, b] = await twoReplicas(engine);
    // Another account's channels do not count.
    await a.documents.insert('alert_channels', 'other', named('theirs'));
    const alone = await a.documents.insertUnlessAny('checks', 'acc', check('first'), 'alert_channels', 2);
    if (!('inserted' in alone)) throw new Error(`no check stored: ${JSON.stringify(alone)}`);
    expect(String(alone.inserted.id)).toMatch(UUID_V7);
    expect(await b.documents.get('checks', 'acc', alone.inserted.id)).toEqual(alone.inserted);
    expect((await drain(b, 0)).filter((change) => change.kind === 'checks')).toEqual([{ position: expect.any(Number), kind: 'checks', accountId: 'acc', id: String(alone.inserted.id) }]);

    for (const name of ['c1', 'c2', 'c3']) await b.documents.insert('alert_channels', 'acc', named(name));
    const built: DocumentId[] = [];
    const refused = await a.transaction((tx) => tx.documents.insertUnlessAny('checks', 'acc', (id) => (built.push(id), check('second')(id)), 'alert_channels', 2));
    expect(refused).toEqual({ present: [{ id: 1, name: 'c1' }, { id: 2, name: 'c2' }] });
    expect(await namesOf(b, 'checks')).toEqual(['first']);
    // PostgreSQL builds the document before it knows (one statement); SQLite looks first.
    expect(built.length).toBeLessThanOrEqual(1);
  });

  it('refuses insertUnlessAny for a kind whose ids the store counts, and a limit below 1', async () => {
    const [a] = await twoReplicas(engine);
    await expect(a.documents.insertUnlessAny('check_groups', 'acc', named('g'), 'alert_channels', 10)).rejects.toThrow('insertUnlessAny makes a UUID id; ids of check_groups are counted by the store');
    await expect(a.documents.insertUnlessAny('checks', 'acc', check('c'), 'alert_channels', 0)).rejects.toThrow('limit must be a whole number of at least 1, got 0');
    await expect(a.documents.insertUnlessAny('checks', 'acc', check('c'), 'channels' as DocumentKind, 10)).rejects.toThrow('kind must be one of checks, check_groups, alert_channels, maintenance_windows, services, got "channels"');
  });

  it('gives a check a version 7 UUID and a group an integer counted per account, never handed out again', async () => {
    const [a, b] = await twoReplicas(engine);
    const stored = await a.documents.insert('checks', 'acc', check('home'));
    expect(String(stored.id)).toMatch(UUID_V7);
    expect(await b.documents.get('checks', 'acc', stored.id)).toEqual(stored);
    const first = await a.documents.insert('check_groups', 'acc', named('g1'));
    const second = await b.documents.insert('check_groups', 'acc', named('g2'));
    expect([first.id, second.id]).toEqual([1, 2]);
    expect(await a.documents.remove('check_groups', 'acc', 2)).toBe(true);
    expect((await b.documents.insert('check_groups', 'acc', named('g3'))).id).toBe(3);
    // Another tenant counts from 1: ids say nothing about what others create.
    expect((await b.documents.insert('check_groups', 'other', named('theirs'))).id).toBe(1);
  });

  it('keeps the document as written: key order, nested values, unicode', async () => {
    const [a, b] = await twoReplicas(engine);
    const stored = await a.documents.insert('checks', 'acc', (id) => ({ zeta: 1, id, name: 'Ünïcode ✓', alpha: { b: [1, null, 'x'], a: true } }));
    const read = await b.documents.get('checks', 'acc', stored.id);
    expect(JSON.stringify(read)).toBe(JSON.stringify(stored));
  });

  it('reads another account\'s document as missing, and will not replace or delete it', async () => {
    const [a, b] = await twoReplicas(engine);
    const stored = await a.documents.insert('services', 'acc', named('api'));
    expect(await b.documents.get('services', 'intruder', stored.id)).toBeUndefined();
    expect(await b.documents.replace('services', 'intruder', { ...stored, name: 'taken' })).toBe(false);
    expect(await b.documents.remove('services', 'intruder', stored.id)).toBe(false);
    expect(await a.documents.get('services', 'acc', stored.id)).toEqual(stored);
  });

  it('stores a document under the id its writer chose, once per account, in the feed, also inside a unit', async () => {
    const [a, b] = await twoReplicas(engine);
    const seeded = { name: 'seeded', id: 'c1', checkType: 'API', tags: ['prod'] };
    const position = await b.documents.latestPosition();
    expect(await a.documents.insertWithId('checks', 'acc', seeded)).toBe(true);
    expect(JSON.stringify(await b.documents.get('checks', 'acc', 'c1'))).toBe(JSON.stringify(seeded));
    // A second writer choosing the same id stores nothing, in the account or in another one.
    expect(await b.documents.insertWithId('checks', 'acc', { ...seeded, name: 'second' })).toBe(false);
    expect(await b.documents.insertWithId('checks', 'other', { ...seeded, name: 'theirs' })).toBe(false);
    expect(await b.documents.get('checks', 'other', 'c1')).toBeUndefined();
    expect(await b.documents.insertWithId('checks', 'other', { ...seeded, id: 'c2' })).toBe(true);
    expect(await namesOf(a, 'checks', { tags: ['prod'] })).toEqual(['seeded']);
    expect((await drain(b, position)).map((change) => [change.accountId, change.id])).toEqual([['acc', 'c1'], ['other', 'c2']]);
    const inUnit = await a.transaction(async (tx) => [await tx.documents.insertWithId('services', 'acc', { id: 's1', name: 'Shop' }), await tx.documents.insertWithId('services', 'acc', { id: 's1', name: 'again' })]);
    expect(inUnit).toEqual([true, false]);
    expect(await b.documents.get('services', 'acc', 's1')).toEqual({ id: 's1', name: 'Shop' });
  });

  it('replaces and removes, answering whether the document was there', async () => {
    const [a, b] = await twoReplicas(engine);
    const stored = await a.documents.insert('alert_channels', 'acc', named('pager'));
    expect(await b.documents.replace('alert_channels', 'acc', { ...stored, name: 'pager 2' })).toBe(true);
    expect(await a.documents.get('alert_channels', 'acc', stored.id)).toEqual({ ...stored, name: 'pager 2' });
    expect(await b.documents.remove('alert_channels', 'acc', stored.id)).toBe(true);
    expect(await a.documents.remove('alert_channels', 'acc', stored.id)).toBe(false);
    expect(await a.documents.replace('alert_channels', 'acc', stored)).toBe(false);
    expect(await a.documents.get('alert_channels', 'acc', stored.id)).toBeUndefined();
  });

  it('pages in insertion order with the total on every page', async () => {
    const [a, b] = await twoReplicas(engine);
    for (let index = 0; index < 7; index++) await (index % 2 === 0 ? a : b).documents.insert('maintenance_windows', 'acc', named(`w${index}`));
    const pages = await Promise.all([1, 2, 3, 4].map((page) => a.documents.page('maintenance_windows', 'acc', { limit: 3, page })));
    expect(pages.map((page) => page.items.map((item) => item['name']))).toEqual([['w0', 'w1', 'w2'], ['w3', 'w4', 'w5'], ['w6'], []]);
    expect(pages.map((page) => page.total)).toEqual([7, 7, 7, 7]);
    expect((await b.documents.page('maintenance_windows', 'other', { limit: 3, page: 1 })).total).toBe(0);
  });

  it('filters by tags (all present), name and an API check\'s URL, folding ASCII letters only, with % and _ as plain characters', async () => {
    const [a, b] = await twoReplicas(engine);
    await a.documents.insert('checks', 'acc', check('Checkout API', { tags: ['prod', 'eu'], request: { url: 'https://Shop.example/Pay?x=1' } }));
    await a.documents.insert('checks', 'acc', check('checkout page', { checkType: 'BROWSER', tags: ['prod'] }));
    await a.documents.insert('checks', 'acc', check('100%_done', { tags: ['eu'], request: { url: 'https://other.example/%_' } }));
    await a.documents.insert('checks', 'acc', check('ÉCOLE'));
    expect(await namesOf(b, 'checks', { tags: ['prod'] })).toEqual(['Checkout API', 'checkout page']);
    expect(await namesOf(b, 'checks', { tags: ['prod', 'eu'] })).toEqual(['Checkout API']);
    expect(await namesOf(b, 'checks', { tags: [] })).toHaveLength(4);
    expect(await namesOf(b, 'checks', { nameContains: 'CHECKOUT' })).toEqual(['Checkout API', 'checkout page']);
    expect(await namesOf(b, 'checks', { nameContains: '%_' })).toEqual(['100%_done']);
    expect(await namesOf(b, 'checks', { nameContains: '0_' })).toEqual([]);
    // Not folded beyond ASCII, on either engine.
    expect(await namesOf(b, 'checks', { nameContains: 'école' })).toEqual([]);
    expect(await namesOf(b, 'checks', { nameContains: 'École' })).toEqual(['ÉCOLE']);
    expect(await namesOf(b, 'checks', { nameContains: '' })).toHaveLength(4);
    expect(await namesOf(b, 'checks', { checkType: 'BROWSER' })).toEqual(['checkout page']);
    expect(await namesOf(b, 'checks', { apiUrlContains: 'shop.EXAMPLE/pay' })).toEqual(['Checkout API']);
    expect(await namesOf(b, 'checks', { apiUrlContains: '%_' })).toEqual(['100%_done']);
    expect(await namesOf(b, 'checks', { tags: ['eu'], nameContains: 'api', checkType: 'API' })).toEqual(['Checkout API']);
    const filtered = await b.documents.page('checks', 'acc', { limit: 1, page: 2, tags: ['prod'] });
    expect(filtered).toMatchObject({ total: 2, items: [{ name: 'checkout page' }] });
  });

  it('filters checks by their group, following a replace that moves a check', async () => {
    const [a, b] = await twoReplicas(engine);
    const first = await a.documents.insert('checks', 'acc', check('one', { groupId: 1 }));
    await a.documents.insert('checks', 'acc', check('two', { groupId: 2 }));
    await a.documents.insert('checks', 'acc', check('three', { groupId: 1 }));
    await a.documents.insert('checks', 'acc', check('loose', { groupId: null }));
    await a.documents.insert('checks', 'other', check('theirs', { groupId: 1 }));
    expect(await namesOf(b, 'checks', { groupId: 1 })).toEqual(['one', 'three']);
    await b.documents.replace('checks', 'acc', { ...first, groupId: 2 });
    expect(await namesOf(a, 'checks', { groupId: 1 })).toEqual(['three']);
    expect(await namesOf(a, 'checks', { groupId: 2, nameContains: 'o' })).toEqual(['one', 'two']);
    expect(await namesOf(a, 'checks', { groupId: 3 })).toEqual([]);
  });

  it('filters checks by the status-page service their incidents name, following a replace that moves a check', async () => {
    const [a, b] = await twoReplicas(engine);
    const on = (serviceId: string | null) => ({ triggerIncident: serviceId === null ? null : { serviceId, name: 'Outage' } });
    const first = await a.documents.insert('checks', 'acc', check('one', on('svc-1')));
    await a.documents.insert('checks', 'acc', check('two', on('svc-2')));
    await a.documents.insert('checks', 'acc', check('three', on('svc-1')));
    await a.documents.insert('checks', 'acc', check('none', on(null)));
    await a.documents.insert('checks', 'other', check('theirs', on('svc-1')));
    expect(await namesOf(b, 'checks', { serviceId: 'svc-1' })).toEqual(['one', 'three']);
    await b.documents.replace('checks', 'acc', { ...first, triggerIncident: null });
    expect(await namesOf(a, 'checks', { serviceId: 'svc-1' })).toEqual(['three']);
    expect(await namesOf(a, 'checks', { serviceId: 'svc-3' })).toEqual([]);
  });

  it('pages by cursor after a document\'s seq, oldest first, neither skipping nor repeating across a delete and a create', async () => {
    const [a, b] = await twoReplicas(engine);
    for (const name of ['s1', 's2', 's3']) await a.documents.insert('services', 'acc', named(name));
    await a.documents.insert('services', 'other', named('theirs'));
    const first = await b.documents.pageAfter('services', 'acc', 0, 2);
    expect(first.map((row) => row.doc['name'])).toEqual(['s1', 's2']);
    expect(first[0]!.seq).toBeGreaterThan(0);
    expect(first[1]!.seq).toBeGreaterThan(first[0]!.seq);
    await a.documents.remove('services', 'acc', first[0]!.doc.id);
    await a.documents.insert('services', 'acc', named('s4'));
    const rest = await b.documents.pageAfter('services', 'acc', first[1]!.seq, 10);
    expect(rest.map((row) => row.doc['name'])).toEqual(['s3', 's4']);
    expect(await b.documents.pageAfter('services', 'acc', rest[1]!.seq, 10)).toEqual([]);
  });

  it('pages every account\'s documents by cursor, each as its stored text with its account and id as text', async () => {
    const [a, b] = await twoReplicas(engine);
    await a.documents.insert('check_groups', 'acc', named('g1'));
    await b.documents.insert('check_groups', 'other', (id) => ({ zeta: 1, id, name: 'Ünïcode ✓' }));
    const dropped = await a.documents.insert('check_groups', 'acc', named('g2'));
    await a.documents.insert('check_groups', 'acc', named('g3'));
    await a.documents.insert('checks', 'acc', check('not a group'));
    const first = await b.documents.everyAccountAfter('check_groups', 0, 2);
    expect(first.map(({ accountId, id, text }) => ({ accountId, id, text }))).toEqual([
      { accountId: 'acc', id: '1', text: JSON.stringify({ id: 1, name: 'g1' }) },
      { accountId: 'other', id: '1', text: JSON.stringify({ zeta: 1, id: 1, name: 'Ünïcode ✓' }) },
    ]);
    expect(first[1]!.seq).toBeGreaterThan(first[0]!.seq);
    // A document removed between pages is not read; one added after them is, on the last page.
    await b.documents.remove('check_groups', 'acc', dropped.id);
    await b.documents.insert('check_groups', 'other', named('g4'));
    const rest = await a.documents.everyAccountAfter('check_groups', first[1]!.seq, 10);
    expect(rest.map((row) => [row.accountId, row.id, JSON.parse(row.text).name])).toEqual([
      ['acc', '3', 'g3'],
      ['other', '2', 'g4'],
    ]);
    expect(await a.documents.everyAccountAfter('check_groups', rest[1]!.seq, 10)).toEqual([]);
  });

  it('reads many of an account\'s documents at once as their stored texts, leaving out the missing and another account\'s', async () => {
    const [a, b] = await twoReplicas(engine);
    const home = await a.documents.insert('checks', 'acc', (id) => ({ zeta: 1, id, name: 'Ünïcode ✓' }));
    const api = await a.documents.insert('checks', 'acc', check('api'));
    const theirs = await a.documents.insert('checks', 'other', check('theirs'));
    const read = await b.documents.getMany('checks', 'acc', [api.id, home.id, theirs.id, '0190a000-0000-7000-8000-000000000000', api.id]);
    expect(read.sort((x, y) => x.text.localeCompare(y.text))).toEqual([
      { id: String(api.id), text: JSON.stringify(api) },
      { id: String(home.id), text: JSON.stringify(home) },
    ]);
    const groups = [];
    for (const name of ['g1', 'g2', 'g3']) groups.push(await a.documents.insert('check_groups', 'acc', named(name)));
    await a.documents.remove('check_groups', 'acc', 2);
    const readGroups = await b.documents.getMany('check_groups', 'acc', groups.map((group) => group.id));
    expect(readGroups.map(({ id, text }) => [id, JSON.parse(text).name]).sort()).toEqual([
      ['1', 'g1'],
      ['3', 'g3'],
    ]);
    expect(await b.documents.getMany('check_groups', 'acc', [])).toEqual([]);
  });

  it('reads as many documents as one getMany takes', async () => {
    const [a, b] = await twoReplicas(engine);
    const stored = await a.transaction(async (tx) => Promise.all(Array.from({ length: MAX_DOCUMENTS_READ_AT_ONCE }, (_, index) => tx.documents.insert('services', 'acc', named(`s${index}`)))));
    const read = await b.documents.getMany('services', 'acc', stored.map((doc) => doc.id));
    expect(new Set(read.map((doc) => doc.id))).toEqual(new Set(stored.map((doc) => String(doc.id))));
  });

  it('follows a search after a replace changes the name or tags', async () => {
    const [a, b] = await twoReplicas(engine);
    const stored = await a.documents.insert('checks', 'acc', check('old name', { tags: ['a'] }));
    await b.documents.replace('checks', 'acc', { ...stored, name: 'New Name', tags: ['b'] });
    expect(await namesOf(a, 'checks', { nameContains: 'old' })).toEqual([]);
    expect(await namesOf(a, 'checks', { nameContains: 'new' })).toEqual(['New Name']);
    expect(await namesOf(a, 'checks', { tags: ['a'] })).toEqual([]);
    expect(await namesOf(a, 'checks', { tags: ['b'] })).toEqual(['New Name']);
  });

  it('gives every document its own id when replicas insert at once', async () => {
    const [a, b] = await twoReplicas(engine);
    const inserted = await Promise.all(
      Array.from({ length: 30 }, (_, index) => (index % 2 === 0 ? a : b).documents.insert(index % 3 === 0 ? 'checks' : 'check_groups', 'acc', named(`d${index}`))),
    );
    const groups = inserted.filter((doc) => typeof doc.id === 'number').map((doc) => doc.id as number);
    expect([...groups].sort((x, y) => x - y)).toEqual(Array.from({ length: groups.length }, (_, index) => index + 1));
    expect(new Set(inserted.map((doc) => doc.id)).size).toBe(30);
    expect((await a.documents.page('check_groups', 'acc', { limit: 100, page: 1 })).total).toBe(groups.length);
    expect((await b.documents.page('checks', 'acc', { limit: 100, page: 1 })).total).toBe(30 - groups.length);
  });
});

describe.each(engines)('the documents change feed on $name', (engine) => {
  it('starts empty, then lists each write of either replica once, in commit order', async () => {
    const [a, b] = await twoReplicas(engine);
    expect(await a.documents.latestPosition()).toBe(0);
    expect(await a.documents.changesSince(0, 10)).toEqual({ changes: [], position: 0, reset: false });
    const group = await a.documents.insert('check_groups', 'acc', named('g'));
    const service = await b.documents.insert('services', 'acc', named('s'));
    await a.documents.replace('check_groups', 'acc', { ...group, name: 'g2' });
    await b.documents.remove('services', 'acc', service.id);
    // A write that changed nothing is not a change.
    await b.documents.remove('services', 'acc', service.id);
    await a.documents.replace('check_groups', 'other', group);
    const changes = await drain(b, 0, 3);
    expect(changes.map(({ kind, accountId, id }) => `${kind} ${accountId} ${id}`)).toEqual([
      'check_groups acc 1',
      `services acc ${service.id}`,
      'check_groups acc 1',
      `services acc ${service.id}`,
    ]);
    const positions = changes.map((change) => change.position);
    expect([...positions].sort((x, y) => x - y)).toEqual(positions);
    expect(new Set(positions).size).toBe(4);
    expect(await a.documents.latestPosition()).toBe(positions.at(-1));
  });

  it('misses no write made while replicas write at once, reading as they go', async () => {
    const [a, b] = await twoReplicas(engine);
    const seen = new Map<string, number>();
    let position = await b.documents.latestPosition();
    let writing = true;
    const reader = (async () => {
      // Reads until the writers are done and one more read finds nothing.
      for (;;) {
        const done = !writing;
        const batch = await b.documents.changesSince(position, 7);
        expect(batch.reset).toBe(false);
        for (const change of batch.changes) seen.set(change.id, (seen.get(change.id) ?? 0) + 1);
        position = batch.position;
        if (done && batch.changes.length === 0) return;
      }
    })();
    const written = await Promise.all(Array.from({ length: 40 }, (_, index) => (index % 2 === 0 ? a : b).documents.insert('checks', 'acc', named(`c${index}`))));
    writing = false;
    await reader;
    expect([...seen.keys()].sort()).toEqual(written.map((doc) => String(doc.id)).sort());
    expect([...seen.values()].every((count) => count === 1)).toBe(true);
  });

  it('shows a follower no write of a unit still open, even on the unit\'s own connection, and none of one rolled back', async () => {
    const [a] = await twoReplicas(engine);
    await a.documents.insert('checks', 'acc', check('committed'));
    const before = await a.documents.latestPosition();
    let read: Promise<[number, DocumentChange[], string[]]> | undefined;
    const unit = a.transaction(async (tx) => {
      await tx.documents.insert('checks', 'acc', check('rolled back'));
      read = Promise.all([a.documents.latestPosition(), a.documents.changesSince(before, 10).then((batch) => batch.changes), a.documents.everyAccountAfter('checks', 0, 10).then((rows) => rows.map((row) => JSON.parse(row.text).name as string))]);
      // Open past this turn, as a unit awaiting I/O is, while the reads above are asked for.
      await new Promise((resolve) => setTimeout(resolve, 20));
      throw new Error('undone');
    });
    await expect(unit).rejects.toThrow('undone');
    expect(await read).toEqual([before, [], ['committed']]);
    // The next write is read at the next position, not skipped as one already seen.
    const next = await a.documents.insert('checks', 'acc', check('next'));
    expect((await drain(a, before)).map((change) => change.id)).toEqual([String(next.id)]);
  });

  it('tells a reader behind pruned entries to read everything again, and goes on from the latest position', async () => {
    const [a, b] = await twoReplicas(engine);
    await a.documents.insert('checks', 'acc', named('one'));
    await a.documents.insert('checks', 'acc', named('two'));
    const latest = await a.documents.latestPosition();
    expect(await b.documents.pruneChanges(Date.now() + 60_000)).toBe(2);
    expect(await b.documents.pruneChanges(Date.now() + 60_000)).toBe(0);
    expect(await a.documents.changesSince(0, 10)).toEqual({ changes: [], position: latest, reset: true });
    // A reader that was up to date is not behind: nothing was lost for it.
    expect(await a.documents.changesSince(latest, 10)).toEqual({ changes: [], position: latest, reset: false });
    expect(await b.documents.latestPosition()).toBe(latest);
    const three = await b.documents.insert('checks', 'acc', named('three'));
    expect((await a.documents.changesSince(latest, 10)).changes.map((change) => change.id)).toEqual([String(three.id)]);
  });

  it('keeps entries written after the moment pruned to', async () => {
    const [a] = await twoReplicas(engine);
    await a.documents.insert('checks', 'acc', named('kept'));
    expect(await a.documents.pruneChanges(Date.now() - 60_000)).toBe(0);
    expect((await a.documents.changesSince(0, 10)).changes).toHaveLength(1);
  });
});

describe.each(engines)('bad input to the documents port on $name', (engine) => {
  it.each([
    ['an unknown kind', (p: StoragePorts) => p.documents.get('results' as DocumentKind, 'acc', 'x'), 'kind must be one of checks, check_groups, alert_channels, maintenance_windows, services, got "results"'],
    ['an empty account', (p: StoragePorts) => p.documents.get('checks', '', 'x'), 'accountId must be a string that is not empty, got ""'],
    ['a text id for an integer kind', (p: StoragePorts) => p.documents.get('check_groups', 'acc', '1'), 'id of check_groups must be a whole number of at least 1, got "1"'],
    ['an empty id', (p: StoragePorts) => p.documents.remove('checks', 'acc', ''), 'id of checks must be a string of 1 to 255 characters, got ""'],
    ['many ids that are not a list', (p: StoragePorts) => p.documents.getMany('checks', 'acc', 'x' as unknown as string[]), 'ids must be a list, got "x"'],
    ['more ids than one read takes', (p: StoragePorts) => p.documents.getMany('services', 'acc', Array.from({ length: MAX_DOCUMENTS_READ_AT_ONCE + 1 }, (_, index) => `s${index}`)), 'ids must be a list of at most 1000, got 1001 ids'],
    ['a text id among many of an integer kind', (p: StoragePorts) => p.documents.getMany('check_groups', 'acc', [1, '2']), 'id of check_groups must be a whole number of at least 1, got "2"'],
    ['many ids of an unknown kind', (p: StoragePorts) => p.documents.getMany('teams' as DocumentKind, 'acc', []), 'kind must be one of checks, check_groups, alert_channels, maintenance_windows, services, got "teams"'],
    ['many ids in an empty account', (p: StoragePorts) => p.documents.getMany('checks', '', []), 'accountId must be a string that is not empty, got ""'],
    ['a document built with another id', (p: StoragePorts) => p.documents.insert('check_groups', 'acc', () => ({ id: 99, name: 'x' })), 'the document built for check_groups 1 has id 99'],
    ['a chosen id for a kind whose ids are counted', (p: StoragePorts) => p.documents.insertWithId('check_groups', 'acc', { id: 7, name: 'g' }), 'ids of check_groups are counted by the store; only checks and services take a chosen id'],
    ['a chosen id that is empty', (p: StoragePorts) => p.documents.insertWithId('checks', 'acc', { id: '', name: 'c' }), 'id of checks must be a string of 1 to 255 characters, got ""'],
    ['a chosen id for an unknown kind', (p: StoragePorts) => p.documents.insertWithId('teams' as DocumentKind, 'acc', { id: 'x' }), 'kind must be one of checks, check_groups, alert_channels, maintenance_windows, services, got "teams"'],
    ['an array as a document', (p: StoragePorts) => p.documents.replace('checks', 'acc', [] as unknown as ResourceDocument), 'a document of checks must be a JSON object, got an array'],
    ['a page of 0', (p: StoragePorts) => p.documents.page('checks', 'acc', { limit: 10, page: 0 }), 'page must be a whole number of at least 1, got 0'],
    ['a limit of 0', (p: StoragePorts) => p.documents.page('checks', 'acc', { limit: 0, page: 1 }), 'limit must be a whole number of at least 1, got 0'],
    ['tags that are not strings', (p: StoragePorts) => p.documents.page('checks', 'acc', { limit: 1, page: 1, tags: [1] as unknown as string[] }), 'tags must be a list of strings, got object'],
    ['a check type filter on groups', (p: StoragePorts) => p.documents.page('check_groups', 'acc', { limit: 1, page: 1, checkType: 'API' }), 'checkType filters checks only, not check_groups'],
    ['a group filter on groups', (p: StoragePorts) => p.documents.page('check_groups', 'acc', { limit: 1, page: 1, groupId: 1 }), 'groupId filters checks only, not check_groups'],
    ['a group filter that is not an id', (p: StoragePorts) => p.documents.page('checks', 'acc', { limit: 1, page: 1, groupId: 0 }), 'groupId must be a whole number of at least 1, got 0'],
    ['a service filter on groups', (p: StoragePorts) => p.documents.page('check_groups', 'acc', { limit: 1, page: 1, serviceId: 's' }), 'serviceId filters checks only, not check_groups'],
    ['an empty service filter', (p: StoragePorts) => p.documents.page('checks', 'acc', { limit: 1, page: 1, serviceId: '' }), 'serviceId must be a string of 1 to 255 characters, got ""'],
    ['a negative cursor', (p: StoragePorts) => p.documents.pageAfter('services', 'acc', -1, 10), 'afterSeq must be a whole number of at least 0, got -1'],
    ['a cursor page of 0', (p: StoragePorts) => p.documents.pageAfter('services', 'acc', 0, 0), 'limit must be a whole number of at least 1, got 0'],
    ['a cursor page of an unknown kind', (p: StoragePorts) => p.documents.pageAfter('teams' as DocumentKind, 'acc', 0, 1), 'kind must be one of checks, check_groups, alert_channels, maintenance_windows, services, got "teams"'],
    ['a negative cursor across accounts', (p: StoragePorts) => p.documents.everyAccountAfter('checks', -1, 10), 'afterSeq must be a whole number of at least 0, got -1'],
    ['a page of 0 across accounts', (p: StoragePorts) => p.documents.everyAccountAfter('checks', 0, 0), 'limit must be a whole number of at least 1, got 0'],
    ['a page across accounts of an unknown kind', (p: StoragePorts) => p.documents.everyAccountAfter('teams' as DocumentKind, 0, 1), 'kind must be one of checks, check_groups, alert_channels, maintenance_windows, services, got "teams"'],
    ['a negative feed position', (p: StoragePorts) => p.documents.changesSince(-1, 10), 'position must be a whole number of at least 0, got -1'],
    ['a feed limit of 0', (p: StoragePorts) => p.documents.changesSince(0, 0), 'limit must be a whole number of at least 1, got 0'],
    ['a prune moment that is not whole milliseconds', (p: StoragePorts) => p.documents.pruneChanges(1.5), 'beforeMs must be a whole number of milliseconds since the epoch, got 1.5'],
  ])('refuses %s', async (_, call, message) => {
    const [a] = await twoReplicas(engine);
    await expect(call(a)).rejects.toThrow(message);
  });

  it('stores nothing and records no change when the built document is refused', async () => {
    const [a] = await twoReplicas(engine);
    await expect(a.documents.insert('checks', 'acc', () => ({ id: 'not-the-id' }))).rejects.toThrow(/has id "not-the-id"/);
    expect((await a.documents.page('checks', 'acc', { limit: 10, page: 1 })).total).toBe(0);
    expect(await a.documents.latestPosition()).toBe(0);
  });
});
