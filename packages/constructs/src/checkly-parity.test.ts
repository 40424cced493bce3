/**
 * Builders and construct defaults against Checkly's constructs (checkly/checkly-cli,
 * packages/cli/src/constructs/<file> named in each row): what each call gives, as Checkly's
 * construct would give it. Builder rows compare the builder's value as JSON (Checkly's
 * `undefined` keys vanish on the wire); construct rows compare the payload fields Checkly's
 * `synthesize()` sets, with the service's documented default where Checkly leaves a field out.
 */
import { DEFAULT_ALERT_SETTINGS } from '@vigil/schema';
import { describe, expect, it } from 'vitest';
import { load, specOf } from './__fixtures__/load.js';
import { AlertEscalationBuilder } from './alert-escalation-policy.js';
import { ApiCheck, type ApiCheckProps } from './api-check.js';
import { AssertionBuilder } from './assertion.js';
import { CheckGroupV2, type CheckGroupV2Props } from './check-group-v2.js';
import { Frequency, resolveFrequency } from './frequency.js';
import { MultiStepCheck, type MultiStepCheckProps } from './multi-step-check.js';
import { RetryStrategyBuilder } from './retry-strategy.js';

const asJson = (value: unknown) => JSON.parse(JSON.stringify(value)) as unknown;
const request = { url: 'https://example.com/' };

async function apiCheckPayload(props: Partial<ApiCheckProps>): Promise<Record<string, unknown>> {
  const project = await load(() => {
    new ApiCheck('home', { name: 'Home', request, ...props });
  });
  return specOf(project, 'api-check.home').payload;
}

async function multiStepPayload(props: Partial<MultiStepCheckProps>): Promise<Record<string, unknown>> {
  const project = await load(() => {
    new MultiStepCheck('flow', { name: 'Flow', code: { content: 'await run();' }, ...props });
  });
  return specOf(project, 'multistep-check.flow').payload;
}

async function groupPayload(props: Partial<CheckGroupV2Props>): Promise<Record<string, unknown>> {
  const project = await load(() => {
    new CheckGroupV2('api', { name: 'API', ...props });
  });
  return specOf(project, 'check-group.api').payload;
}

/** Only the fields a row is about. */
function pick(payload: Record<string, unknown>, keys: string[]): Record<string, unknown> {
  return Object.fromEntries(keys.map((key) => [key, payload[key]]));
}

const RETRY_DEFAULTS = { baseBackoffSeconds: 60, maxRetries: 2, maxDurationSeconds: 600, sameRegion: true };
const REMINDERS = { amount: 0, interval: 5 };
const PARALLEL = { enabled: false, percentage: 10 };

type Row = [call: string, checklyFile: string, actual: () => unknown, expected: unknown];

