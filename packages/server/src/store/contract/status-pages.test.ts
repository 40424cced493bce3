/** The status-page port, the same assertions on every engine (see engines.ts). */
import { describe, expect, it } from 'vitest';
import type { StoragePorts } from '../ports.js';
import { StatusPageNameTaken, type StatusPageDocument } from '../status-page-ports.js';
import { enginesUnderTest, twoReplicas } from './engines.js';

const engines = enginesUnderTest();

/** A page as the API stores it, its cards showing the services given (one card per list). */
function page(id: string, name: string, cards: string[][], extra: Record<string, unknown> = {}): StatusPageDocument {
  return { id, name, url: `${id}-page`, cards: cards.map((services, index) => ({ id: `${id}-card-${index}`, name: `card ${index}`, services: services.map((service) => ({ id: service })) })), ...extra };
}

describe.each(engines)('status pages on $name', (engine) => {
  it('answers from another replica which pages show a service, oldest first, by id and name', async () => {
    const [a, b] = await twoReplicas(engine);
    await a.statusPages.save('acc', page('p1', 'Public "status"', [['s1'], ['s2', 's1']]));
    await a.statusPages.save('acc', page('p2', 'Internal', [['s2']]));
    await a.statusPages.save('acc', page('p3', 'Empty', []));
    await a.statusPages.save('acc', { id: 'p4', name: 'No cards' });
    await a.statusPages.save('acc', page('p5', 'Later', [['s1']]));
    expect(await b.statusPages.showingService('acc', 's1')).toEqual([
      { id: 'p1', name: 'Public "status"' },
      { id: 'p5', name: 'Later' },
    ]);
    expect(await b.statusPages.showingService('acc', 's2')).toEqual([
      { id: 'p1', name: 'Public "status"' },
      { id: 'p2', name: 'Internal' },
    ]);
    expect(await b.statusPages.showingService('acc', 's9')).toEqual([]);
  });

  it('follows a page rewritten to show other services, keeping its place, and forgets a page removed', async () => {
    const [a, b] = await twoReplicas(engine);
    await a.statusPages.save('acc', page('p1', 'First', [['s1']]));
    await a.statusPages.save('acc', page('p2', 'Second', [['s1']]));
    await b.statusPages.save('acc', page('p1', 'First, renamed', [['s2']]));
    expect(await a.statusPages.showingService('acc', 's1')).toEqual([{ id: 'p2', name: 'Second' }]);
    await b.statusPages.save('acc', page('p1', 'First again', [['s1']]));
    expect((await a.statusPages.showingService('acc', 's1')).map((shown) => shown.id)).toEqual(['p1', 'p2']);
    expect(await b.statusPages.remove('acc', 'p2')).toBe(true);
    expect(await b.statusPages.remove('acc', 'p2')).toBe(false);
    expect(await a.statusPages.showingService('acc', 's1')).toEqual([{ id: 'p1', name: 'First again' }]);
    expect(await a.statusPages.get('acc', 'p2')).toBeUndefined();
  });

  it('gives a page back as it was written, key order included', async () => {
    const [a, b] = await twoReplicas(engine);
    const written = { name: 'Ordered', id: 'p1', theme: 'DARK', cards: [{ services: [{ id: 's1' }], name: 'c' }], zeta: null, alpha: 1 };
    await a.statusPages.save('acc', written);
    const read = await b.statusPages.get('acc', 'p1');
    expect(read).toEqual(written);
    expect(Object.keys(read ?? {})).toEqual(Object.keys(written));
  });

  it('keeps accounts apart', async () => {
    const [a, b] = await twoReplicas(engine);
    await a.statusPages.save('acc', page('p1', 'Ours', [['s1']]));
    await a.statusPages.save('other', page('p1', 'Theirs', [['s1']], { url: 'other-p1' }));
    expect(await b.statusPages.showingService('acc', 's1')).toEqual([{ id: 'p1', name: 'Ours' }]);
    expect(await b.statusPages.showingService('other', 's1')).toEqual([{ id: 'p1', name: 'Theirs' }]);
    expect(await b.statusPages.remove('nobody', 'p1')).toBe(false);
  });

  it('takes a page back with the unit of work that saved it, and sees it inside the unit', async () => {
    const [a, b] = await twoReplicas(engine);
    const failed = a.transaction(async (tx) => {
      await tx.statusPages.save('acc', page('p1', 'Undone', [['s1']]));
      expect(await tx.statusPages.showingService('acc', 's1')).toEqual([{ id: 'p1', name: 'Undone' }]);
      throw new Error('undo');
    });
    await expect(failed).rejects.toThrow('undo');
    expect(await b.statusPages.showingService('acc', 's1')).toEqual([]);
    await a.transaction(async (tx) => tx.statusPages.save('acc', page('p1', 'Kept', [['s1']])));
    expect(await b.statusPages.showingService('acc', 's1')).toEqual([{ id: 'p1', name: 'Kept' }]);
  });

  it("pages an account's pages by their place in the order created, a cursor neither skipping nor repeating across a delete and a create", async () => {
    const [a, b] = await twoReplicas(engine);
    for (const id of ['p1', 'p2', 'p3']) await a.statusPages.save('acc', page(id, id, []));
    await a.statusPages.save('other', page('o1', 'o1', [], { url: 'o1-elsewhere' }));
    const first = await b.statusPages.pageAfter('acc', 0, 2);
    expect(first.map((row) => row.page.id)).toEqual(['p1', 'p2']);
    expect(first[0]!.seq).toBeLessThan(first[1]!.seq);
    await a.statusPages.remove('acc', 'p2');
    await a.statusPages.save('acc', page('p4', 'p4', []));
    // Rewritten, a page keeps its place.
    await a.statusPages.save('acc', page('p3', 'p3 renamed', []));
    const rest = await b.statusPages.pageAfter('acc', first[1]!.seq, 10);
    expect(rest.map((row) => [row.page.id, row.page.name])).toEqual([['p3', 'p3 renamed'], ['p4', 'p4']]);
    expect(await b.statusPages.pageAfter('acc', rest[1]!.seq, 10)).toEqual([]);
    expect((await b.statusPages.pageAfter('other', 0, 10)).map((row) => row.page.id)).toEqual(['o1']);
  });

  it('says which page of the whole service holds a url or a custom domain, following renames and removals', async () => {
    const [a, b] = await twoReplicas(engine);
    await a.statusPages.save('acc', page('p1', 'Ours', [], { url: 'acme', customDomain: 'status.acme.com' }));
    await a.statusPages.save('other', page('p1', 'Theirs', [], { url: 'globex', customDomain: null }));
    expect(await b.statusPages.holding('url', 'acme')).toEqual({ accountId: 'acc', id: 'p1' });
    expect(await b.statusPages.holding('url', 'ACME')).toEqual({ accountId: 'acc', id: 'p1' });
    expect(await b.statusPages.holding('customDomain', 'status.acme.com')).toEqual({ accountId: 'acc', id: 'p1' });
    expect(await b.statusPages.holding('url', 'globex')).toEqual({ accountId: 'other', id: 'p1' });
    expect(await b.statusPages.holding('customDomain', 'acme')).toBeUndefined();
    await a.statusPages.save('acc', page('p1', 'Ours', [], { url: 'acme-two' }));
    expect(await b.statusPages.holding('url', 'acme')).toBeUndefined();
    expect(await b.statusPages.holding('customDomain', 'status.acme.com')).toBeUndefined();
    await a.statusPages.remove('other', 'p1');
    expect(await b.statusPages.holding('url', 'globex')).toBeUndefined();
  });

  it("refuses a save whose url or custom domain another page holds, another account's too, with StatusPageNameTaken", async () => {
    const [a, b] = await twoReplicas(engine);
    await a.statusPages.save('acc', page('p1', 'First', [], { url: 'acme', customDomain: 'status.acme.com' }));
    const url = b.statusPages.save('other', page('p2', 'Second', [], { url: 'acme' }));
    await expect(url).rejects.toThrow(StatusPageNameTaken);
    await expect(url).rejects.toMatchObject({ field: 'url', value: 'acme' });
    const domain = b.statusPages.save('acc', page('p3', 'Third', [], { url: 'third', customDomain: 'Status.Acme.com' }));
    await expect(domain).rejects.toMatchObject({ field: 'customDomain', value: 'status.acme.com' });
    // The page holding them may be saved again; the refused ones were not stored.
    await b.statusPages.save('acc', page('p1', 'First again', [], { url: 'acme', customDomain: 'status.acme.com' }));
    expect((await a.statusPages.pageAfter('acc', 0, 10)).map((row) => row.page.name)).toEqual(['First again']);
    expect(await a.statusPages.pageAfter('other', 0, 10)).toEqual([]);
  });

  it('lets one of two saves of one url at once land, the other refused with StatusPageNameTaken', async () => {
    const [a, b] = await twoReplicas(engine);
    const outcomes = await Promise.allSettled([a.statusPages.save('acc', page('p1', 'One', [], { url: 'same' })), b.statusPages.save('other', page('p2', 'Two', [], { url: 'same' }))]);
    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1);
    const refused = outcomes.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
    expect(refused?.reason).toBeInstanceOf(StatusPageNameTaken);
  });

  it('moves its revision with each committed save and remove, as another replica sees it, and not with a unit undone', async () => {
    const [a, b] = await twoReplicas(engine);
    const seen = [await b.statusPages.revision()];
    await a.statusPages.save('acc', page('p1', 'First', []));
    seen.push(await b.statusPages.revision());
    await a.statusPages.save('acc', page('p1', 'Renamed', []));
    seen.push(await b.statusPages.revision());
    await a.statusPages.remove('acc', 'p1');
    seen.push(await b.statusPages.revision());
    expect(new Set(seen).size).toBe(seen.length);
    const before = await b.statusPages.revision();
    await expect(a.transaction(async (tx) => {
      await tx.statusPages.save('acc', page('p2', 'Undone', []));
      throw new Error('undo');
    })).rejects.toThrow('undo');
    expect(await b.statusPages.revision()).toBe(before);
    await a.transaction(async (tx) => tx.statusPages.save('acc', page('p2', 'Kept', [])));
    expect(await b.statusPages.revision()).not.toBe(before);
  });

  it("removes a page's subscriptions with it, and only its own", async () => {
    const [a, b] = await twoReplicas(engine);
    await a.statusPages.save('acc', page('p1', 'First', []));
    await a.statusPages.save('acc', page('p2', 'Second', []));
    expect(await a.statusPages.addSubscription('acc', 'p1', { id: 'sub-1', email: 'a@example.com' })).toBe(true);
    expect(await a.statusPages.addSubscription('acc', 'p1', { id: 'sub-1', email: 'changed@example.com' })).toBe(false);
    await a.statusPages.addSubscription('acc', 'p1', { id: 'sub-2', email: 'b@example.com' });
    await a.statusPages.addSubscription('acc', 'p2', { id: 'sub-3', email: 'c@example.com' });
    expect(await b.statusPages.subscriptionsOf('acc', 'p1')).toEqual([{ id: 'sub-1', email: 'a@example.com' }, { id: 'sub-2', email: 'b@example.com' }]);
    await a.transaction(async (tx) => tx.statusPages.remove('acc', 'p1'));
    expect(await b.statusPages.subscriptionsOf('acc', 'p1')).toEqual([]);
    expect(await b.statusPages.subscriptionsOf('acc', 'p2')).toEqual([{ id: 'sub-3', email: 'c@example.com' }]);
  });

  it("pages a page's subscriptions in order of creation with their count, from another replica and inside a unit", async () => {
    const [a, b] = await twoReplicas(engine);
    for (const n of [1, 2, 3, 4, 5]) await a.statusPages.addSubscription('acc', 'p1', { id: `sub-${n}`, email: `${n}@example.com` });
    await a.statusPages.addSubscription('acc', 'p2', { id: 'other', email: 'o@example.com' });
    await a.statusPages.addSubscription('globex', 'p1', { id: 'theirs', email: 't@example.com' });
    const ids = (page: { items: Array<{ id: string }>; total: number }) => [page.items.map((item) => item.id), page.total];
    expect(ids(await b.statusPages.subscriptionPage('acc', 'p1', { page: 1, limit: 2 }))).toEqual([['sub-1', 'sub-2'], 5]);
    expect(ids(await b.statusPages.subscriptionPage('acc', 'p1', { page: 3, limit: 2 }))).toEqual([['sub-5'], 5]);
    expect(ids(await b.statusPages.subscriptionPage('acc', 'p1', { page: 4, limit: 2 }))).toEqual([[], 5]);
    expect(ids(await b.statusPages.subscriptionPage('acc', 'missing', { page: 1, limit: 10 }))).toEqual([[], 0]);
    expect((await b.statusPages.subscriptionPage('acc', 'p1', { page: 1, limit: 1 })).items).toEqual([{ id: 'sub-1', email: '1@example.com' }]);
    await b.transaction(async (tx) => {
      await tx.statusPages.addSubscription('acc', 'p1', { id: 'sub-6', email: '6@example.com' });
      expect(ids(await tx.statusPages.subscriptionPage('acc', 'p1', { page: 2, limit: 5 }))).toEqual([['sub-6'], 6]);
    });
  });

  it.each([
    ['an empty account', (p: StoragePorts) => p.statusPages.showingService('', 's1'), 'accountId must be a string that is not empty, got ""'],
    ['an empty service id', (p: StoragePorts) => p.statusPages.showingService('acc', ''), 'serviceId must be a string of 1 to 255 characters, got ""'],
    ['a page without an id', (p: StoragePorts) => p.statusPages.save('acc', { name: 'x' } as unknown as StatusPageDocument), 'statusPageId must be a string of 1 to 255 characters, got undefined'],
    ['a page whose name is not a string', (p: StoragePorts) => p.statusPages.save('acc', { id: 'p1', name: 7 } as unknown as StatusPageDocument), "a status page's name must be a string, got 7"],
    ['cards that are not a list of cards with services', (p: StoragePorts) => p.statusPages.save('acc', { id: 'p1', name: 'x', cards: [{ name: 'c' }] }), "a status page's cards must be a list of cards, each with a list of services"],
    ['an empty page id to remove', (p: StoragePorts) => p.statusPages.remove('acc', ''), 'statusPageId must be a string of 1 to 255 characters, got ""'],
    ['a negative cursor', (p: StoragePorts) => p.statusPages.pageAfter('acc', -1, 10), 'afterSeq must be a whole number of at least 0, got -1'],
    ['a page of 0', (p: StoragePorts) => p.statusPages.pageAfter('acc', 0, 0), 'limit must be a whole number of at least 1, got 0'],
    ['a name that is neither url nor customDomain', (p: StoragePorts) => p.statusPages.holding('slug' as 'url', 'acme'), 'a status page is named by its url or customDomain, got "slug"'],
    ['an empty url to look up', (p: StoragePorts) => p.statusPages.holding('url', ''), 'url must be a string of 1 to 255 characters, got ""'],
    ['a subscription without an id', (p: StoragePorts) => p.statusPages.addSubscription('acc', 'p1', { email: 'a@example.com' } as unknown as { id: string }), 'subscriptionId must be a string of 1 to 255 characters, got undefined'],
    ['a subscriptions page of 0', (p: StoragePorts) => p.statusPages.subscriptionPage('acc', 'p1', { page: 0, limit: 10 }), 'page must be a whole number of at least 1, got 0'],
    ['subscriptions 0 to a page', (p: StoragePorts) => p.statusPages.subscriptionPage('acc', 'p1', { page: 1, limit: 0 }), 'limit must be a whole number of at least 1, got 0'],
    ['an over-long page id to list subscriptions of', (p: StoragePorts) => p.statusPages.subscriptionPage('acc', 'p'.repeat(256), { page: 1, limit: 10 }), 'statusPageId must be a string of 1 to 255 characters, got a string of 256 characters'],
  ])('refuses %s', async (_, call, message) => {
    const [a] = await twoReplicas(engine);
    await expect(call(a)).rejects.toThrow(message);
  });
});

