/**
 * The documents port's pages as stored text (`pageText`) and as one JSON array the database writes
 * (`splicedCheckPage`), which the check list answers with: the same assertions on every engine.
 */
import { describe, expect, it } from 'vitest';
import type { DocumentId, ResourceDocument } from '../document-ports.js';
import type { StoragePorts } from '../ports.js';
import { enginesUnderTest, twoReplicas } from './engines.js';

const engines = enginesUnderTest();

const check = (name: string, extra: Record<string, unknown> = {}) => (id: DocumentId): ResourceDocument => ({ id, name, checkType: 'API', tags: [], ...extra });
const TAIL = ',"alertChannels":{"email":[]}}';

async function insertChecks(ports: StoragePorts, names: readonly string[], extra: Record<string, unknown> = {}): Promise<ResourceDocument[]> {
  const stored: ResourceDocument[] = [];
  for (const name of names) stored.push(await ports.documents.insert('checks', 'acc', check(name, extra)));
  return stored;
}

describe.each(engines)('check pages as stored text on $name', (engine) => {
  it('gives each document as the text written, with its id, in insertion order and with the total', async () => {
    const [a, b] = await twoReplicas(engine);
    const stored = await insertChecks(a, ['one', 'twö ✓', 'three']);
    await a.documents.insert('checks', 'other', check('theirs'));
    const first = await b.documents.pageText('checks', 'acc', { limit: 2, page: 1 });
    expect(first).toEqual({ items: stored.slice(0, 2).map((doc) => ({ id: String(doc.id), text: JSON.stringify(doc) })), total: 3 });
    const last = await b.documents.pageText('checks', 'acc', { limit: 2, page: 2 });
    expect(last.items.map((item) => item.text)).toEqual([JSON.stringify(stored[2])]);
    expect(await b.documents.pageText('checks', 'acc', { limit: 2, page: 3 })).toEqual({ items: [], total: 3 });
  });

  it('filters as page does, and gives groups their integer ids as text', async () => {
    const [a, b] = await twoReplicas(engine);
    await insertChecks(a, ['api home']);
    await a.documents.insert('checks', 'acc', check('browser home', { checkType: 'BROWSER', tags: ['web'] }));
    const page = await b.documents.pageText('checks', 'acc', { limit: 10, page: 1, tags: ['web'], nameContains: 'HOME' });
    expect(page.items.map((item) => (JSON.parse(item.text) as { name: string }).name)).toEqual(['browser home']);
    expect(page.total).toBe(1);
    await a.documents.insert('check_groups', 'acc', (id) => ({ id, name: 'g' }));
    expect((await b.documents.pageText('check_groups', 'acc', { limit: 10, page: 1 })).items.map((item) => item.id)).toEqual(['1']);
  });
});

describe.each(engines)('spliced check pages on $name', (engine) => {
  it('writes the page as one array with the tail in place of each closing brace, counting the page and the total', async () => {
    const [a, b] = await twoReplicas(engine);
    const stored = await insertChecks(a, ['one', 'twö ✓', 'three']);
    const page = await b.documents.splicedCheckPage('acc', { limit: 2, page: 2 }, TAIL);
    expect(page).toBeDefined();
    expect({ count: page!.count, total: page!.total }).toEqual({ count: 1, total: 3 });
    expect(page!.json.toString('utf8')).toBe(`[${JSON.stringify(stored[2]).slice(0, -1)}${TAIL}]`);
    const first = await b.documents.splicedCheckPage('acc', { limit: 2, page: 1 }, TAIL);
    expect(JSON.parse(first!.json.toString('utf8'))).toEqual(stored.slice(0, 2).map((doc) => ({ ...doc, alertChannels: { email: [] } })));
  });

  it('answers an empty array past the last page and for no match, with the total', async () => {
    const [a, b] = await twoReplicas(engine);
    await insertChecks(a, ['one']);
    expect(await b.documents.splicedCheckPage('acc', { limit: 5, page: 2 }, TAIL).then((page) => ({ ...page, json: page!.json.toString() }))).toEqual({ json: '[]', count: 0, total: 1 });
    expect(await b.documents.splicedCheckPage('acc', { limit: 5, page: 1, checkType: 'TCP' }, TAIL).then((page) => ({ ...page, json: page!.json.toString() }))).toEqual({ json: '[]', count: 0, total: 0 });
  });

  it('answers undefined for a page holding a check with a secret value, and splices the pages around it', async () => {
    const [a, b] = await twoReplicas(engine);
    await insertChecks(a, ['plain']);
    const secret = await a.documents.insert('checks', 'acc', check('secret', { environmentVariables: [{ key: 'TOKEN', value: 'x', secret: true }] }));
    expect(await b.documents.splicedCheckPage('acc', { limit: 1, page: 2 }, TAIL)).toBeUndefined();
    expect(await b.documents.splicedCheckPage('acc', { limit: 1, page: 1 }, TAIL)).toBeDefined();
    // The flag follows a replace that drops the secret.
    await a.documents.replace('checks', 'acc', { ...secret, environmentVariables: [] });
    expect(await b.documents.splicedCheckPage('acc', { limit: 1, page: 2 }, TAIL)).toBeDefined();
  });

  it('splices inside a unit of work, seeing the unit\'s own insert', async () => {
    const [a] = await twoReplicas(engine);
    const json = await a.transaction(async (tx) => {
      await tx.documents.insert('checks', 'acc', check('in unit'));
      return (await tx.documents.splicedCheckPage('acc', { limit: 10, page: 1 }, TAIL))!.json.toString();
    });
    expect((JSON.parse(json) as Array<{ name: string }>).map((doc) => doc.name)).toEqual(['in unit']);
  });
});