const rows: Row[] = [
  // retry-strategy.ts: RetryStrategyBuilder.defaults() and each strategy.
  ['RetryStrategyBuilder.fixedStrategy()', 'retry-strategy.ts', () => asJson(RetryStrategyBuilder.fixedStrategy()), { type: 'FIXED', ...RETRY_DEFAULTS }],
  ['RetryStrategyBuilder.linearStrategy()', 'retry-strategy.ts', () => asJson(RetryStrategyBuilder.linearStrategy()), { type: 'LINEAR', ...RETRY_DEFAULTS }],
  ['RetryStrategyBuilder.exponentialStrategy()', 'retry-strategy.ts', () => asJson(RetryStrategyBuilder.exponentialStrategy()), { type: 'EXPONENTIAL', ...RETRY_DEFAULTS }],
  [
    "RetryStrategyBuilder.fixedStrategy({ maxRetries: 1, baseBackoffSeconds: 0, maxDurationSeconds: 600, sameRegion: false, onlyOn: 'NETWORK_ERROR' })",
    'retry-strategy.ts',
    () => asJson(RetryStrategyBuilder.fixedStrategy({ maxRetries: 1, baseBackoffSeconds: 0, maxDurationSeconds: 600, sameRegion: false, onlyOn: 'NETWORK_ERROR' })),
    { type: 'FIXED', baseBackoffSeconds: 0, maxRetries: 1, maxDurationSeconds: 600, sameRegion: false, onlyOn: 'NETWORK_ERROR' },
  ],
  ['RetryStrategyBuilder.singleRetry()', 'retry-strategy.ts', () => asJson(RetryStrategyBuilder.singleRetry()), { type: 'SINGLE_RETRY', baseBackoffSeconds: 60, sameRegion: true }],
  [
    'RetryStrategyBuilder.singleRetry({ baseBackoffSeconds: 10, sameRegion: false })',
    'retry-strategy.ts',
    () => asJson(RetryStrategyBuilder.singleRetry({ baseBackoffSeconds: 10, sameRegion: false })),
    { type: 'SINGLE_RETRY', baseBackoffSeconds: 10, sameRegion: false },
  ],
  // check.ts synthesize(): NO_RETRIES is sent as null, with doubleCheck false unless set.
  [
    'ApiCheck retryStrategy: RetryStrategyBuilder.noRetries()',
    'check.ts',
    async () => pick(await apiCheckPayload({ retryStrategy: RetryStrategyBuilder.noRetries() }), ['retryStrategy', 'doubleCheck']),
    { retryStrategy: null, doubleCheck: false },
  ],
  [
    "ApiCheck retryStrategy: fixedStrategy({ onlyOn: 'NETWORK_ERROR' }) (the service takes one value as a list)",
    'check.ts',
    async () => pick(await apiCheckPayload({ retryStrategy: RetryStrategyBuilder.fixedStrategy({ onlyOn: 'NETWORK_ERROR' }) }), ['retryStrategy']),
    { retryStrategy: { type: 'FIXED', ...RETRY_DEFAULTS, onlyOn: ['NETWORK_ERROR'] } },
  ],
  [
    'ApiCheck retryStrategy: RetryStrategyBuilder.singleRetry()',
    'check.ts',
    async () => pick(await apiCheckPayload({ retryStrategy: RetryStrategyBuilder.singleRetry() }), ['retryStrategy', 'doubleCheck']),
    { retryStrategy: { type: 'SINGLE_RETRY', baseBackoffSeconds: 60, sameRegion: true, onlyOn: [] }, doubleCheck: true },
  ],
  // check-group-v1.ts synthesize() and check-group-v2.ts (which drops doubleCheck).
  [
    'CheckGroupV2 retryStrategy: RetryStrategyBuilder.noRetries()',
    'check-group-v1.ts, check-group-v2.ts',
    async () => pick(await groupPayload({ retryStrategy: RetryStrategyBuilder.noRetries() }), ['retryStrategy', 'doubleCheck']),
    { retryStrategy: null, doubleCheck: false },
  ],
  // alert-escalation-policy.ts: both thresholds are always present.
  [
    'AlertEscalationBuilder.runBasedEscalation(2)',
    'alert-escalation-policy.ts',
    () => asJson(AlertEscalationBuilder.runBasedEscalation(2)),
    { escalationType: 'RUN_BASED', runBasedEscalation: { failedRunThreshold: 2 }, timeBasedEscalation: { minutesFailingThreshold: 5 }, reminders: REMINDERS, parallelRunFailureThreshold: PARALLEL },
  ],
  [
    'AlertEscalationBuilder.timeBasedEscalation(10)',
    'alert-escalation-policy.ts',
    () => asJson(AlertEscalationBuilder.timeBasedEscalation(10)),
    { escalationType: 'TIME_BASED', runBasedEscalation: { failedRunThreshold: 1 }, timeBasedEscalation: { minutesFailingThreshold: 10 }, reminders: REMINDERS, parallelRunFailureThreshold: PARALLEL },
  ],
  [
    'AlertEscalationBuilder.runBasedEscalation(1, { amount: 2, interval: 10 }, { enabled: true, percentage: 50 })',
    'alert-escalation-policy.ts',
    () => asJson(AlertEscalationBuilder.runBasedEscalation(1, { amount: 2, interval: 10 }, { enabled: true, percentage: 50 })),
    {
      escalationType: 'RUN_BASED',
      runBasedEscalation: { failedRunThreshold: 1 },
      timeBasedEscalation: { minutesFailingThreshold: 5 },
      reminders: { amount: 2, interval: 10 },
      parallelRunFailureThreshold: { enabled: true, percentage: 50 },
    },
  ],
  // frequency.ts
  ['Frequency.EVERY_10S', 'frequency.ts', () => resolveFrequency(Frequency.EVERY_10S), { frequency: 0, frequencyOffset: 10 }],
  ['Frequency.EVERY_30S', 'frequency.ts', () => resolveFrequency(Frequency.EVERY_30S), { frequency: 0, frequencyOffset: 30 }],
  ['Frequency.EVERY_1H', 'frequency.ts', () => resolveFrequency(Frequency.EVERY_1H), { frequency: 60 }],
  ['Frequency.EVERY_24H', 'frequency.ts', () => resolveFrequency(Frequency.EVERY_24H), { frequency: 1440 }],
  // api-assertion.ts, internal/assertion.ts toAssertion(): empty property, string target, null regex.
  ['AssertionBuilder.statusCode().equals(200)', 'api-assertion.ts', () => AssertionBuilder.statusCode().equals(200), { source: 'STATUS_CODE', comparison: 'EQUALS', property: '', target: '200', regex: null }],
  ['AssertionBuilder.jsonBody("$.ok").equals(true)', 'api-assertion.ts', () => AssertionBuilder.jsonBody('$.ok').equals(true), { source: 'JSON_BODY', comparison: 'EQUALS', property: '$.ok', target: 'true', regex: null }],
  ['AssertionBuilder.jsonBody().isNull()', 'api-assertion.ts', () => AssertionBuilder.jsonBody().isNull(), { source: 'JSON_BODY', comparison: 'IS_NULL', property: '', target: '', regex: null }],
  [
    'AssertionBuilder.headers("x-id", "^\\\\d+$").notEmpty()',
    'api-assertion.ts',
    () => AssertionBuilder.headers('x-id', '^\\d+$').notEmpty(),
    { source: 'HEADERS', comparison: 'NOT_EMPTY', property: 'x-id', target: '', regex: '^\\d+$' },
  ],
  ['AssertionBuilder.textBody().notContains("error")', 'api-assertion.ts', () => AssertionBuilder.textBody().notContains('error'), { source: 'TEXT_BODY', comparison: 'NOT_CONTAINS', property: '', target: 'error', regex: null }],
  ['AssertionBuilder.responseTime().lessThan(500)', 'api-assertion.ts', () => AssertionBuilder.responseTime().lessThan(500), { source: 'RESPONSE_TIME', comparison: 'LESS_THAN', property: '', target: '500', regex: null }],
  ['AssertionBuilder.responseTme().lessThan(500) (Checkly\'s alias)', 'api-assertion.ts', () => AssertionBuilder.responseTme().lessThan(500), { source: 'RESPONSE_TIME', comparison: 'LESS_THAN', property: '', target: '500', regex: null }],
  // check.ts synthesize(): a check without a policy uses the account's; runParallel false; no group.
  [
    'new ApiCheck(id, { name, request })',
    'check.ts, api-check.ts',
    async () => pick(await apiCheckPayload({}), ['useGlobalAlertSettings', 'runParallel', 'doubleCheck', 'groupId', 'degradedResponseTime', 'maxResponseTime', 'frequency']),
    // degradedResponseTime, maxResponseTime, doubleCheck, frequency: the service's defaults for what Checkly leaves out.
    { useGlobalAlertSettings: true, runParallel: false, doubleCheck: true, groupId: undefined, degradedResponseTime: 5000, maxResponseTime: 20000, frequency: 10 },
  ],
  [
    'new MultiStepCheck(id, { name, code })',
    'check.ts, multi-step-check.ts',
    async () => pick(await multiStepPayload({}), ['useGlobalAlertSettings', 'runParallel', 'doubleCheck', 'checkType']),
    { useGlobalAlertSettings: true, runParallel: false, doubleCheck: true, checkType: 'MULTI_STEP' },
  ],
  [
    'ApiCheck alertEscalationPolicy: AlertEscalationBuilder.runBasedEscalation(2)',
    'check.ts',
    async () => pick(await apiCheckPayload({ alertEscalationPolicy: AlertEscalationBuilder.runBasedEscalation(2) }), ['useGlobalAlertSettings', 'alertSettings']),
    { useGlobalAlertSettings: false, alertSettings: { ...DEFAULT_ALERT_SETTINGS, runBasedEscalation: { failedRunThreshold: 2 } } },
  ],
  // check-group-v2.ts: no implicit alert policy, retry strategy or scheduling; v1's apiCheckDefaults.
  [
    'new CheckGroupV2(id, { name })',
    'check-group-v2.ts, check-group-v1.ts',
    async () => pick(await groupPayload({}), ['useGlobalAlertSettings', 'retryStrategy', 'runParallel', 'locations', 'environmentVariables', 'apiCheckDefaults']),
    {
      useGlobalAlertSettings: null,
      retryStrategy: 'FALLBACK',
      runParallel: null,
      locations: [],
      environmentVariables: [],
      apiCheckDefaults: { url: '', headers: [], queryParameters: [], assertions: [], basicAuth: { username: '', password: '' } },
    },
  ],
  [
    "CheckGroupV2 alertEscalationPolicy: 'global'",
    'check-group-v2.ts',
    async () => pick(await groupPayload({ alertEscalationPolicy: 'global' }), ['useGlobalAlertSettings']),
    { useGlobalAlertSettings: true },
  ],
  [
    'CheckGroupV2 alertEscalationPolicy: AlertEscalationBuilder.timeBasedEscalation(15)',
    'check-group-v2.ts',
    async () => pick(await groupPayload({ alertEscalationPolicy: AlertEscalationBuilder.timeBasedEscalation(15) }), ['useGlobalAlertSettings', 'alertSettings']),
    { useGlobalAlertSettings: false, alertSettings: { ...DEFAULT_ALERT_SETTINGS, escalationType: 'TIME_BASED', timeBasedEscalation: { minutesFailingThreshold: 15 } } },
  ],
  ['CheckGroupV2 runParallel: false', 'check-group-v2.ts', async () => pick(await groupPayload({ runParallel: false }), ['runParallel']), { runParallel: false }],
];

describe('builders and defaults give what Checkly\'s constructs give', () => {
  it.each(rows)('%s (%s)', async (_call, _checklyFile, actual, expected) => {
    expect(await actual()).toEqual(expected);
  });
});
