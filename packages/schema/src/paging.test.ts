import { describe, expect, it } from 'vitest';
import { CheckResultsQuery } from './check-results.js';
import { ErrorGroupPatch } from './error-groups.js';
import { HeartbeatEventsQuery } from './heartbeats.js';
import { AutoAssignQuery, NumericIdParams, PageQuery } from './paging.js';
import { expectAccepted, expectRejected } from './test-support.js';

describe('PageQuery', () => {
  it('defaults to limit 10, page 1 and reads numbers from query strings', () => {
    expect(PageQuery.parse({})).toEqual({ limit: 10, page: 1 });
    expect(PageQuery.parse({ limit: '1', page: '7' })).toEqual({ limit: 1, page: 7 });
    expect(PageQuery.parse({ limit: '100' }).limit).toBe(100);
  });

  it.each<[string, unknown, string[], string]>([
    ['limit 0', { limit: '0' }, ['limit'], '"limit" must be greater than or equal to 1'],
    ['limit 101', { limit: '101' }, ['limit'], '"limit" must be less than or equal to 100'],
    ['page 0', { page: '0' }, ['page'], '"page" must be greater than or equal to 1'],
    ['a non-numeric limit', { limit: 'ten' }, ['limit'], '"limit" must be a number'],
    ['a fractional page', { page: '1.5' }, ['page'], '"page" must be an integer'],
  ])('rejects %s', (_name, input, keys, message) => {
    expectRejected(PageQuery, input, { keys, message });
  });
});

describe('HeartbeatEventsQuery', () => {
  it('allows at most 10 per page', () => {
    expect(expectAccepted(HeartbeatEventsQuery, { limit: '10' }).limit).toBe(10);
    expectRejected(HeartbeatEventsQuery, { limit: '11' }, { keys: ['limit'], message: '"limit" must be less than or equal to 10' });
  });

  it('takes ISO date-times for the window', () => {
    expectAccepted(HeartbeatEventsQuery, { startTime: '2025-01-01T00:00:00Z', endTime: '2025-01-02T00:00:00.000Z' });
    expectRejected(HeartbeatEventsQuery, { startTime: '1700000000' }, { keys: ['startTime'], message: '"startTime" must be a valid ISO 8601 date-time' });
  });
});

describe('CheckResultsQuery', () => {
  it('defaults resultType to FINAL and parses filters from strings', () => {
    expect(CheckResultsQuery.parse({ hasFailures: 'false', from: '1700000000', location: 'eu-west-1' })).toEqual({
      limit: 10,
      page: 1,
      resultType: 'FINAL',
      hasFailures: false,
      from: 1700000000,
      location: 'eu-west-1',
    });
  });

  it.each<[string, unknown, string[], string]>([
    ['limit 101', { limit: '101' }, ['limit'], '"limit" must be less than or equal to 100'],
    ['an unknown resultType', { resultType: 'LAST' }, ['resultType'], '"resultType" must be one of [FINAL, ATTEMPT, ALL]'],
    ['a non-boolean hasFailures', { hasFailures: 'yes' }, ['hasFailures'], '"hasFailures" must be a boolean'],
  ])('rejects %s', (_name, input, keys, message) => {
    expectRejected(CheckResultsQuery, input, { keys, message });
  });
});

describe('AutoAssignQuery', () => {
  it('defaults to true and reads "false"', () => {
    expect(AutoAssignQuery.parse({})).toEqual({ autoAssignAlerts: true });
    expect(AutoAssignQuery.parse({ autoAssignAlerts: 'false' })).toEqual({ autoAssignAlerts: false });
    expect(AutoAssignQuery.parse({ autoAssignAlerts: false })).toEqual({ autoAssignAlerts: false });
  });
});

describe('NumericIdParams', () => {
  it('turns a path id into a number and rejects non-numbers', () => {
    expect(NumericIdParams.parse({ id: '42' })).toEqual({ id: 42 });
    expectRejected(NumericIdParams, { id: 'abc' }, { keys: ['id'], message: '"id" must be a number' });
  });
});

describe('ErrorGroupPatch', () => {
  it('needs at least one archiving flag', () => {
    expect(expectAccepted(ErrorGroupPatch, { archivedUntilNextEvent: true })).toEqual({ archivedUntilNextEvent: true });
    expectRejected(ErrorGroupPatch, {}, { keys: [''], message: '"value" must contain at least one of [archiveForEver, archivedUntilNextEvent]' });
  });
});
