import { describe, expect, it } from 'vitest';
import { CheckGroup, CheckGroupCreate } from './check-groups.js';
import { ApiCheck, ApiCheckCreate, Check } from './checks.js';
import { ALERT_CHANNEL_SUBSCRIPTIONS_MAX, TAGS_MAX, frequencyOffsetProblem, maxFrequencyOffset, type FrequencyOffsetCheckKind } from './limits.js';
import { MaintenanceWindow } from './maintenance-windows.js';

describe('frequencyOffsetProblem', () => {
  const cases: Array<[string, number, number, FrequencyOffsetCheckKind, string | undefined]> = [
    ['rule 1: sub-minute accepts 10', 0, 10, 'API', undefined],
    ['rule 1: sub-minute accepts 30 on TCP', 0, 30, 'TCP', undefined],
    ['rule 1: sub-minute rejects 15', 0, 15, 'API', '"frequencyOffset" must be 10, 20 or 30 when frequency is 0'],
    ['rule 1: sub-minute rejects 1', 0, 1, 'TCP', '"frequencyOffset" must be 10, 20 or 30 when frequency is 0'],
    ['rule 1: URL monitors run sub-minute (real document)', 0, 20, 'URL', undefined],
    ['rule 1: DNS monitors run sub-minute (real document)', 0, 30, 'DNS', undefined],
    ['rule 1: only API, TCP, URL and DNS run sub-minute', 0, 10, 'MULTI_STEP', '"frequencyOffset" cannot be used with frequency 0: only API, TCP, URL and DNS checks run sub-minute'],
    ['rule 2: every 5 minutes allows 50', 5, 50, 'API', undefined],
    ['rule 2: every 5 minutes rejects 51', 5, 51, 'API', '"frequencyOffset" must be between 1 and 50 when frequency is 5'],
    ['rule 2: every 60 minutes allows 600', 60, 600, 'API', undefined],
    ['rule 2: every 60 minutes rejects 601', 60, 601, 'MULTI_STEP', '"frequencyOffset" must be between 1 and 600 when frequency is 60'],
    ['rule 3: every 720 minutes allows 12', 720, 12, 'API', undefined],
    ['rule 3: every 720 minutes rejects 13', 720, 13, 'API', '"frequencyOffset" must be between 1 and 12 when frequency is 720'],
    ['rule 3: every 120 minutes allows 2', 120, 2, 'OTHER', undefined],
    ['rule 3: every 1440 minutes rejects 25', 1440, 25, 'API', '"frequencyOffset" must be between 1 and 24 when frequency is 1440'],
    ['offset below 1 is rejected', 10, 0, 'API', '"frequencyOffset" must be greater than or equal to 1'],
    ['offset must be an integer', 10, 1.5, 'API', '"frequencyOffset" must be an integer'],
  ];
  it.each(cases)('%s', (_name, frequency, offset, kind, want) => {
    expect(frequencyOffsetProblem(frequency, offset, kind)).toBe(want);
  });

  it('computes the upper bound from floor(f×10) up to 60 minutes and ceil(f/60) above', () => {
    expect([1, 2, 10, 60, 120, 180, 360, 1440].map(maxFrequencyOffset)).toEqual([10, 20, 100, 600, 2, 3, 6, 24]);
  });
});

describe('array limits bind requests, not responses', () => {
  const many = (count: number) => Array.from({ length: count }, (_, i) => `t${i}`);
  const subscriptions = (count: number) => Array.from({ length: count }, (_, i) => ({ alertChannelId: i + 1, activated: true }));

  it(`refuses a check create with ${TAGS_MAX + 1} tags or ${ALERT_CHANNEL_SUBSCRIPTIONS_MAX + 1} subscriptions`, () => {
    const base = { name: 'c', request: { url: 'https://example.com' } };
    expect(ApiCheckCreate.safeParse({ ...base, tags: many(TAGS_MAX + 1) }).success).toBe(false);
    expect(ApiCheckCreate.safeParse({ ...base, alertChannelSubscriptions: subscriptions(ALERT_CHANNEL_SUBSCRIPTIONS_MAX + 1) }).success).toBe(false);
  });

  it('reads a check, group and window another service returns with more (e.g. auto-assigned to 150 channels)', () => {
    const check = ApiCheckCreate.parse({ name: 'c', request: { url: 'https://example.com' } });
    const served = { ...check, id: 'x', frequencyOffset: 1, alertChannels: { email: [], webhook: [], slack: [], sms: [] }, created_at: 'now', updated_at: null };
    const big = { tags: many(150), privateLocations: many(150), alertChannelSubscriptions: subscriptions(150) };
    expect(ApiCheck.safeParse({ ...served, ...big }).success).toBe(true);
    expect(Check.safeParse({ ...served, ...big }).success).toBe(true);
    const group = CheckGroupCreate.parse({ name: 'g' });
    expect(CheckGroup.safeParse({ ...group, ...big, id: 1, created_at: 'now', updated_at: null }).success).toBe(true);
    const window = { name: 'w', startsAt: '2026-01-01T00:00:00.000Z', endsAt: '2026-01-01T01:00:00.000Z', repeatUnit: 'DAY', repeatInterval: null, repeatEndsAt: null };
    expect(MaintenanceWindow.safeParse({ ...window, tags: many(150), id: 1, created_at: 'now', updated_at: null }).success).toBe(true);
  });
});
