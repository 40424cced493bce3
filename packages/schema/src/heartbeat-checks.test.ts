import { describe, expect, it } from 'vitest';
import { HeartbeatCheck, HeartbeatCheckCreate, HeartbeatCheckUpdate, heartbeatDurationMs } from './heartbeat-checks.js';
import { expectAccepted, expectRejected } from './test-support.js';

const heartbeat = { period: 30, periodUnit: 'seconds', grace: 0, graceUnit: 'seconds' };
const create = (extra: Record<string, unknown> = {}) => ({ name: 'nightly backup', heartbeat, ...extra });

describe('HeartbeatCheckCreate (POST /v1/checks/heartbeat)', () => {
  it('fills the shared defaults and the HEARTBEAT type', () => {
    const parsed = expectAccepted(HeartbeatCheckCreate, create());
    expect(parsed).toMatchObject({ checkType: 'HEARTBEAT', activated: true, muted: false, tags: [], heartbeat });
  });

  it('strips a sent pingToken: the service assigns it', () => {
    const parsed = expectAccepted(HeartbeatCheckCreate, create({ heartbeat: { ...heartbeat, pingToken: '00000000-0000-4000-8000-000000000000' } }));
    expect(parsed.heartbeat).toEqual(heartbeat);
  });

  it.each<[string, unknown]>([
    ['30 seconds, the shortest period', { ...heartbeat, period: 30, periodUnit: 'seconds' }],
    ['365 days, the longest period', { ...heartbeat, period: 365, periodUnit: 'days' }],
    ['a grace of 365 days', { ...heartbeat, grace: 365, graceUnit: 'days' }],
    ['a period of 1 minute', { ...heartbeat, period: 1, periodUnit: 'minutes' }],
  ])('accepts %s', (_name, value) => {
    expectAccepted(HeartbeatCheckCreate, create({ heartbeat: value }));
  });

  it.each<[string, unknown, string[], string]>([
    ['a missing heartbeat', { name: 'x' }, ['heartbeat'], '"heartbeat" is required'],
    ['a period of 29 seconds', create({ heartbeat: { ...heartbeat, period: 29 } }), ['heartbeat.period'], '"heartbeat.period" must be between 30 seconds and 365 days (got 29 seconds)'],
    ['a period of 366 days', create({ heartbeat: { ...heartbeat, period: 366, periodUnit: 'days' } }), ['heartbeat.period'], '"heartbeat.period" must be between 30 seconds and 365 days (got 366 days)'],
    ['a grace of 8785 hours', create({ heartbeat: { ...heartbeat, grace: 8785, graceUnit: 'hours' } }), ['heartbeat.grace'], '"heartbeat.grace" must be at most 365 days (got 8785 hours)'],
    ['a negative grace', create({ heartbeat: { ...heartbeat, grace: -1 } }), ['heartbeat.grace'], '"heartbeat.grace" must be greater than or equal to 0'],
    ['a period unit of weeks', create({ heartbeat: { ...heartbeat, periodUnit: 'weeks' } }), ['heartbeat.periodUnit'], '"heartbeat.periodUnit" must be one of [seconds, minutes, hours, days]'],
    ['another check type', create({ checkType: 'API' }), ['checkType'], '"checkType" must be [HEARTBEAT]'],
  ])('rejects %s', (_name, input, keys, message) => {
    expectRejected(HeartbeatCheckCreate, input, { keys, message });
  });

  it('has an Update that fills nothing', () => {
    expect(expectAccepted(HeartbeatCheckUpdate, { tags: ['a'] })).toEqual({ tags: ['a'] });
  });
});

describe('HeartbeatCheck (response)', () => {
  it('keeps the ping token the service assigned', () => {
    const parsed = expectAccepted(HeartbeatCheck, {
      ...create(),
      heartbeat: { ...heartbeat, pingToken: 'abc' },
      id: '1', checkType: 'HEARTBEAT', frequencyOffset: 1, created_at: '2026-01-01T00:00:00.000Z', updated_at: null,
      alertChannels: { email: [], webhook: [], slack: [], sms: [] },
    });
    expect(parsed.heartbeat.pingToken).toBe('abc');
  });
});

describe('heartbeatDurationMs', () => {
  it.each<[number, 'seconds' | 'minutes' | 'hours' | 'days', number]>([
    [30, 'seconds', 30_000],
    [2, 'minutes', 120_000],
    [1, 'hours', 3_600_000],
    [1, 'days', 86_400_000],
  ])('%i %s is %i ms', (value, unit, ms) => {
    expect(heartbeatDurationMs(value, unit)).toBe(ms);
  });
});
