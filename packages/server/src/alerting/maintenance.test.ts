import { describe, expect, it } from 'vitest';
import { isInMaintenance, type MaintenanceWindowLike } from './maintenance.js';

const once: MaintenanceWindowLike = { startsAt: '2026-03-01T10:00:00.000Z', endsAt: '2026-03-01T12:00:00.000Z', repeatUnit: 'DAY', tags: ['api'] };
const daily: MaintenanceWindowLike = { ...once, repeatInterval: 1 };
const everyOtherDay: MaintenanceWindowLike = { ...once, repeatInterval: 2 };
const weekly: MaintenanceWindowLike = { ...once, repeatUnit: 'WEEK', repeatInterval: 1, repeatEndsAt: '2026-03-20T00:00:00.000Z' };
const monthlyOn31st: MaintenanceWindowLike = { startsAt: '2026-01-31T22:00:00.000Z', endsAt: '2026-02-01T02:00:00.000Z', repeatUnit: 'MONTH', repeatInterval: 1, tags: ['db'] };

describe('isInMaintenance: a window covers a check through a shared tag while one of its occurrences runs', () => {
  it.each([
    ['before the first occurrence', [once], ['api'], '2026-03-01T09:59:59.999Z', false],
    ['at its start (inclusive)', [once], ['api'], '2026-03-01T10:00:00.000Z', true],
    ['at its end (exclusive)', [once], ['api'], '2026-03-01T12:00:00.000Z', false],
    ['a window without repeatInterval happens once', [once], ['api'], '2026-03-02T11:00:00.000Z', false],
    ['no shared tag', [once], ['web'], '2026-03-01T11:00:00.000Z', false],
    ['a check without tags', [once], [], '2026-03-01T11:00:00.000Z', false],
    ['a window without tags covers nothing', [{ ...once, tags: [] }], ['api'], '2026-03-01T11:00:00.000Z', false],
    ['any shared tag (of the check or its group)', [once], ['web', 'api'], '2026-03-01T11:00:00.000Z', true],
    ['daily, ten days later', [daily], ['api'], '2026-03-11T11:30:00.000Z', true],
    ['daily, between occurrences', [daily], ['api'], '2026-03-11T13:00:00.000Z', false],
    ['every other day, on an off day', [everyOtherDay], ['api'], '2026-03-02T11:00:00.000Z', false],
    ['every other day, on an on day', [everyOtherDay], ['api'], '2026-03-03T11:00:00.000Z', true],
    ['weekly, a week later', [weekly], ['api'], '2026-03-08T10:30:00.000Z', true],
    ['weekly, six days later', [weekly], ['api'], '2026-03-07T10:30:00.000Z', false],
    ['weekly, an occurrence after repeatEndsAt', [weekly], ['api'], '2026-03-22T10:30:00.000Z', false],
    ['monthly on the 31st takes the last day of February', [monthlyOn31st], ['db'], '2026-02-28T23:00:00.000Z', true],
    ['monthly, running past midnight into the next month', [monthlyOn31st], ['db'], '2026-04-01T01:00:00.000Z', true],
    ['monthly, the day after an occurrence', [monthlyOn31st], ['db'], '2026-03-01T03:00:00.000Z', false],
    ['any of several windows', [weekly, monthlyOn31st], ['db'], '2026-03-31T23:00:00.000Z', true],
  ] as const)('%s → %s', (_name, windows, tags, now, expected) => {
    expect(isInMaintenance(windows, tags, Date.parse(now))).toBe(expected);
  });
});