describe('status pages on postgres, two creates of one url in units at once', () => {
  const postgres = engines.find((engine) => engine.name === 'postgres')!;

  it('refuses the unit that looked before the other committed, by the unique index, with StatusPageNameTaken', async () => {
    const [a, b] = await twoReplicas(postgres);
    let releaseFirst!: () => void;
    const firstMayCommit = new Promise<void>((resolve) => (releaseFirst = resolve));
    let firstSaved!: () => void;
    const firstHasSaved = new Promise<void>((resolve) => (firstSaved = resolve));
    const first = a.transaction(async (tx) => {
      expect(await tx.statusPages.holding('url', 'same')).toBeUndefined();
      await tx.statusPages.save('acc', page('p1', 'One', [], { url: 'same' }));
      firstSaved();
      await firstMayCommit;
    });
    await firstHasSaved;
    const second = b.transaction(async (tx) => {
      // The first unit's page is not committed: this unit sees the url free, and its save waits on the index.
      expect(await tx.statusPages.holding('url', 'same')).toBeUndefined();
      const saving = tx.statusPages.save('other', page('p2', 'Two', [], { url: 'same' }));
      releaseFirst();
      await saving;
    });
    // Awaited from now on: the second unit may be refused before the first one's commit is told here,
    // and a rejection nobody awaits yet is reported as unhandled.
    const secondRefused = expect(second).rejects.toMatchObject({ name: 'StatusPageNameTaken', field: 'url', value: 'same' });
    await first;
    await secondRefused;
    expect(await b.statusPages.holding('url', 'same')).toEqual({ accountId: 'acc', id: 'p1' });
  });
});
