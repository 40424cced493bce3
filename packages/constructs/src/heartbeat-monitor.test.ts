import { describe, expect, it } from 'vitest';
import { load, markerLocation, specOf } from './__fixtures__/load.js';
import { Frequency } from './frequency.js';
import { HeartbeatCheck, HeartbeatMonitor, type HeartbeatMonitorProps } from './heartbeat-monitor.js';
import { RetryStrategyBuilder } from './retry-strategy.js';
import type { Diagnostic } from './types.js';

const base: HeartbeatMonitorProps = { name: 'Nightly backup', period: 1, periodUnit: 'days', grace: 30, graceUnit: 'minutes' };

type Expected = Pick<Diagnostic, 'severity' | 'path' | 'message' | 'hint'>;
const error = (path: string, message: string, hint?: string): Expected => ({ severity: 'error', path, message, ...(hint ? { hint } : {}) });
const warning = (path: string, message: string, hint: string): Expected => ({ severity: 'warning', path, message, hint });
const NO_EFFECT_HINT = 'A heartbeat runs nothing: the monitored job pings it. Remove the prop.';

const rules: Array<[string, Partial<HeartbeatMonitorProps>, Expected[]]> = [
  ['accepts the shortest period, 30 seconds, without grace', { period: 30, periodUnit: 'seconds', grace: 0, graceUnit: 'seconds' }, []],
  ['accepts the longest period and grace, 365 days', { period: 365, periodUnit: 'days', grace: 365, graceUnit: 'days' }, []],
  ['rejects a period under 30 seconds', { period: 29, periodUnit: 'seconds' }, [error('period', '"period" must be between 30 seconds and 365 days (got 29 seconds)')]],
  ['rejects a period over 365 days', { period: 8761, periodUnit: 'hours' }, [error('period', '"period" must be between 30 seconds and 365 days (got 8761 hours)')]],
  ['rejects a grace over 365 days', { grace: 366, graceUnit: 'days' }, [error('grace', '"grace" must be at most 365 days (got 366 days)')]],
  ['rejects a missing period', { period: undefined as unknown as number }, [error('period', '"period" is required')]],
  ['rejects an unknown unit', { graceUnit: 'weeks' as 'days' }, [error('graceUnit', '"graceUnit" must be one of [seconds, minutes, hours, days]')]],
  [
    'rejects doubleCheck, as Checkly monitors do',
    { doubleCheck: true } as Partial<HeartbeatMonitorProps>,
    [error('doubleCheck', '"doubleCheck" is not supported by HeartbeatMonitor', 'Remove it: a heartbeat runs nothing, so there is nothing to retry.')],
  ],
  [
    'warns that scheduling props have no effect',
    { frequency: Frequency.EVERY_5M, locations: ['eu-west-1'], retryStrategy: RetryStrategyBuilder.noRetries() },
    [
      warning('frequency', '"frequency" has no effect on a HeartbeatMonitor', NO_EFFECT_HINT),
      warning('locations', '"locations" has no effect on a HeartbeatMonitor', NO_EFFECT_HINT),
      warning('retryStrategy', '"retryStrategy" has no effect on a HeartbeatMonitor', NO_EFFECT_HINT),
    ],
  ],
];

describe('HeartbeatMonitor rules', () => {
  it.each(rules)('%s', async (_name, props, expected) => {
    const project = await load(() => {
      new HeartbeatMonitor('backup', { ...base, ...props }); // @at:rule
    });
    const source = markerLocation(import.meta.url, 'rule');
    expect(project.validate()).toEqual(expected.map((e) => ({ ...e, address: 'heartbeat-monitor.backup', source })));
  });
});

describe('HeartbeatMonitor payload', () => {
  it('synthesises the create body of POST /v1/checks/heartbeat, without a ping token', async () => {
    const project = await load(() => {
      new HeartbeatMonitor('backup', { ...base, tags: ['jobs'] });
    });
    const { payload } = specOf(project, 'heartbeat-monitor.backup');
    expect(payload).toMatchObject({ checkType: 'HEARTBEAT', name: 'Nightly backup', tags: ['jobs'], heartbeat: { period: 1, periodUnit: 'days', grace: 30, graceUnit: 'minutes' } });
    expect(payload.heartbeat).not.toHaveProperty('pingToken');
  });

  it("sends none of the config's scheduling defaults", async () => {
    const project = await load(
      () => {
        new HeartbeatMonitor('backup', base);
      },
      { config: { projectName: 'p', logicalId: 'p', checks: { frequency: Frequency.EVERY_10S, locations: ['eu-west-1'], runtimeId: '2025.04' } } },
    );
    expect(project.validate()).toEqual([]);
    const { payload } = specOf(project, 'heartbeat-monitor.backup');
    // The service's own defaults (frequency 10, no locations), not the config's.
    expect(payload).toMatchObject({ frequency: 10, locations: [] });
    for (const key of ['frequencyOffset', 'runtimeId', 'retryStrategy']) expect(payload, key).not.toHaveProperty(key);
  });

  it("keeps Checkly's older name HeartbeatCheck", async () => {
    const project = await load(() => {
      new HeartbeatCheck('backup', base);
    });
    expect(specOf(project, 'heartbeat-monitor.backup').payload).toMatchObject({ checkType: 'HEARTBEAT' });
  });
});
