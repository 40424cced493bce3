import { describe, expect, it } from 'vitest';
import { ApiCheck, ApiCheckCreate, ApiCheckUpdate, Check, CheckCreate, CheckUpdate, ChecksListQuery, MultiStepCheckCreate, MultiStepCheckUpdate } from './checks.js';
import { DEFAULT_ALERT_SETTINGS } from './embedded.js';
import { CHECK_TYPES } from './values.js';
import { expectAccepted, expectRejected } from './test-support.js';

const api = (extra: Record<string, unknown> = {}) => ({ name: 'home', request: { url: 'https://example.com' }, ...extra });
const multi = (extra: Record<string, unknown> = {}) => ({ name: 'flow', script: 'await page.goto(x)', ...extra });
const env = (n: number) => Array.from({ length: n }, (_, i) => ({ key: `K${i}`, value: 'v' }));

describe('ApiCheckCreate rules', () => {
  const valid: Array<[string, Record<string, unknown>]> = [
    ['minimal check', api()],
    ['sub-minute with offset 10', api({ frequency: 0, frequencyOffset: 10 })],
    ['sub-minute with offset 30', api({ frequency: 0, frequencyOffset: 30 })],
    ['every 5 minutes with offset 50', api({ frequency: 5, frequencyOffset: 50 })],
    ['every 720 minutes with offset 12', api({ frequency: 720, frequencyOffset: 12 })],
    ['response times at 0', api({ degradedResponseTime: 0, maxResponseTime: 0 })],
    ['response times at 30000', api({ degradedResponseTime: 30000, maxResponseTime: 30000 })],
    ['null response times', api({ degradedResponseTime: null, maxResponseTime: null })],
    ['groupOrder 0', api({ groupOrder: 0 })],
    ['every location', api({ locations: ['us-east-1', 'af-south-1'] })],
    ['runtime 2022.10', api({ runtimeId: '2022.10' })],
    ['null runtime', api({ runtimeId: null })],
    ['every assertion source', api({ request: { url: 'https://x', assertions: ['STATUS_CODE', 'JSON_BODY', 'HEADERS', 'TEXT_BODY', 'RESPONSE_TIME'].map((source) => ({ source, comparison: 'EQUALS', target: '200' })) } })],
    ['POST with a JSON body over IPv6', api({ request: { url: 'https://x', method: 'POST', body: '{}', bodyType: 'JSON', ipFamily: 'IPv6' } })],
    ['a retry strategy', api({ retryStrategy: { type: 'LINEAR', onlyOn: ['NETWORK_ERROR'] } })],
    ['time-based escalation', api({ alertSettings: { escalationType: 'TIME_BASED', timeBasedEscalation: { minutesFailingThreshold: 10 } } })],
  ];
  it.each(valid)('accepts %s', (_name, input) => {
    expectAccepted(ApiCheckCreate, input);
  });

  const invalid: Array<[string, unknown, string[], string]> = [
    ['a missing name', { request: { url: 'https://x' } }, ['name'], '"name" is required'],
    ['an empty name', api({ name: '' }), ['name'], '"name" is not allowed to be empty'],
    ['a missing request', { name: 'x' }, ['request'], '"request" is required'],
    ['a missing url', api({ request: {} }), ['request.url'], '"request.url" is required'],
    ['sub-minute offset 15', api({ frequency: 0, frequencyOffset: 15 }), ['frequencyOffset'], '"frequencyOffset" must be 10, 20 or 30 when frequency is 0'],
    ['offset 51 every 5 minutes', api({ frequency: 5, frequencyOffset: 51 }), ['frequencyOffset'], '"frequencyOffset" must be between 1 and 50 when frequency is 5'],
    ['offset 13 every 720 minutes', api({ frequency: 720, frequencyOffset: 13 }), ['frequencyOffset'], '"frequencyOffset" must be between 1 and 12 when frequency is 720'],
    ['offset 101 with the default frequency 10', api({ frequencyOffset: 101 }), ['frequencyOffset'], '"frequencyOffset" must be between 1 and 100 when frequency is 10'],
    ['offset 0', api({ frequencyOffset: 0 }), ['frequencyOffset'], '"frequencyOffset" must be greater than or equal to 1'],
    ['frequency 3', api({ frequency: 3 }), ['frequency'], '"frequency" must be one of [0, 1, 2, 5, 10, 15, 30, 60, 120, 180, 360, 720, 1440]'],
    ['degradedResponseTime 30001', api({ degradedResponseTime: 30001 }), ['degradedResponseTime'], '"degradedResponseTime" must be less than or equal to 30000'],
    ['maxResponseTime -1', api({ maxResponseTime: -1 }), ['maxResponseTime'], '"maxResponseTime" must be greater than or equal to 0'],
    ['groupOrder -1', api({ groupOrder: -1 }), ['groupOrder'], '"groupOrder" must be greater than or equal to 0'],
    ['an unknown location', api({ locations: ['us-east-1', 'mars-1'] }), ['locations.1'], '"locations[1]" must be one of [us-east-1, us-east-2, us-west-1, us-west-2, ca-central-1, sa-east-1, eu-west-1, eu-central-1, eu-west-2, eu-west-3, eu-north-1, eu-south-1, me-south-1, ap-southeast-1, ap-northeast-1, ap-east-1, ap-southeast-2, ap-southeast-3, ap-northeast-2, ap-northeast-3, ap-south-1, af-south-1]'],
    ['an unknown runtime', api({ runtimeId: '2021.01' }), ['runtimeId'], '"runtimeId" must be one of [2026.04, 2025.04, 2024.09, 2024.02, 2023.09, 2023.02, 2022.10]'],
    ['an unknown assertion source', api({ request: { url: 'https://x', assertions: [{ source: 'BODY', comparison: 'EQUALS' }] } }), ['request.assertions.0.source'], '"request.assertions[0].source" must be one of [STATUS_CODE, JSON_BODY, HEADERS, TEXT_BODY, RESPONSE_TIME]'],
    ['an unknown comparison', api({ request: { url: 'https://x', assertions: [{ source: 'STATUS_CODE', comparison: 'IS' }] } }), ['request.assertions.0.comparison'], '"request.assertions[0].comparison" must be one of [EQUALS, NOT_EQUALS, HAS_KEY, NOT_HAS_KEY, HAS_VALUE, NOT_HAS_VALUE, IS_EMPTY, NOT_EMPTY, GREATER_THAN, LESS_THAN, CONTAINS, NOT_CONTAINS, IS_NULL, NOT_NULL]'],
    ['an unknown method', api({ request: { url: 'https://x', method: 'TRACE' } }), ['request.method'], '"request.method" must be one of [GET, POST, PUT, HEAD, DELETE, PATCH]'],
    ['an unknown bodyType', api({ request: { url: 'https://x', bodyType: 'XML' } }), ['request.bodyType'], '"request.bodyType" must be one of [JSON, FORM, RAW, GRAPHQL, NONE]'],
    ['an unknown ipFamily', api({ request: { url: 'https://x', ipFamily: 'IPv5' } }), ['request.ipFamily'], '"request.ipFamily" must be one of [IPv4, IPv6]'],
    ['an unknown escalation type', api({ alertSettings: { escalationType: 'NEVER' } }), ['alertSettings.escalationType'], '"alertSettings.escalationType" must be one of [RUN_BASED, TIME_BASED]'],
    ['an unknown retry type', api({ retryStrategy: { type: 'RANDOM' } }), ['retryStrategy.type'], '"retryStrategy.type" must be one of [FIXED, LINEAR, EXPONENTIAL, SINGLE_RETRY]'],
    ['an unknown onlyOn value', api({ retryStrategy: { type: 'FIXED', onlyOn: ['TIMEOUT'] } }), ['retryStrategy.onlyOn.0'], '"retryStrategy.onlyOn[0]" must be [NETWORK_ERROR]'],
    ['an unknown incident severity', api({ triggerIncident: { serviceId: 's', name: 'n', severity: 'LOW' } }), ['triggerIncident.severity'], '"triggerIncident.severity" must be one of [CRITICAL, MAJOR, MEDIUM, MINOR]'],
    ['a string groupId', api({ groupId: '7' }), ['groupId'], '"groupId" must be a number'],
    ['a reminder interval the service does not offer', api({ alertSettings: { reminders: { interval: 60 } } }), ['alertSettings.reminders.interval'], '"alertSettings.reminders.interval" must be one of [1, 2, 3, 4, 5, 10, 15, 30]'],
    ['a failed-run threshold of 6', api({ alertSettings: { runBasedEscalation: { failedRunThreshold: 6 } } }), ['alertSettings.runBasedEscalation.failedRunThreshold'], '"alertSettings.runBasedEscalation.failedRunThreshold" must be one of [1, 2, 3, 4, 5]'],
    ['11 retries', api({ retryStrategy: { type: 'FIXED', maxRetries: 11 } }), ['retryStrategy.maxRetries'], '"retryStrategy.maxRetries" must be less than or equal to 10'],
    ['a retry window over 600 s', api({ retryStrategy: { type: 'FIXED', maxDurationSeconds: 601 } }), ['retryStrategy.maxDurationSeconds'], '"retryStrategy.maxDurationSeconds" must be less than or equal to 600'],
    ['a triggerIncident without serviceId', api({ triggerIncident: { name: 'n', severity: 'MINOR' } }), ['triggerIncident.serviceId'], '"triggerIncident.serviceId" is required'],
    ['a header without value', api({ request: { url: 'https://x', headers: [{ key: 'a' }] } }), ['request.headers.0.value'], '"request.headers[0].value" is required'],
    ['an empty url', api({ request: { url: '' } }), ['request.url'], '"request.url" is not allowed to be empty'],
  ];
  it.each(invalid)('rejects %s', (_name, input, keys, message) => {
    expectRejected(ApiCheckCreate, input, { keys, message });
  });

  it('strips unknown keys instead of rejecting them, like the real service', () => {
    const parsed = expectAccepted(ApiCheckCreate, api({ surprise: 1 }));
    expect(parsed).not.toHaveProperty('surprise');
  });
});

