import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { Account } from './accounts.js';
import { AnalyticsReport } from './analytics.js';
import { CheckGroup, CheckGroupCreate } from './check-groups.js';
import { CheckResult } from './check-results.js';
import { MultiStepCheck, MultiStepCheckCreate } from './checks.js';
import { ErrorGroup } from './error-groups.js';
import { HeartbeatEventRecord } from './heartbeats.js';
import { MaintenanceWindow } from './maintenance-windows.js';
import { Incident, Subscription } from './status-pages.js';
import { CheckGroupTrigger } from './triggers.js';
import { expectAccepted } from './test-support.js';

const stamps = { created_at: '2025-01-01T00:00:00.000Z', updated_at: null };

/** One realistic response per resource of the API, as the service would send it. */
const samples: Array<[string, z.ZodType, unknown]> = [
  ['a check group with a secret variable', CheckGroup, {
    ...CheckGroupCreate.parse({ name: 'g' }), id: 1, ...stamps,
    environmentVariables: [{ key: 'TOKEN', value: null, locked: true, secret: true }],
  }],
  ['a multi-step check', MultiStepCheck, {
    ...MultiStepCheckCreate.parse({ name: 'flow', script: 'x' }), id: 'm1', frequencyOffset: 7, ...stamps,
    alertChannels: { email: [{ address: 'a@example.com' }], webhook: [], slack: [], sms: [] },
  }],
  ['a maintenance window', MaintenanceWindow, {
    id: 3, name: 'w', startsAt: '2025-01-01', endsAt: '2025-01-02', repeatUnit: 'WEEK', repeatInterval: 1,
    repeatEndsAt: null, tags: ['api'], ...stamps,
  }],
  ['an incident with a status post', Incident, {
    id: 'i1', name: 'Outage', severity: 'CRITICAL', lastUpdateStatus: 'IDENTIFIED', ...stamps,
    services: [{ id: 's1', name: 'API', accountId: 'acc', checks: [{ id: 'c1', name: 'home' }], ...stamps }],
    incidentUpdates: [{ id: 'u1', description: 'Found it', status: 'IDENTIFIED', publicIncidentUpdateDate: '2025-01-01T00:10:00.000Z', notifySubscribers: false, created_at: '2025-01-01T00:10:00.000Z' }],
  }],
  ['a subscription', Subscription, { id: 'sub1', type: 'EMAIL', address: 'a@example.com', status: 'PENDING', ...stamps }],
  ['a check result', CheckResult, {
    id: 'r1', name: 'home', checkId: 'c1', hasFailures: false, hasErrors: false, isDegraded: false,
    overMaxResponseTime: false, runLocation: 'eu-west-1', startedAt: '2025-01-01T00:00:00.000Z',
    stoppedAt: '2025-01-01T00:00:01.000Z', created_at: '2025-01-01T00:00:01.000Z', responseTime: 120,
    apiCheckResult: {
      assertions: [{ source: 'STATUS_CODE', target: 200 }],
      request: { method: 'GET', url: 'https://example.com', data: '', headers: {}, params: {} },
      response: { status: 200, statusText: 'OK', body: '', headers: {}, timings: {}, timingPhases: {} },
      requestError: null, jobLog: {}, jobAssets: null,
    },
    browserCheckResult: null, multiStepCheckResult: null, checkRunId: 9, attempts: 0, resultType: 'FINAL', sequenceId: null,
  }],
  ['an analytics report grouped by location', AnalyticsReport, {
    checkId: 'c1', name: 'home', checkType: 'API', activated: true, muted: false, frequency: 10,
    from: '2025-01-01T00:00:00.000Z', to: '2025-01-02T00:00:00.000Z', tags: [],
    series: [{ runLocation: 'eu-west-1', data: [{ responseTime_p95: 120.5, availability: 100 }] }],
    pagination: { page: 1, limit: 10 },
    metadata: { responseTime_p95: { unit: 'milliseconds', label: 'Response time (p95)', aggregation: 'p95' } },
  }],
  ['a heartbeat event record', HeartbeatEventRecord, {
    events: [{ id: 'e1', state: 'FAILING', timestamp: '2025-01-01T00:00:00.000Z', source: 'api', userAgent: 'curl' }],
    stats: {
      last24Hours: { successRatio: { previousPeriod: 99, currentPeriod: 100 }, totalEntitiesCurrentPeriod: 10 },
      last7Days: { successRatio: { previousPeriod: 98, currentPeriod: 99 }, totalEntitiesCurrentPeriod: 70 },
    },
  }],
  ['an error group', ErrorGroup, {
    id: 'eg1', checkId: 'c1', errorHash: 'abc', rawErrorMessage: 'timeout after 5000ms', cleanedErrorMessage: 'timeout after <n>ms',
    firstSeen: '2025-01-01T00:00:00.000Z', lastSeen: '2025-01-02T00:00:00.000Z', archivedUntilNextEvent: false,
  }],
  ['an account', Account, { id: 'acc', name: 'Acme', runtimeId: '2025.04', settings: {}, alertSettings: {} }],
  ['a check-group trigger', CheckGroupTrigger, { id: 1, token: 't', groupId: 2, called_at: null, ...stamps }],
];

describe('response schemas', () => {
  it.each(samples)('accept %s', (_name, schema, sample) => {
    expectAccepted(schema, sample);
  });

  it('keep a secret variable value null in a group response', () => {
    const group = CheckGroup.parse(samples[0]![2]);
    expect(group.environmentVariables?.[0]?.value).toBeNull();
  });
});
