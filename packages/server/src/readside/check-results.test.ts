import { describe, expect, it } from 'vitest';
import { selectCheckResults, type CheckResultFilter, type TypedResult } from './check-results.js';
import type { ResultFacts } from './result-facts.js';

const base = Date.parse('2026-03-18T00:00:00.000Z');
const typed = (id: string, minute: number, overrides: Partial<ResultFacts> = {}): TypedResult => ({
  checkType: 'API',
  facts: {
    id,
    checkId: 'c1',
    createdAt: base + minute * 60_000,
    resultType: 'FINAL',
    runLocation: 'eu-west-1',
    hasFailures: false,
    attempts: 0,
    responseTime: 1,
    statusCode: 200,
    timingPhases: {},
    ...overrides,
  },
});

const results = [
  typed('r3', 20, { runLocation: 'us-east-1' }),
  typed('r1', 0),
  typed('r2', 10, { hasFailures: true }),
  typed('a1', 9, { resultType: 'ATTEMPT', hasFailures: true }),
  typed('r0', 0),
  typed('late', 60),
];
const window = { from: base, to: base + 60 * 60_000 };
const ids = (filter: Partial<CheckResultFilter>, paging = { page: 1, limit: 100 }) =>
  selectCheckResults(results, { window, ...filter }, paging).items.map((r) => r.facts.id);

describe('check-result selection', () => {
  it('returns FINAL results in the window, oldest first, ties by id, excluding the window end', () => {
    expect(ids({})).toEqual(['r0', 'r1', 'r2', 'r3']);
  });
  it.each([
    [{ resultType: 'ATTEMPT' }, ['a1']],
    [{ resultType: 'ALL' }, ['r0', 'r1', 'a1', 'r2', 'r3']],
    [{ location: 'us-east-1' }, ['r3']],
    [{ hasFailures: true }, ['r2']],
    [{ hasFailures: false }, ['r0', 'r1', 'r3']],
    [{ checkType: 'API' }, ['r0', 'r1', 'r2', 'r3']],
    [{ checkType: 'TCP' }, []],
  ] as const)('filter %j keeps %j', (filter, expected) => {
    expect(ids(filter)).toEqual(expected);
  });
  it('pages without skipping or repeating', () => {
    const pages = [1, 2, 3].map((page) => ids({}, { page, limit: 2 }));
    expect(pages).toEqual([['r0', 'r1'], ['r2', 'r3'], []]);
    expect(selectCheckResults(results, { window }, { page: 1, limit: 2 }).total).toBe(4);
  });
});
