import { MaintenanceWindowCreate } from '@vigil/schema';
import { describe, expect, it } from 'vitest';
import { load, markerLocation, specOf } from './__fixtures__/load.js';
import { MaintenanceWindow, type MaintenanceWindowProps } from './maintenance-window.js';
import type { Diagnostic } from './types.js';

const base: MaintenanceWindowProps = {
  name: 'Nightly deploy',
  startsAt: '2025-03-01T22:00:00.000Z',
  endsAt: '2025-03-01T23:00:00.000Z',
  repeatUnit: 'DAY',
};

type Expected = Pick<Diagnostic, 'severity' | 'path' | 'message' | 'hint'>;
const error = (path: string, message: string, hint?: string): Expected => ({ severity: 'error', path, message, ...(hint ? { hint } : {}) });
const ENDS_AT_HINT = 'A maintenance window ends after it starts; use repeatUnit and repeatInterval for recurring windows.';

const rules: Array<[string, Partial<MaintenanceWindowProps>, Expected[]]> = [
  ['accepts Date objects', { startsAt: new Date('2025-03-01T22:00:00Z'), endsAt: new Date('2025-03-01T22:00:01Z') }, []],
  ['accepts calendar dates', { startsAt: '2025-03-01', endsAt: '2025-03-02', repeatEndsAt: '2025-12-31' }, []],
  ['accepts repeatInterval 1', { repeatInterval: 1 }, []],
  ['rejects a window that ends when it starts', { endsAt: '2025-03-01T22:00:00.000Z' }, [error('endsAt', '"endsAt" must be after "startsAt"', ENDS_AT_HINT)]],
  ['rejects a window that ends before it starts', { startsAt: new Date('2025-03-02T00:00:00Z') }, [error('endsAt', '"endsAt" must be after "startsAt"', ENDS_AT_HINT)]],
  [
    'rejects repeatInterval 0',
    { repeatInterval: 0 },
    [error('repeatInterval', '"repeatInterval" must be greater than or equal to 1', 'repeatInterval counts repeatUnits between occurrences; between 1 and 365.')],
  ],
  [
    'rejects a timezone that is an offset',
    { timezone: '+05:00' },
    [error('timezone', '"timezone" must be a named IANA time zone such as "Europe/Amsterdam" or "UTC", got "+05:00"', 'Name a zone of the IANA database, e.g. "Europe/Amsterdam" or "America/New_York"; a fixed offset such as "+05:00" cannot follow daylight saving time.')],
  ],
  ['rejects a name over 200 characters', { name: 'n'.repeat(201) }, [error('name', '"name" length must be less than or equal to 200 characters long')]],
  ['rejects an unknown repeatUnit', { repeatUnit: 'YEAR' as never }, [error('repeatUnit', '"repeatUnit" must be one of [DAY, WEEK, MONTH]')]],
  ['rejects a date that is not ISO 8601', { startsAt: 'next monday' }, [error('startsAt', '"startsAt" must be a valid ISO 8601 date')]],
  ['rejects an invalid Date', { endsAt: new Date('nope') }, [error('endsAt', '"endsAt" must be a valid ISO 8601 date', ENDS_AT_HINT)]],
  [
    'reports the order together with every other problem',
    { repeatUnit: 'YEAR' as never, endsAt: '2025-01-01' },
    [error('endsAt', '"endsAt" must be after "startsAt"', ENDS_AT_HINT), error('repeatUnit', '"repeatUnit" must be one of [DAY, WEEK, MONTH]')],
  ],
];

describe('MaintenanceWindow rules', () => {
  it.each(rules)('%s', async (_name, props, expected) => {
    const project = await load(() => {
      new MaintenanceWindow('nightly', { ...base, ...props }); // @at:rule
    });
    const source = markerLocation(import.meta.url, 'rule');
    expect(project.validate()).toEqual(expected.map((e) => ({ ...e, address: 'maintenance-window.nightly', source })));
  });
});

describe('MaintenanceWindow synth', () => {
  it('sends the create body with documented defaults and ISO dates', async () => {
    const project = await load(() => {
      new MaintenanceWindow('nightly', { ...base, startsAt: new Date('2025-03-01T22:00:00Z'), tags: ['api', 'Checkout flow'] });
    });
    const { payload } = specOf(project, 'maintenance-window.nightly');
    expect(payload).toEqual({
      name: 'Nightly deploy',
      tags: ['api', 'Checkout flow'],
      startsAt: '2025-03-01T22:00:00.000Z',
      endsAt: '2025-03-01T23:00:00.000Z',
      repeatUnit: 'DAY',
      repeatInterval: null,
      repeatEndsAt: null,
      timezone: null,
      pauseAllChecks: false,
      silenceAllAlerts: false,
      silenceAlertsTags: [],
      description: null,
    });
    expect(MaintenanceWindowCreate.parse(payload)).toEqual(payload);
  });

  it('sends timezone, pauseAllChecks and silenceAllAlerts', async () => {
    const project = await load(() => {
      new MaintenanceWindow('freeze', { ...base, timezone: 'America/New_York', pauseAllChecks: true, silenceAllAlerts: true });
    });
    expect(specOf(project, 'maintenance-window.freeze').payload).toMatchObject({ timezone: 'America/New_York', pauseAllChecks: true, silenceAllAlerts: true });
  });

  it('keeps the repetition', async () => {
    const project = await load(() => {
      new MaintenanceWindow('weekly', { ...base, repeatUnit: 'WEEK', repeatInterval: 2, repeatEndsAt: '2025-12-31' });
    });
    expect(specOf(project, 'maintenance-window.weekly').payload).toMatchObject({ repeatUnit: 'WEEK', repeatInterval: 2, repeatEndsAt: '2025-12-31' });
  });
});
