import { CheckGroupCreate, DEFAULT_ALERT_SETTINGS } from '@vigil/schema';
import { describe, expect, it } from 'vitest';
import { load, markerLocation, specOf } from './__fixtures__/load.js';
import { AlertEscalationBuilder } from './alert-escalation-policy.js';
import { AssertionBuilder } from './assertion.js';
import { ApiCheck } from './api-check.js';
import { CheckGroupV1 } from './check-group-v1.js';
import { CheckGroup, CheckGroupV2, type CheckGroupV2Props } from './check-group-v2.js';
import { OpsgenieAlertChannel } from './opsgenie-alert-channel.js';
import { RetryStrategyBuilder } from './retry-strategy.js';
import type { Diagnostic } from './types.js';

const base: CheckGroupV2Props = { name: 'API' };

type Expected = Pick<Diagnostic, 'severity' | 'path' | 'message' | 'hint'>;
const error = (path: string, message: string, hint?: string): Expected => ({ severity: 'error', path, message, ...(hint ? { hint } : {}) });

const rules: Array<[string, Partial<CheckGroupV2Props>, Expected[]]> = [
  ['accepts concurrency 1', { concurrency: 1 }, []],
  ['accepts FALLBACK as retry strategy', { retryStrategy: 'FALLBACK' }, []],
  ['rejects concurrency 0', { concurrency: 0 }, [error('concurrency', '"concurrency" must be greater than or equal to 1', 'concurrency is the number of checks run at once when the group is triggered; at least 1.')]],
  ['rejects an empty name', { name: '' }, [error('name', '"name" is not allowed to be empty')]],
  [
    'rejects 51 environment variables',
    { environmentVariables: Array.from({ length: 51 }, (_, i) => ({ key: `K${i}`, value: 'v' })) },
    [error('environmentVariables', '"environmentVariables" must contain less than or equal to 50 items', 'At most 50 environment variables; move shared ones to the check group.')],
  ],
  [
    'rejects an unknown assertion comparison in apiCheckDefaults',
    { apiCheckDefaults: { assertions: [{ ...AssertionBuilder.statusCode().equals(200), comparison: 'ABOUT' as never }] } },
    [
      error(
        'apiCheckDefaults.assertions[0].comparison',
        '"apiCheckDefaults.assertions[0].comparison" must be one of [EQUALS, NOT_EQUALS, HAS_KEY, NOT_HAS_KEY, HAS_VALUE, NOT_HAS_VALUE, IS_EMPTY, NOT_EMPTY, GREATER_THAN, LESS_THAN, CONTAINS, NOT_CONTAINS, IS_NULL, NOT_NULL]',
      ),
    ],
  ],
  [
    'rejects doubleCheck, which CheckGroupV2 no longer supports',
    { doubleCheck: true },
    [
      error(
        'doubleCheck',
        '"doubleCheck" is not supported by CheckGroupV2',
        'Use retryStrategy instead: RetryStrategyBuilder.fixedStrategy({ maxRetries: 1, baseBackoffSeconds: 0, maxDurationSeconds: 600, sameRegion: false }) does what doubleCheck: true did, RetryStrategyBuilder.noRetries() what doubleCheck: false did.',
      ),
    ],
  ],
  ['accepts noRetries as retry strategy', { retryStrategy: RetryStrategyBuilder.noRetries() }, []],
];

describe('CheckGroupV2 rules', () => {
  it.each(rules)('%s', async (_name, props, expected) => {
    const project = await load(() => {
      new CheckGroupV2('api', { ...base, ...props }); // @at:rule
    });
    const source = markerLocation(import.meta.url, 'rule');
    expect(project.validate()).toEqual(expected.map((e) => ({ ...e, address: 'check-group.api', source })));
  });
});

