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
    [error('repeatInterval', '"repeatInterval" must be greater than or equal to 1', 'repeatInterval counts repeatUnits between occurrences; at least 1.')],
  ],
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
    });
    expect(MaintenanceWindowCreate.parse(payload)).toEqual(payload);
  });

  it('keeps the repetition', async () => {
    const project = await load(() => {
      new MaintenanceWindow('weekly', { ...base, repeatUnit: 'WEEK', repeatInterval: 2, repeatEndsAt: '2025-12-31' });
    });
    expect(specOf(project, 'maintenance-window.weekly').payload).toMatchObject({ repeatUnit: 'WEEK', repeatInterval: 2, repeatEndsAt: '2025-12-31' });
  });
});
