import { ApiCheckCreate, DEFAULT_ALERT_SETTINGS } from '@vigil/schema';
import { describe, expect, it } from 'vitest';
import { FIXTURE_ROOT, load, markerLocation, problems, specOf } from './__fixtures__/load.js';
import { AlertEscalationBuilder } from './alert-escalation-policy.js';
import { ApiCheck, type ApiCheckProps } from './api-check.js';
import { AssertionBuilder } from './assertion.js';
import { CheckGroupV2 } from './check-group-v2.js';
import { EmailAlertChannel } from './email-alert-channel.js';
import { Frequency } from './frequency.js';
import { RetryStrategyBuilder } from './retry-strategy.js';
import { StatusPageService } from './status-page-service.js';
import type { Diagnostic } from './types.js';

const base: ApiCheckProps = { name: 'Home', request: { url: 'https://example.com/' } };

const LOCATIONS =
  '[us-east-1, us-east-2, us-west-1, us-west-2, ca-central-1, sa-east-1, eu-west-1, eu-central-1, eu-west-2, eu-west-3, ' +
  'eu-north-1, eu-south-1, me-south-1, ap-southeast-1, ap-northeast-1, ap-east-1, ap-southeast-2, ap-southeast-3, ' +
  'ap-northeast-2, ap-northeast-3, ap-south-1, af-south-1]';
const OFFSET_HINT = 'frequencyOffset spreads runs over time: 10, 20 or 30 with frequency 0, 1..frequency×10 up to an hour, 1..frequency/60 above.';
const DOUBLE_CHECK_HINT =
  'Use retryStrategy instead: RetryStrategyBuilder.fixedStrategy({ maxRetries: 1, baseBackoffSeconds: 0, maxDurationSeconds: 600, sameRegion: false }) does what doubleCheck: true did, RetryStrategyBuilder.noRetries() what doubleCheck: false did.';
const RESPONSE_TIME_HINT = 'Response-time limits are milliseconds between 0 and 30000.';

type Expected = Pick<Diagnostic, 'severity' | 'path' | 'message' | 'hint'>;
const error = (path: string, message: string, hint?: string): Expected => ({ severity: 'error', path, message, ...(hint ? { hint } : {}) });
const warning = (path: string, message: string, hint?: string): Expected => ({ severity: 'warning', path, message, ...(hint ? { hint } : {}) });

