import { describe, expect, it } from 'vitest';
import { MaintenanceWindowCreate, MaintenanceWindowUpdate, maintenanceWindowOrderProblem } from './maintenance-windows.js';
import { expectAccepted, expectRejected } from './test-support.js';

const window = (extra: Record<string, unknown> = {}) => ({
  name: 'deploys',
  startsAt: '2025-01-01T10:00:00.000Z',
  endsAt: '2025-01-01T11:00:00.000Z',
  repeatUnit: 'DAY',
  ...extra,
});

describe('MaintenanceWindowCreate', () => {
  it('defaults tags to [], the repetition fields and timezone to null, and silences or pauses nothing', () => {
    expect(expectAccepted(MaintenanceWindowCreate, window())).toEqual({
      ...window(),
      tags: [],
      repeatInterval: null,
      repeatEndsAt: null,
      timezone: null,
      pauseAllChecks: false,
      silenceAllAlerts: false,
      silenceAlertsTags: [],
      description: null,
    });
  });

  it('keeps pauseAllChecks, silenceAllAlerts and timezone (the real document)', () => {
    expect(expectAccepted(MaintenanceWindowCreate, window({ pauseAllChecks: true, silenceAllAlerts: true, timezone: 'America/New_York' })))
      .toMatchObject({ pauseAllChecks: true, silenceAllAlerts: true, timezone: 'America/New_York' });
  });

  it.each([
    ['repeatInterval 1', window({ repeatInterval: 1 })],
    ['calendar dates', window({ startsAt: '2025-01-01', endsAt: '2025-01-02', repeatEndsAt: '2025-12-31' })],
    ['weekly and monthly repeats', window({ repeatUnit: 'WEEK' })],
    ['a zone offset', window({ endsAt: '2025-01-01T13:00:00+02:00' })],
    ['timezone UTC', window({ timezone: 'UTC' })],
    ['timezone null', window({ timezone: null })],
    ['a name of 200 characters', window({ name: 'n'.repeat(200) })],
    ['repeatInterval 365', window({ repeatInterval: 365 })],
  ])('accepts %s', (_name, input) => {
    expectAccepted(MaintenanceWindowCreate, input);
  });

  it.each<[string, unknown, string[], string]>([
    ['repeatInterval 0', window({ repeatInterval: 0 }), ['repeatInterval'], '"repeatInterval" must be greater than or equal to 1'],
    ['endsAt equal to startsAt', window({ endsAt: '2025-01-01T10:00:00.000Z' }), ['endsAt'], '"endsAt" must be after "startsAt"'],
    ['endsAt before startsAt', window({ endsAt: '2024-12-31' }), ['endsAt'], '"endsAt" must be after "startsAt"'],
    ['a missing repeatUnit', { name: 'x', startsAt: '2025-01-01', endsAt: '2025-01-02' }, ['repeatUnit'], '"repeatUnit" is required'],
    ['an unknown repeatUnit', window({ repeatUnit: 'YEAR' }), ['repeatUnit'], '"repeatUnit" must be one of [DAY, WEEK, MONTH]'],
    ['a date that is not ISO 8601', window({ startsAt: 'tomorrow' }), ['startsAt'], '"startsAt" must be a valid ISO 8601 date'],
    ['a missing name', { startsAt: '2025-01-01', endsAt: '2025-01-02', repeatUnit: 'DAY' }, ['name'], '"name" is required'],
    ['a name over 200 characters', window({ name: 'n'.repeat(201) }), ['name'], '"name" length must be less than or equal to 200 characters long'],
    ['repeatInterval 366', window({ repeatInterval: 366 }), ['repeatInterval'], '"repeatInterval" must be less than or equal to 365'],
    ['a UTC offset as timezone', window({ timezone: '+05:00' }), ['timezone'], '"timezone" must be a named IANA time zone such as "Europe/Amsterdam" or "UTC", got "+05:00"'],
    ['an unknown timezone', window({ timezone: 'Mars/Olympus' }), ['timezone'], '"timezone" must be a named IANA time zone such as "Europe/Amsterdam" or "UTC", got "Mars/Olympus"'],
    ['a pauseAllChecks that is not a boolean', window({ pauseAllChecks: 'yes' }), ['pauseAllChecks'], '"pauseAllChecks" must be a boolean'],
  ])('rejects %s', (_name, input, keys, message) => {
    expectRejected(MaintenanceWindowCreate, input, { keys, message });
  });
});

describe('MaintenanceWindowUpdate', () => {
  it('fills nothing and checks the order only when both ends are sent', () => {
    expect(expectAccepted(MaintenanceWindowUpdate, { endsAt: '2020-01-01' })).toEqual({ endsAt: '2020-01-01' });
    expectRejected(MaintenanceWindowUpdate, { startsAt: '2025-01-02', endsAt: '2025-01-01' }, { keys: ['endsAt'], message: '"endsAt" must be after "startsAt"' });
  });

  it('exposes the order rule for the server to check a merged record', () => {
    expect(maintenanceWindowOrderProblem('2025-01-02', '2025-01-01')).toBe('"endsAt" must be after "startsAt"');
    expect(maintenanceWindowOrderProblem('2025-01-01', '2025-01-02')).toBeUndefined();
  });
});

describe('window order alongside other problems', () => {
  it('reports endsAt before startsAt together with a missing name', () => {
    expectRejected(MaintenanceWindowCreate, { startsAt: '2025-01-02', endsAt: '2025-01-01', repeatUnit: 'DAY' }, {
      keys: ['name', 'endsAt'],
      message: '"name" is required. "endsAt" must be after "startsAt"',
    });
  });
});
