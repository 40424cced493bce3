/** The status-page port, the same assertions on every engine (see engines.ts). */
import { describe, expect, it } from 'vitest';
import type { StoragePorts } from '../ports.js';
import type { StatusPageDocument } from '../status-page-ports.js';
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

  it.each([
    ['an empty account', (p: StoragePorts) => p.statusPages.showingService('', 's1'), 'accountId must be a string that is not empty, got ""'],
    ['an empty service id', (p: StoragePorts) => p.statusPages.showingService('acc', ''), 'serviceId must be a string of 1 to 255 characters, got ""'],
    ['a page without an id', (p: StoragePorts) => p.statusPages.save('acc', { name: 'x' } as unknown as StatusPageDocument), 'statusPageId must be a string of 1 to 255 characters, got undefined'],
    ['a page whose name is not a string', (p: StoragePorts) => p.statusPages.save('acc', { id: 'p1', name: 7 } as unknown as StatusPageDocument), "a status page's name must be a string, got 7"],
    ['cards that are not a list of cards with services', (p: StoragePorts) => p.statusPages.save('acc', { id: 'p1', name: 'x', cards: [{ name: 'c' }] }), "a status page's cards must be a list of cards, each with a list of services"],
    ['an empty page id to remove', (p: StoragePorts) => p.statusPages.remove('acc', ''), 'statusPageId must be a string of 1 to 255 characters, got ""'],
  ])('refuses %s', async (_, call, message) => {
    const [a] = await twoReplicas(engine);
    await expect(call(a)).rejects.toThrow(message);
  });
});