const rules: Array<[string, Partial<ApiCheckProps>, Expected[]]> = [
  ['accepts the smallest response times', { degradedResponseTime: 0, maxResponseTime: 0 }, []],
  ['accepts the largest response times', { degradedResponseTime: 30000, maxResponseTime: 30000 }, []],
  ['accepts a sub-minute Frequency', { frequency: Frequency.EVERY_30S }, []],
  ['accepts the largest offset up to an hour (frequency × 10)', { frequency: 60, frequencyOffset: 600 }, []],
  ['accepts the largest offset above an hour (frequency / 60)', { frequency: 720, frequencyOffset: 12 }, []],
  ['accepts groupOrder 0', { groupOrder: 0 }, []],
  ['rejects an empty name', { name: '' }, [error('name', '"name" is not allowed to be empty')]],
  ['rejects a negative degradedResponseTime', { degradedResponseTime: -1 }, [error('degradedResponseTime', '"degradedResponseTime" must be greater than or equal to 0', RESPONSE_TIME_HINT)]],
  ['rejects a maxResponseTime over 30000', { maxResponseTime: 30001 }, [error('maxResponseTime', '"maxResponseTime" must be less than or equal to 30000', RESPONSE_TIME_HINT)]],
  [
    'rejects a frequency outside the value set',
    { frequency: 3 },
    [error('frequency', '"frequency" must be one of [0, 1, 2, 5, 10, 15, 30, 60, 120, 180, 360, 720, 1440]', 'Use a Frequency builder, e.g. `frequency: Frequency.EVERY_5M`.')],
  ],
  [
    'rejects frequency 0 without an offset',
    { frequency: 0 },
    [error('frequencyOffset', '"frequencyOffset" is required when frequency is 0: sub-minute checks run every 10, 20 or 30 seconds', 'Use Frequency.EVERY_10S, Frequency.EVERY_20S or Frequency.EVERY_30S.')],
  ],
  ['rejects a sub-minute offset other than 10, 20, 30', { frequency: 0, frequencyOffset: 15 }, [error('frequencyOffset', '"frequencyOffset" must be 10, 20 or 30 when frequency is 0', OFFSET_HINT)]],
  ['rejects an offset over frequency × 10', { frequency: 5, frequencyOffset: 51 }, [error('frequencyOffset', '"frequencyOffset" must be between 1 and 50 when frequency is 5', OFFSET_HINT)]],
  ['rejects an offset over frequency / 60', { frequency: 720, frequencyOffset: 13 }, [error('frequencyOffset', '"frequencyOffset" must be between 1 and 12 when frequency is 720', OFFSET_HINT)]],
  ['rejects offset 0 once', { frequency: 10, frequencyOffset: 0 }, [error('frequencyOffset', '"frequencyOffset" must be greater than or equal to 1', OFFSET_HINT)]],
  [
    'reports an offset problem together with every other problem',
    { name: '', frequency: 5, frequencyOffset: 51 },
    [error('frequencyOffset', '"frequencyOffset" must be between 1 and 50 when frequency is 5', OFFSET_HINT), error('name', '"name" is not allowed to be empty')],
  ],
  ['warns about a misspelt prop, suggesting the right one', { frequncy: 5 } as never, [warning('frequncy', '"frequncy" is not a prop of ApiCheck', 'Did you mean "frequency"?')]],
  [
    'warns about a request prop spelt the old Checkly way, suggesting the right one',
    { request: { url: 'https://example.com/', skipSsl: true } as never },
    [warning('request.skipSsl', '"request.skipSsl" is not a prop of the request', 'Did you mean "skipSSL"?')],
  ],
  ['rejects an unknown location', { locations: ['mars-1' as never] }, [error('locations[0]', `"locations[0]" must be one of ${LOCATIONS}`, 'Use data-center locations such as "eu-west-1" or "us-east-1".')]],
  [
    'rejects an unknown runtime',
    { runtimeId: '2021.01' as never },
    [error('runtimeId', '"runtimeId" must be one of [2026.04, 2025.04, 2024.09, 2024.02, 2023.09, 2023.02, 2022.10]', 'Use one of the runtime ids listed, e.g. "2026.04" (the newest).')],
  ],
  ['rejects a negative groupOrder', { groupOrder: -1 }, [error('groupOrder', '"groupOrder" must be greater than or equal to 0', 'groupOrder is a position in the group, 0 or more.')]],
  [
    'rejects a lower-case method',
    { request: { url: 'https://example.com/', method: 'get' as never } },
    [error('request.method', '"request.method" must be one of [GET, POST, PUT, HEAD, DELETE, PATCH]', 'HTTP methods are upper case: GET, POST, PUT, HEAD, DELETE, PATCH.')],
  ],
  ['rejects an empty url', { request: { url: '' } }, [error('request.url', '"request.url" is not allowed to be empty')]],
  ['rejects a url over 2048 characters', { request: { url: 'x'.repeat(2049) } }, [error('request.url', '"request.url" length must be less than or equal to 2048 characters long')]],
  [
    'rejects an unknown assertion source',
    { request: { url: 'https://example.com/', assertions: [{ ...AssertionBuilder.statusCode().equals(200), source: 'BODY' as never }] } },
    [error('request.assertions[0].source', '"request.assertions[0].source" must be one of [STATUS_CODE, JSON_BODY, HEADERS, TEXT_BODY, RESPONSE_TIME]', 'Build assertions with AssertionBuilder, e.g. AssertionBuilder.statusCode().equals(200).')],
  ],
  ['rejects a header without a value', { request: { url: 'https://example.com/', headers: [{ key: 'accept' } as never] } }, [error('request.headers[0].value', '"request.headers[0].value" is required')]],
  [
    'rejects more than 10 retries',
    { retryStrategy: RetryStrategyBuilder.fixedStrategy({ maxRetries: 11 }) },
    [error('retryStrategy.maxRetries', '"retryStrategy.maxRetries" must be less than or equal to 10', 'Build it with RetryStrategyBuilder (fixedStrategy, linearStrategy, exponentialStrategy, singleRetry, noRetries).')],
  ],
  [
    'rejects a failed-run threshold over 5',
    { alertEscalationPolicy: AlertEscalationBuilder.runBasedEscalation(6) },
    [error('alertEscalationPolicy.runBasedEscalation.failedRunThreshold', '"alertEscalationPolicy.runBasedEscalation.failedRunThreshold" must be one of [1, 2, 3, 4, 5]', 'Build it with AlertEscalationBuilder.runBasedEscalation(...) or timeBasedEscalation(...).')],
  ],
  ['rejects alert channels that are not a list', { alertChannels: 'ops' as never }, [error('alertChannels', '"alertChannels" must be an array of alert channels')]],
  [
    'rejects a group given by number',
    { group: 42 as never },
    [error('group', '"group" must be a CheckGroupV2 construct or a fromId reference, got the number 42', 'Pass the construct object itself (for example `group: apiGroup`), or X.fromId(id) for a resource Vigil does not manage.')],
  ],
  [
    'rejects an incident service given by name, and a bad severity, once each',
    { triggerIncident: { service: 'payments' as never, severity: 'HIGH' as never, name: 'Down', description: '', notifySubscribers: false } },
    [
      error('triggerIncident.service', '"triggerIncident.service" must be a StatusPageService construct or a fromId reference, got the string "payments"', 'Pass the construct object itself (for example `group: apiGroup`), or X.fromId(id) for a resource Vigil does not manage.'),
      error('triggerIncident.severity', '"triggerIncident.severity" must be one of [CRITICAL, MAJOR, MEDIUM, MINOR]'),
    ],
  ],
  [
    'warns that doubleCheck is deprecated',
    { doubleCheck: false },
    [{ severity: 'warning', path: 'doubleCheck', message: '"doubleCheck" is deprecated', hint: DOUBLE_CHECK_HINT }],
  ],
  [
    'rejects a setup script with both entrypoint and content',
    { setupScript: { entrypoint: './__fixtures__/scripts/setup.ts', content: 'x' } as never },
    [error('setupScript', '"setupScript" must have exactly one of "entrypoint" (a file to bundle) or "content" (the code itself)', "For example `setupScript: { entrypoint: './login.spec.ts' }`.")],
  ],
  [
    'rejects setupScript together with localSetupScript',
    { setupScript: { content: 'a()' }, localSetupScript: 'b()' },
    [error('setupScript', '"setupScript" and "localSetupScript" set the same script; set only one', 'Prefer "setupScript".')],
  ],
  [
    'rejects a teardown entrypoint that does not exist',
    { tearDownScript: { entrypoint: './__fixtures__/scripts/missing.ts' } },
    [error('tearDownScript.entrypoint', `"tearDownScript.entrypoint" file not found: ${FIXTURE_ROOT}/scripts/missing.ts`, 'Entrypoints are resolved relative to the file being loaded (the monitor or check file), as in Checkly.')],
  ],
];