describe('CheckGroupV2 synth', () => {
  it('fills the documented defaults of the v2 create call', async () => {
    const project = await load(() => {
      new CheckGroupV2('api', base);
    });
    const { payload } = specOf(project, 'check-group.api');
    expect(payload).toEqual({
      name: 'API',
      activated: true,
      muted: false,
      tags: [],
      locations: [],
      concurrency: 3,
      apiCheckDefaults: { url: '', headers: [], queryParameters: [], assertions: [], basicAuth: { username: '', password: '' } },
      environmentVariables: [],
      alertChannelSubscriptions: [],
      privateLocations: [],
      runParallel: null,
      alertSettings: DEFAULT_ALERT_SETTINGS,
      retryStrategy: 'FALLBACK',
      useGlobalAlertSettings: null,
      doubleCheck: false,
    });
    expect(CheckGroupCreate.parse(payload)).toEqual(payload);
  });

  it('maps its props, subscriptions and secrets; frequency stays a default for its checks only', async () => {
    const project = await load(() => {
      const oncall = new OpsgenieAlertChannel('oncall', { name: 'On call', apiKey: 'k', region: 'EU', priority: 'P1' });
      new CheckGroup('api', {
        name: 'API',
        activated: false,
        muted: true,
        tags: ['api'],
        locations: ['eu-central-1'],
        privateLocations: ['dc-1'],
        concurrency: 5,
        runtimeId: '2024.09',
        frequency: 5,
        apiCheckDefaults: { url: 'https://api.example.com', headers: [{ key: 'x', value: 'y' }], basicAuth: { username: 'bot', password: 'pw' } },
        environmentVariables: [{ key: 'TOKEN', value: 't', secret: true }],
        alertChannels: [oncall],
        alertEscalationPolicy: AlertEscalationBuilder.runBasedEscalation(2),
        retryStrategy: RetryStrategyBuilder.fixedStrategy({ maxRetries: 1 }),
        runParallel: true,
        setupScript: { content: 'setup()' },
        localTearDownScript: 'teardown()',
        setupSnippetId: 1,
        tearDownSnippetId: null,
      });
    });
    const { payload, refs, secrets } = specOf(project, 'check-group.api');
    expect(payload).toEqual({
      name: 'API',
      activated: false,
      muted: true,
      tags: ['api'],
      locations: ['eu-central-1'],
      privateLocations: ['dc-1'],
      concurrency: 5,
      runtimeId: '2024.09',
      apiCheckDefaults: {
        url: 'https://api.example.com',
        headers: [{ key: 'x', value: 'y' }],
        queryParameters: [],
        assertions: [],
        basicAuth: { username: 'bot', password: 'pw' },
      },
      environmentVariables: [{ key: 'TOKEN', value: 't', locked: false, secret: true }],
      alertChannelSubscriptions: [{ alertChannelId: { $ref: 'alert-channel.oncall' }, activated: true }],
      alertSettings: { ...DEFAULT_ALERT_SETTINGS, runBasedEscalation: { failedRunThreshold: 2 } },
      useGlobalAlertSettings: false,
      retryStrategy: { type: 'FIXED', baseBackoffSeconds: 60, maxRetries: 1, maxDurationSeconds: 600, sameRegion: true, onlyOn: [] },
      runParallel: true,
      localSetupScript: 'setup()',
      localTearDownScript: 'teardown()',
      setupSnippetId: 1,
      tearDownSnippetId: null,
      doubleCheck: false,
    });
    expect(refs).toEqual([{ path: 'alertChannelSubscriptions[0].alertChannelId', address: 'alert-channel.oncall' }]);
    expect(secrets).toEqual(['apiCheckDefaults.basicAuth.password', 'environmentVariables[0].value']);
  });

  it('is the same class under its Checkly name CheckGroup', () => {
    expect(CheckGroup).toBe(CheckGroupV2);
  });
});

describe("a check's own alert escalation in a group that decides for its checks", () => {
  const own = AlertEscalationBuilder.runBasedEscalation(3);

  it.each([
    [
      'a CheckGroupV2 with its own alertEscalationPolicy',
      () => new CheckGroupV2('g', { name: 'Payments', alertEscalationPolicy: AlertEscalationBuilder.runBasedEscalation(1) }),
      [{ severity: 'warning', address: 'api-check.c', path: 'alertEscalationPolicy', message: `is not used: the check's group "Payments" applies its own alertEscalationPolicy to every check in it`, hint: "remove it here, or remove the group's alertEscalationPolicy so that each check keeps its own" }],
    ],
    [
      "a CheckGroupV2 with 'global'",
      () => new CheckGroupV2('g', { name: 'Payments', alertEscalationPolicy: 'global' }),
      [{ severity: 'warning', address: 'api-check.c', path: 'alertEscalationPolicy', message: `is not used: the check's group "Payments" applies the account's alert settings to every check in it`, hint: 'remove it here, or make the group a CheckGroupV2 without alertEscalationPolicy so that each check keeps its own' }],
    ],
    [
      'a CheckGroupV1 without alertEscalationPolicy (the account decides)',
      () => new CheckGroupV1('g', { name: 'Payments' }),
      [{ severity: 'warning', address: 'api-check.c', path: 'alertEscalationPolicy', message: `is not used: the check's group "Payments" applies the account's alert settings to every check in it`, hint: 'remove it here, or make the group a CheckGroupV2 without alertEscalationPolicy so that each check keeps its own' }],
    ],
    ['a CheckGroupV2 without alertEscalationPolicy (each check keeps its own)', () => new CheckGroupV2('g', { name: 'Payments' }), []],
  ])('warns that the plan would promise what the service never does: %s', async (_name, makeGroup, expected) => {
    const project = await load(() => {
      const group = makeGroup();
      new ApiCheck('c', { name: 'Charge', group, alertEscalationPolicy: own, request: { url: 'https://api.example.com/charge' } });
    });
    expect(project.validate().map(({ source: _source, ...rest }) => rest)).toEqual(expected);
  });
});
