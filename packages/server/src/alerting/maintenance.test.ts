import { describe, expect, it } from 'vitest';
import { coversCheck, isInMaintenance, isPaused, occurrencesBetween, type MaintenanceWindowLike } from './maintenance.js';

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

describe('timezone: repeats follow the local wall-clock time of the window\'s IANA zone', () => {
  // 09:00–10:00 in Amsterdam, daily from a winter day (CET, UTC+1): 08:00Z until the clocks go
  // forward on 2026-03-29, 07:00Z after.
  const amsterdam: MaintenanceWindowLike = { startsAt: '2026-03-20T08:00:00.000Z', endsAt: '2026-03-20T09:00:00.000Z', repeatUnit: 'DAY', repeatInterval: 1, tags: ['api'], timezone: 'Europe/Amsterdam' };
  const utc: MaintenanceWindowLike = { ...amsterdam, timezone: null };
  it.each([
    ['before the change, at 09:30 local', amsterdam, '2026-03-28T08:30:00.000Z', true],
    ['after the change, 09:30 local is 07:30Z', amsterdam, '2026-04-01T07:30:00.000Z', true],
    ['after the change, 10:30 local is outside', amsterdam, '2026-04-01T08:30:00.000Z', false],
    ['without a zone the window stays at 08:00Z', utc, '2026-04-01T08:30:00.000Z', true],
    ['without a zone, 07:30Z is outside', utc, '2026-04-01T07:30:00.000Z', false],
    // Back to CET on 2026-10-25: 09:30 local is 08:30Z again.
    ['after the clocks go back', amsterdam, '2026-10-26T08:30:00.000Z', true],
    ['after the clocks go back, 07:30Z is 08:30 local', amsterdam, '2026-10-26T07:30:00.000Z', false],
  ] as const)('%s → %s', (_name, window, now, expected) => {
    expect(isInMaintenance([window], ['api'], Date.parse(now))).toBe(expected);
  });

  it('ends at the local wall-clock end on the day of a change (a 02:00–04:00 window lasts an hour less)', () => {
    const night: MaintenanceWindowLike = { startsAt: '2026-03-27T01:00:00.000Z', endsAt: '2026-03-27T03:00:00.000Z', repeatUnit: 'DAY', repeatInterval: 1, tags: ['api'], timezone: 'Europe/Amsterdam' };
    // 2026-03-29: 02:00 local does not exist; the occurrence runs 03:00–04:00 CEST = 01:00Z–02:00Z.
    expect(isInMaintenance([night], ['api'], Date.parse('2026-03-29T01:30:00.000Z'))).toBe(true);
    expect(isInMaintenance([night], ['api'], Date.parse('2026-03-29T02:30:00.000Z'))).toBe(false);
  });

  it('lets occurrences start up to and including repeatEndsAt, a calendar date in the zone', () => {
    // 23:30–23:45 in New York (EST, UTC−5): 04:30Z the next UTC day.
    const late: MaintenanceWindowLike = { startsAt: '2026-01-02T04:30:00.000Z', endsAt: '2026-01-02T04:45:00.000Z', repeatUnit: 'DAY', repeatInterval: 1, repeatEndsAt: '2026-01-05', tags: ['api'], timezone: 'America/New_York' };
    expect(isInMaintenance([late], ['api'], Date.parse('2026-01-06T04:40:00.000Z'))).toBe(true);
    expect(isInMaintenance([late], ['api'], Date.parse('2026-01-07T04:40:00.000Z'))).toBe(false);
  });
});

describe('silenceAllAlerts, silenceAlertsTags and pauseAllChecks', () => {
  const base: MaintenanceWindowLike = { startsAt: '2026-03-01T10:00:00.000Z', endsAt: '2026-03-01T12:00:00.000Z', repeatUnit: 'DAY', tags: ['api'] };
  const during = Date.parse('2026-03-01T11:00:00.000Z');
  const after = Date.parse('2026-03-01T12:30:00.000Z');

  it('silenceAllAlerts silences every check of the account, tagged or not, during the window only', () => {
    const window = { ...base, tags: [], silenceAllAlerts: true };
    expect(isInMaintenance([window], ['web'], during)).toBe(true);
    expect(isInMaintenance([window], [], during)).toBe(true);
    expect(isInMaintenance([window], ['web'], after)).toBe(false);
  });

  it('silenceAlertsTags silences the checks with those tags too', () => {
    const window = { ...base, silenceAlertsTags: ['web'] };
    expect(isInMaintenance([window], ['web'], during)).toBe(true);
    expect(isInMaintenance([window], ['db'], during)).toBe(false);
  });

  it('pauseAllChecks pauses the checks sharing a tag; an untagged window pauses every check', () => {
    expect(isPaused([{ ...base, pauseAllChecks: true }], ['api'], during)).toBe(true);
    expect(isPaused([{ ...base, pauseAllChecks: true }], ['web'], during)).toBe(false);
    expect(isPaused([{ ...base, pauseAllChecks: true }], ['api'], after)).toBe(false);
    expect(isPaused([{ ...base, tags: [], pauseAllChecks: true }], [], during)).toBe(true);
    expect(isPaused([base], ['api'], during)).toBe(false);
  });
});

describe('occurrencesBetween and coversCheck (what a status page shows as maintenance)', () => {
  const nightly = { startsAt: '2026-03-01T02:00:00.000Z', endsAt: '2026-03-01T03:00:00.000Z', repeatUnit: 'DAY', repeatInterval: 1, repeatEndsAt: '2026-03-04', tags: ['shop'] };

  it('lists the occurrences overlapping a range, up to the last start day', () => {
    const found = occurrencesBetween(nightly, Date.parse('2026-03-02T02:30:00Z'), Date.parse('2026-03-10T00:00:00Z'));
    expect(found.map((each) => new Date(each.from).toISOString())).toEqual(['2026-03-02T02:00:00.000Z', '2026-03-03T02:00:00.000Z', '2026-03-04T02:00:00.000Z']);
  });

  it('gives a one-off window once, and nothing for a range before it', () => {
    const once = { startsAt: '2026-03-01T02:00:00Z', endsAt: '2026-03-01T03:00:00Z' };
    expect(occurrencesBetween(once, 0, Date.parse('2026-03-05T00:00:00Z'))).toEqual([{ from: Date.parse('2026-03-01T02:00:00Z'), to: Date.parse('2026-03-01T03:00:00Z') }]);
    expect(occurrencesBetween(once, 0, Date.parse('2026-03-01T02:00:00Z'))).toEqual([]);
  });

  it('covers a check by shared tags or pauseAllChecks without tags; silencing alerts is not maintenance', () => {
    expect(coversCheck(nightly, ['shop'])).toBe(true);
    expect(coversCheck(nightly, ['search'])).toBe(false);
    expect(coversCheck({ ...nightly, tags: [], pauseAllChecks: true }, ['search'])).toBe(true);
    expect(coversCheck({ ...nightly, tags: [], silenceAllAlerts: true, silenceAlertsTags: ['search'] }, ['search'])).toBe(false);
  });
});