describe('ApiCheck rules', () => {
  it.each(rules)('%s', async (_name, props, expected) => {
    const project = await load(() => {
      new ApiCheck('home', { ...base, ...props }); // @at:rule
    });
    const source = markerLocation(import.meta.url, 'rule');
    expect(project.validate()).toEqual(expected.map((e) => ({ ...e, address: 'api-check.home', source })));
  });
});

describe('ApiCheck synth', () => {
  it('fills every documented default of the create call', async () => {
    const project = await load(() => {
      new ApiCheck('home', base);
    });
    const { payload, refs, secrets } = specOf(project, 'api-check.home');
    expect(payload).toEqual({
      name: 'Home',
      checkType: 'API',
      activated: true,
      muted: false,
      doubleCheck: true,
      shouldFail: false,
      locations: [],
      privateLocations: [],
      tags: [],
      alertSettings: DEFAULT_ALERT_SETTINGS,
      useGlobalAlertSettings: true,
      alertChannelSubscriptions: [],
      runParallel: false,
      frequency: 10,
      degradedResponseTime: 5000,
      maxResponseTime: 20000,
      environmentVariables: [],
      request: {
        method: 'GET',
        url: 'https://example.com/',
        followRedirects: true,
        skipSSL: false,
        ipFamily: 'IPv4',
        body: '',
        bodyType: 'NONE',
        headers: [],
        queryParameters: [],
        assertions: [],
        basicAuth: { username: '', password: '' },
      },
    });
    expect(ApiCheckCreate.parse(payload)).toEqual(payload);
    expect(refs).toEqual([]);
    expect(secrets).toEqual([]);
  });

  it('maps every prop to its spec field, references to $ref, secrets to their paths', async () => {
    const project = await load(() => {
      const group = new CheckGroupV2('api', { name: 'API' });
      const oncall = new EmailAlertChannel('oncall', { address: 'oncall@example.com' });
      const payments = new StatusPageService('payments', { name: 'Payments' });
      new ApiCheck('orders', {
        name: 'Orders API',
        description: 'Creates an **order**',
        activated: false,
        muted: true,
        shouldFail: true,
        locations: ['eu-west-1', 'us-east-1'],
        privateLocations: ['dc-1'],
        tags: ['orders'],
        frequency: Frequency.EVERY_20S,
        group,
        groupOrder: 2,
        runtimeId: '2025.04',
        alertChannels: [oncall, EmailAlertChannel.fromId(77)],
        alertEscalationPolicy: AlertEscalationBuilder.timeBasedEscalation(10),
        retryStrategy: RetryStrategyBuilder.linearStrategy({ maxRetries: 3 }),
        triggerIncident: { service: payments, severity: 'MAJOR', name: 'Orders down', description: 'Orders fail', notifySubscribers: true },
        runParallel: true,
        degradedResponseTime: 1000,
        maxResponseTime: 3000,
        setupSnippetId: 5,
        tearDownSnippetId: 6,
        environmentVariables: [{ key: 'SHOP_TOKEN', value: 't0ken', secret: true }],
        setupScript: { entrypoint: './__fixtures__/scripts/setup.ts' },
        localTearDownScript: 'console.log("done")',
        request: {
          url: 'https://example.com/orders',
          method: 'POST',
          followRedirects: false,
          skipSSL: true,
          ipFamily: 'IPv6',
          body: '{"a":1}',
          bodyType: 'JSON',
          headers: [{ key: 'accept', value: 'application/json' }],
          queryParameters: [{ key: 'page', value: '1', locked: true }],
          assertions: [AssertionBuilder.statusCode().equals(201), AssertionBuilder.jsonBody('$.id').isNotNull()],
          basicAuth: { username: 'bot', password: 's3cret' },
        },
      });
    });
    const check = project.constructs().find((c) => c.address === 'api-check.orders') as ApiCheck;
    expect(check.scriptEntrypoints()).toEqual([
      { field: 'localSetupScript', entrypoint: './__fixtures__/scripts/setup.ts', path: `${FIXTURE_ROOT}/scripts/setup.ts`, propPath: 'setupScript.entrypoint' },
    ]);
    check.setBundledScript('localSetupScript', 'bundled();');
    const { payload, refs, secrets } = specOf(project, 'api-check.orders');
    expect(payload).toEqual({
      name: 'Orders API',
      description: 'Creates an **order**',
      checkType: 'API',
      activated: false,
      muted: true,
      doubleCheck: true,
      shouldFail: true,
      locations: ['eu-west-1', 'us-east-1'],
      privateLocations: ['dc-1'],
      tags: ['orders'],
      alertSettings: {
        ...DEFAULT_ALERT_SETTINGS,
        escalationType: 'TIME_BASED',
        timeBasedEscalation: { minutesFailingThreshold: 10 },
      },
      useGlobalAlertSettings: false,
      groupId: { $ref: 'check-group.api' },
      groupOrder: 2,
      runtimeId: '2025.04',
      alertChannelSubscriptions: [
        { alertChannelId: { $ref: 'alert-channel.oncall' }, activated: true },
        { alertChannelId: 77, activated: true },
      ],
      retryStrategy: { type: 'LINEAR', baseBackoffSeconds: 60, maxRetries: 3, maxDurationSeconds: 600, sameRegion: true, onlyOn: [] },
      triggerIncident: { serviceId: { $ref: 'status-page-service.payments' }, severity: 'MAJOR', name: 'Orders down', description: 'Orders fail', notifySubscribers: true },
      runParallel: true,
      frequency: 0,
      frequencyOffset: 20,
      degradedResponseTime: 1000,
      maxResponseTime: 3000,
      setupSnippetId: 5,
      tearDownSnippetId: 6,
      environmentVariables: [{ key: 'SHOP_TOKEN', value: 't0ken', secret: true, locked: false }],
      localSetupScript: 'bundled();',
      localTearDownScript: 'console.log("done")',
      request: {
        method: 'POST',
        url: 'https://example.com/orders',
        followRedirects: false,
        skipSSL: true,
        ipFamily: 'IPv6',
        body: '{"a":1}',
        bodyType: 'JSON',
        headers: [{ key: 'accept', value: 'application/json', locked: false }],
        queryParameters: [{ key: 'page', value: '1', locked: true }],
        assertions: [
          { source: 'STATUS_CODE', property: '', comparison: 'EQUALS', target: '201', regex: null },
          { source: 'JSON_BODY', property: '$.id', comparison: 'NOT_NULL', target: '', regex: null },
        ],
        basicAuth: { username: 'bot', password: 's3cret' },
      },
    });
    expect(refs).toEqual([
      { path: 'groupId', address: 'check-group.api' },
      { path: 'alertChannelSubscriptions[0].alertChannelId', address: 'alert-channel.oncall' },
      { path: 'triggerIncident.serviceId', address: 'status-page-service.payments' },
    ]);
    expect(secrets).toEqual(['environmentVariables[0].value', 'request.basicAuth.password']);
  });

  it('sends the config\'s checks.environmentVariables when the check sets none, as Checkly does for its setup scripts', async () => {
    const project = await load(
      () => {
        new ApiCheck('home', base);
        new ApiCheck('own', { ...base, environmentVariables: [{ key: 'ONLY', value: 'mine' }] });
      },
      { config: { projectName: 'P', logicalId: 'p', checks: { environmentVariables: [{ key: 'API_KEY', value: 'k' }] } } },
    );
    expect(specOf(project, 'api-check.home').payload.environmentVariables).toEqual([{ key: 'API_KEY', value: 'k', locked: false, secret: false }]);
    expect(specOf(project, 'api-check.own').payload.environmentVariables).toEqual([{ key: 'ONLY', value: 'mine', locked: false, secret: false }]);
  });

  it('sends noRetries as a null strategy without the service\'s default double check, so it never retries', async () => {
    const project = await load(() => {
      new ApiCheck('home', { ...base, retryStrategy: RetryStrategyBuilder.noRetries() });
    });
    const { payload } = specOf(project, 'api-check.home');
    expect([payload.retryStrategy, payload.doubleCheck]).toEqual([null, false]);
  });

  it('uses the global alert settings for alertEscalationPolicy "global"', async () => {
    const project = await load(() => {
      new ApiCheck('home', { ...base, alertEscalationPolicy: 'global' });
    });
    const { payload } = specOf(project, 'api-check.home');
    expect(payload.useGlobalAlertSettings).toBe(true);
    expect(payload.alertSettings).toEqual(DEFAULT_ALERT_SETTINGS);
  });

  it('does not touch the props objects the user passed', async () => {
    const request = { url: 'https://example.com/', headers: [{ key: 'a', value: 'b' }] };
    const project = await load(() => {
      new ApiCheck('home', { ...base, request });
    });
    specOf(project, 'api-check.home');
    expect(request).toEqual({ url: 'https://example.com/', headers: [{ key: 'a', value: 'b' }] });
  });

  it('reports a never-bundled entrypoint as a bug of the loader', async () => {
    const project = await load(() => {
      new ApiCheck('home', { ...base, setupScript: { entrypoint: './__fixtures__/scripts/setup.ts' } });
    });
    expect(problems(project)).toEqual([
      {
        severity: 'error',
        address: 'api-check.home',
        path: 'setupScript.entrypoint',
        message: `"setupScript.entrypoint" (${FIXTURE_ROOT}/scripts/setup.ts) was not bundled before validation (this is a bug in vigil's loader)`,
      },
    ]);
  });

  it('reports an alert channel slot holding another kind of construct', async () => {
    const project = await load(() => {
      const group = new CheckGroupV2('api', { name: 'API' });
      new ApiCheck('home', { ...base, alertChannels: [group as never] });
    });
    expect(problems(project)).toEqual([
      { severity: 'error', address: 'api-check.home', path: 'alertChannels[0]', message: '"alertChannels[0]" must refer to an alert channel, got CheckGroupV2 "api"' },
    ]);
  });

  it('reports a fromId reference of the wrong kind', async () => {
    const project = await load(() => {
      new ApiCheck('home', { ...base, group: EmailAlertChannel.fromId(3) as never });
    });
    expect(problems(project)).toEqual([
      { severity: 'error', address: 'api-check.home', path: 'group', message: '"group" must refer to a CheckGroupV2, got a fromId reference of kind alert-channel' },
    ]);
  });
});