/** A FINAL result of `checkId`, as recording a run folds it into the check's status. */
function finalResult(checkId: string, outcome: { hasFailures?: boolean; isDegraded?: boolean }) {
  return { name: 'r', checkId, hasFailures: outcome.hasFailures ?? false, hasErrors: false, isDegraded: outcome.isDegraded ?? false, responseTime: 10, runLocation: 'eu-west-1', checkRunId: null, stoppedAt: null };
}

describe.each(engines)('the state filter on $name', (engine) => {
  it('keeps the checks whose latest run is in the state, following a status another replica records, in every page read', async () => {
    const [a, b] = await twoReplicas(engine);
    const [failing, degraded, passing] = await insertChecks(a, ['failing', 'degraded', 'passing']);
    await insertChecks(a, ['never ran']);
    await a.checkStatuses.record('acc', finalResult(String(failing!.id), { hasFailures: true }));
    await a.checkStatuses.record('acc', finalResult(String(degraded!.id), { isDegraded: true }));
    await a.checkStatuses.record('acc', finalResult(String(passing!.id), {}));
    const names = async (state: 'passing' | 'failing' | 'degraded') => (await b.documents.page('checks', 'acc', { limit: 10, page: 1, state })).items.map((doc) => doc['name']);
    expect([await names('failing'), await names('degraded'), await names('passing')]).toEqual([['failing'], ['degraded'], ['passing']]);
    // A status moves without a write to the checks: the totals follow it.
    await a.checkStatuses.record('acc', finalResult(String(passing!.id), { hasFailures: true }));
    expect((await b.documents.pageText('checks', 'acc', { limit: 10, page: 1, state: 'failing' })).total).toBe(2);
    const spliced = await b.documents.splicedCheckPage('acc', { limit: 10, page: 1, state: 'failing' }, TAIL);
    expect((JSON.parse(spliced!.json.toString()) as Array<{ name: string }>).map((doc) => doc.name)).toEqual(['failing', 'passing']);
    expect(spliced!.total).toBe(2);
    // Another account's status of the same check id does not count.
    await a.checkStatuses.record('other', finalResult(String(degraded!.id), { hasFailures: true }));
    expect(await names('failing')).toEqual(['failing', 'passing']);
  });
});

describe.each(engines)('bad input to check pages on $name', (engine) => {
  it.each([
    ['a tail that does not close the object', (p: StoragePorts) => p.documents.splicedCheckPage('acc', { limit: 1, page: 1 }, ',"x":1'), 'tail must be text ending in "}", got ",\\"x\\":1"'],
    ['a page of 0', (p: StoragePorts) => p.documents.splicedCheckPage('acc', { limit: 1, page: 0 }, TAIL), 'page must be a whole number of at least 1, got 0'],
    ['an empty account', (p: StoragePorts) => p.documents.pageText('checks', '', { limit: 1, page: 1 }), 'accountId must be a string that is not empty, got ""'],
    ['a state filter on groups', (p: StoragePorts) => p.documents.pageText('check_groups', 'acc', { limit: 1, page: 1, state: 'failing' }), 'state filters checks only, not check_groups'],
    ['an unknown state', (p: StoragePorts) => p.documents.page('checks', 'acc', { limit: 1, page: 1, state: 'red' as 'failing' }), 'state must be one of passing, failing, degraded, got "red"'],
  ])('refuses %s', async (_, call, message) => {
    const [a] = await twoReplicas(engine);
    await expect(call(a)).rejects.toThrow(message);
  });
});
