/**
 * Status pages' rules on PostgreSQL, where two replicas' units run at the same time: two creates of
 * one url at once give one page and the API's 409, never the database's unique-index error.
 */
import { StatusPageCreate, StatusPageUpdate } from '@vigil/schema';
import { describe, expect, it } from 'vitest';
import { openPostgresPorts } from '../store/postgres/index.js';
import { useTestPostgres } from '../store/postgres/test-database.js';
import type { StatusPages } from '../store/status-page-ports.js';
import { createStatusPage, updateStatusPage } from './status-pages.js';

const postgres = useTestPostgres();

async function twoReplicas() {
  const connectionString = await postgres.freshDatabase();
  return [await openPostgresPorts({ connectionString }), await openPostgresPorts({ connectionString })] as const;
}

/** A create's body as the route has it, parsed by the API's schema. */
const create = (fields: { name: string; url: string }) => StatusPageCreate.parse({ ...fields, cards: [] });

const takenUrl = 'url "same" is already taken by another status page';

describe('status pages on PostgreSQL, from two replicas at once', () => {
  it('creates one page of two creates of one url at once, and refuses the other with the API conflict', async () => {
    const [a, b] = await twoReplicas();
    try {
      for (let round = 0; round < 5; round++) {
        const url = `same-${round}`;
        const outcomes = await Promise.allSettled([
          a.transaction((tx) => createStatusPage(tx, 'acme', create({ name: 'One', url }))),
          b.transaction((tx) => createStatusPage(tx, 'globex', create({ name: 'Two', url }))),
        ]);
        expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1);
        const refused = outcomes.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
        expect(refused?.reason).toMatchObject({ name: 'DomainError', refusal: 'conflict', message: takenUrl.replace('"same"', `"${url}"`) });
        const holders = [...(await a.statusPages.pageAfter('acme', 0, 10)), ...(await a.statusPages.pageAfter('globex', 0, 10))];
        expect(holders.filter((row) => row.page['url'] === url)).toHaveLength(1);
      }
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it("refuses a save that lost the race on the database's index with the same conflict as one refused by the look-up", async () => {
    const [a, b] = await twoReplicas();
    try {
      const mine = await a.transaction((tx) => createStatusPage(tx, 'acme', create({ name: 'Mine', url: 'mine' })));
      let releaseFirst!: () => void;
      const firstMayCommit = new Promise<void>((resolve) => (releaseFirst = resolve));
      let firstSaved!: () => void;
      const firstHasSaved = new Promise<void>((resolve) => (firstSaved = resolve));
      const first = b.transaction(async (tx) => {
        await createStatusPage(tx, 'globex', create({ name: 'Theirs', url: 'same' }));
        firstSaved();
        await firstMayCommit;
      });
      await firstHasSaved;
      // The other unit's page is not committed: the look-up finds the url free, and the save, sent
      // before that unit may commit, waits on the index until it has.
      const second = a.transaction((tx) => {
        const statusPages = new Proxy(tx.statusPages, {
          get: (target, name: keyof StatusPages) =>
            name === 'save'
              ? (...args: Parameters<StatusPages['save']>) => {
                  const saving = target.save(...args);
                  releaseFirst();
                  return saving;
                }
              : target[name].bind(target),
        });
        return updateStatusPage({ documents: tx.documents, statusPages }, 'acme', mine.id, StatusPageUpdate.parse({ name: 'Mine', url: 'same', cards: [] }));
      });
      // It may be refused before the first unit's commit is awaited below: handled now, asserted there.
      second.catch(() => undefined);
      await first;
      await expect(second).rejects.toMatchObject({ name: 'DomainError', refusal: 'conflict', message: takenUrl });
      expect((await a.statusPages.get('acme', mine.id))?.['url']).toBe('mine');
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
});
