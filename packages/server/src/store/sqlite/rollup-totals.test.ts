import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { Store } from '../index.js';
import { sqlitePorts } from './index.js';
import { RollupTotalsTable } from './rollup-totals.js';

const stores: Store[] = [];
afterEach(() => stores.splice(0).forEach((store) => store.close()));

const DAY = Date.UTC(2026, 4, 2);
const DAY_MS = 86_400_000;

function result(checkId: string, at: number, location: string, failed: boolean) {
  return { id: randomUUID(), checkId, created_at: new Date(at).toISOString(), runLocation: location, hasFailures: failed, attempts: 0, responseTime: 12, resultType: 'FINAL' };
}

describe('daily rollup totals', () => {
  it("sums a day's locations per check, for the asked checks and days of one account only", async () => {
    const store = new Store(':memory:');
    stores.push(store);
    const { checkResults } = sqlitePorts(store);
    await checkResults.appendKept('a', result('c1', DAY + 1_000, 'eu-west-1', false));
    await checkResults.appendKept('a', result('c1', DAY + 2_000, 'us-east-1', true));
    await checkResults.appendKept('a', result('c1', DAY + DAY_MS + 1_000, 'eu-west-1', false));
    await checkResults.appendKept('a', result('c2', DAY + 3_000, 'eu-west-1', false));
    await checkResults.appendKept('a', result('c3', DAY + 3_000, 'eu-west-1', false));
    await checkResults.appendKept('a', { ...result('c1', DAY + 4_000, 'eu-west-1', false), resultType: 'ATTEMPT' });
    await checkResults.appendKept('b', result('c1', DAY + 4_000, 'eu-west-1', true));
    const totals = new RollupTotalsTable(store.db).dailyTotals('a', ['c1', 'c2', 'missing'], DAY, DAY + DAY_MS);
    expect([...totals.keys()].sort()).toEqual(['c1', 'c2']);
    expect(totals.get('c1')).toEqual([{ startMs: DAY, results: 2, failures: 1 }]);
    expect(totals.get('c2')).toEqual([{ startMs: DAY, results: 1, failures: 0 }]);
    expect(new RollupTotalsTable(store.db).dailyTotals('a', [], DAY, DAY + DAY_MS).size).toBe(0);
  });
});