describe('ApiCheckCreate defaults', () => {
  it('fills every documented default so the stored check is complete', () => {
    const parsed = expectAccepted(ApiCheckCreate, api());
    expect(parsed).toEqual({
      name: 'home',
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
        url: 'https://example.com',
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
  });

  it('gives each parse its own default arrays', () => {
    const a = expectAccepted(ApiCheckCreate, api());
    const b = expectAccepted(ApiCheckCreate, api());
    a.tags.push('x');
    expect(b.tags).toEqual([]);
  });

  it('fills alert settings completely from a partial object', () => {
    const parsed = expectAccepted(ApiCheckCreate, api({ alertSettings: { reminders: { amount: 2 } } }));
    expect(parsed.alertSettings).toEqual({ ...DEFAULT_ALERT_SETTINGS, reminders: { amount: 2, interval: 5 } });
  });
});

describe('ApiCheckUpdate (PUT, merge semantics)', () => {
  it('fills no defaults: an omitted field stays omitted', () => {
    expect(expectAccepted(ApiCheckUpdate, { muted: true })).toEqual({ muted: true });
    expect(expectAccepted(ApiCheckUpdate, {})).toEqual({});
  });

  it('keeps null and [] so a caller can clear a group or a list', () => {
    expect(expectAccepted(ApiCheckUpdate, { groupId: null, tags: [] })).toEqual({ groupId: null, tags: [] });
  });

  it('still enforces the rules on the fields it gets', () => {
    expectRejected(ApiCheckUpdate, { frequency: 0, frequencyOffset: 5 }, { keys: ['frequencyOffset'], message: '"frequencyOffset" must be 10, 20 or 30 when frequency is 0' });
    expectRejected(ApiCheckUpdate, { maxResponseTime: 30001 }, { keys: ['maxResponseTime'], message: '"maxResponseTime" must be less than or equal to 30000' });
  });

  it('leaves an offset without a frequency to the server, which knows the stored frequency', () => {
    expect(expectAccepted(ApiCheckUpdate, { frequencyOffset: 500 })).toEqual({ frequencyOffset: 500 });
  });
});

describe('MultiStepCheckCreate', () => {
  it('defaults checkType to MULTI_STEP and the environment to an empty list', () => {
    const parsed = expectAccepted(MultiStepCheckCreate, multi());
    expect(parsed.checkType).toBe('MULTI_STEP');
    expect(parsed.environmentVariables).toEqual([]);
    expect(parsed.frequency).toBe(10);
    expect(parsed).not.toHaveProperty('degradedResponseTime');
  });

  it.each([
    ['frequency 1 and 50 variables', multi({ frequency: 1, environmentVariables: env(50) })],
    ['frequency 1440 with offset 24', multi({ frequency: 1440, frequencyOffset: 24 })],
  ])('accepts %s', (_name, input) => {
    expectAccepted(MultiStepCheckCreate, input);
  });

  it.each<[string, unknown, string[], string]>([
    ['a missing script', { name: 'x' }, ['script'], '"script" is required'],
    ['frequency 0', multi({ frequency: 0 }), ['frequency'], '"frequency" must be one of [1, 2, 5, 10, 15, 30, 60, 120, 180, 360, 720, 1440]'],
    ['51 environment variables', multi({ environmentVariables: env(51) }), ['environmentVariables'], '"environmentVariables" must contain less than or equal to 50 items'],
    ['an environment variable without a key', multi({ environmentVariables: [{ value: 'v' }] }), ['environmentVariables.0.key'], '"environmentVariables[0].key" is required'],
  ])('rejects %s', (_name, input, keys, message) => {
    expectRejected(MultiStepCheckCreate, input, { keys, message });
  });

  it('has an Update that fills nothing', () => {
    expect(expectAccepted(MultiStepCheckUpdate, { script: 'x' })).toEqual({ script: 'x' });
  });
});

describe('CheckCreate (generic POST /v1/checks)', () => {
  const heartbeat = { period: 5, periodUnit: 'minutes', grace: 1, graceUnit: 'minutes' };
  const generic = (extra: Record<string, unknown> = {}) => ({ name: 'hb', checkType: 'HEARTBEAT', heartbeat, script: null, ...extra });

  it('accepts a frequency of the real document\'s set and fills the shared defaults', () => {
    const parsed = expectAccepted(CheckCreate, generic({ frequency: 5 }));
    expect(parsed.frequency).toBe(5);
    expect(parsed.activated).toBe(true);
  });

  it.each([CheckCreate, CheckUpdate])('refuses a frequency outside the set (%#)', (schema) => {
    expectRejected(schema, generic({ frequency: 7 }), { keys: ['frequency'], message: '"frequency" must be one of [0, 1, 2, 5, 10, 15, 30, 60, 120, 180, 360, 720, 1440]' });
  });

  it.each<[string, unknown, string[], string]>([
    ['a missing checkType', { name: 'x', heartbeat, script: null }, ['checkType'], '"checkType" is required'],
    ['an unknown checkType', generic({ checkType: 'SMOKE' }), ['checkType'], `"checkType" must be one of [${CHECK_TYPES.join(', ')}]`],
    ['a missing heartbeat', { name: 'x', checkType: 'BROWSER', script: 'x' }, ['heartbeat'], '"heartbeat" is required'],
    ['a sub-minute browser check with an offset', generic({ checkType: 'BROWSER', frequency: 0, frequencyOffset: 10 }), ['frequencyOffset'], '"frequencyOffset" cannot be used with frequency 0: only API, TCP, URL and DNS checks run sub-minute'],
    ['51 environment variables', generic({ environmentVariables: env(51) }), ['environmentVariables'], '"environmentVariables" must contain less than or equal to 50 items'],
  ])('rejects %s', (_name, input, keys, message) => {
    expectRejected(CheckCreate, input, { keys, message });
  });

  it.each<[string, unknown, string[], string]>([
    ['a heartbeat without grace', generic({ heartbeat: { period: 5, periodUnit: 'minutes', graceUnit: 'minutes' } }), ['heartbeat.grace'], '"heartbeat.grace" is required'],
    ['a heartbeat period unit of weeks', generic({ heartbeat: { ...heartbeat, periodUnit: 'weeks' } }), ['heartbeat.periodUnit'], '"heartbeat.periodUnit" must be one of [seconds, minutes, hours, days]'],
    ['a heartbeat period of 0', generic({ heartbeat: { ...heartbeat, period: 0 } }), ['heartbeat.period'], '"heartbeat.period" must be greater than or equal to 1'],
  ])('rejects %s', (_name, input, keys, message) => {
    expectRejected(CheckCreate, input, { keys, message });
  });

  it('applies the sub-minute offset rule to TCP checks', () => {
    expectAccepted(CheckCreate, generic({ checkType: 'TCP', frequency: 0, frequencyOffset: 20 }));
    expectRejected(CheckCreate, generic({ checkType: 'TCP', frequency: 0, frequencyOffset: 25 }), { keys: ['frequencyOffset'], message: '"frequencyOffset" must be 10, 20 or 30 when frequency is 0' });
  });

  it('has an Update that fills nothing', () => {
    expect(expectAccepted(CheckUpdate, { tags: ['a'] })).toEqual({ tags: ['a'] });
  });
});

describe('check responses', () => {
  it('parse a stored API check with response-only fields', () => {
    const stored = {
      ...ApiCheckCreate.parse(api()),
      id: 'c1',
      frequencyOffset: 3,
      alertChannels: { email: [], webhook: [], slack: [], sms: [] },
      created_at: '2025-01-01T00:00:00.000Z',
      updated_at: null,
    };
    expect(ApiCheck.parse(stored).id).toBe('c1');
    expect(Check.parse(stored).checkType).toBe('API');
  });

  it('do not invent kind-specific defaults for a generic check', () => {
    const parsed = Check.parse({
      id: 'm1', name: 'flow', checkType: 'MULTI_STEP', activated: true, muted: false, frequency: 10,
      alertChannels: { email: [], webhook: [], slack: [], sms: [] }, created_at: '2025-01-01', updated_at: null,
    });
    expect(parsed).not.toHaveProperty('degradedResponseTime');
    expect(parsed).not.toHaveProperty('tags');
  });
});

describe('ChecksListQuery', () => {
  it('pages by 10 from page 1 and reads tags repeated or comma-separated', () => {
    expect(ChecksListQuery.parse({})).toEqual({ limit: 10, page: 1 });
    expect(ChecksListQuery.parse({ limit: '100', page: '3', tag: 'a,b', checkType: 'API' })).toEqual({ limit: 100, page: 3, tag: ['a', 'b'], checkType: 'API' });
    expect(ChecksListQuery.parse({ tag: ['a', 'b'] }).tag).toEqual(['a', 'b']);
  });
});

describe('cross-field rules alongside other problems', () => {
  it('reports a bad frequencyOffset together with an unrelated missing field', () => {
    expectRejected(ApiCheckCreate, { request: { url: 'https://x' }, frequency: 0, frequencyOffset: 5 }, {
      keys: ['name', 'frequencyOffset'],
      message: '"name" is required. "frequencyOffset" must be 10, 20 or 30 when frequency is 0',
    });
  });

  it('does not judge the offset against a frequency that is itself invalid', () => {
    expectRejected(ApiCheckCreate, api({ frequency: 3, frequencyOffset: 500 }), {
      keys: ['frequency'],
      message: '"frequency" must be one of [0, 1, 2, 5, 10, 15, 30, 60, 120, 180, 360, 720, 1440]',
    });
  });
});
