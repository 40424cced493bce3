/**
 * Rules the Checkly CLI's constructs enforce (packages/cli/src/constructs/check.ts,
 * check-group-v2.ts, multi-step-check.ts, internal/common-diagnostics.ts in checkly/checkly-cli),
 * each reported at the line that creates the construct at fault.
 */
import { describe, expect, it } from 'vitest';
import { load, markerLocation, specOf } from './__fixtures__/load.js';
import { ApiCheck } from './api-check.js';
import { CheckGroupV2 } from './check-group-v2.js';
import { defineConfig, type CheckDefaults } from './config.js';
import { EmailAlertChannel } from './email-alert-channel.js';
import { PhoneCallAlertChannel } from './phone-call-alert-channel.js';
import { SlackAlertChannel } from './slack-alert-channel.js';
import { SmsAlertChannel } from './sms-alert-channel.js';
import { WebhookAlertChannel } from './webhook-alert-channel.js';
import { MultiStepCheck } from './multi-step-check.js';
import { RetryStrategyBuilder } from './retry-strategy.js';
import { StatusPageService } from './status-page-service.js';
import type { Diagnostic } from './types.js';

const request = { url: 'https://example.com/' };
const code = { content: 'await run();' };
const config = (checks: CheckDefaults) => defineConfig({ projectName: 'Shop', logicalId: 'shop', checks });

const DOUBLE_CHECK_HINT = 'Remove "doubleCheck": the retry strategy alone decides how failed runs are retried; RetryStrategyBuilder.noRetries() never retries.';
const FROM_ID_HINT = 'fromId takes the id the monitoring service gave the resource (see its URL in the web app or `vigil state show`).';
const ONLY_ON_HINT = 'Leave out onlyOn: this check retries on any failure.';
const RUNTIME_HINT = 'Set runtimeId to "2023.09" or later, e.g. "2026.04".';

interface Rule {
  /** Creates the constructs; the one at fault on the line marked `// @at:<marker>`. */
  define: () => void;
  marker: string;
  address: string;
  config?: CheckDefaults;
  expected: Pick<Diagnostic, 'path' | 'message' | 'hint'>;
}

const rules: Array<[string, Rule]> = [
  [
    'doubleCheck together with the check\'s own retryStrategy',
    {
      define: () => new ApiCheck('home', { name: 'Home', request, doubleCheck: true, retryStrategy: RetryStrategyBuilder.fixedStrategy() }), // @at:own
      marker: 'own',
      address: 'api-check.home',
      expected: { path: 'doubleCheck', message: '"doubleCheck" cannot be combined with "retryStrategy"', hint: DOUBLE_CHECK_HINT },
    },
  ],
  [
    'doubleCheck together with noRetries()',
    {
      define: () => new ApiCheck('home', { name: 'Home', request, doubleCheck: false, retryStrategy: RetryStrategyBuilder.noRetries() }), // @at:none
      marker: 'none',
      address: 'api-check.home',
      expected: { path: 'doubleCheck', message: '"doubleCheck" cannot be combined with "retryStrategy"', hint: DOUBLE_CHECK_HINT },
    },
  ],
  [
    'doubleCheck on a check when the config sets a retryStrategy',
    {
      define: () => new ApiCheck('home', { name: 'Home', request, doubleCheck: true }), // @at:config
      marker: 'config',
      address: 'api-check.home',
      config: { retryStrategy: RetryStrategyBuilder.singleRetry() },
      expected: {
        path: 'doubleCheck',
        message: '"doubleCheck" cannot be combined with "retryStrategy" (this check gets "retryStrategy" from the config\'s `checks` defaults)',
        hint: DOUBLE_CHECK_HINT,
      },
    },
  ],
  [
    'maxRetries on a SINGLE_RETRY strategy, which the service refuses',
    {
      define: () => new ApiCheck('home', { name: 'Home', request, retryStrategy: { type: 'SINGLE_RETRY', maxRetries: 1 } }), // @at:single
      marker: 'single',
      address: 'api-check.home',
      expected: {
        path: 'retryStrategy.maxRetries',
        message: '"retryStrategy.maxRetries" is not allowed',
        hint: 'Build it with RetryStrategyBuilder (fixedStrategy, linearStrategy, exponentialStrategy, singleRetry, noRetries).',
      },
    },
  ],
  [
    'onlyOn on a multi-step check',
    {
      define: () => new MultiStepCheck('checkout', { name: 'Checkout', code, retryStrategy: RetryStrategyBuilder.fixedStrategy({ onlyOn: 'NETWORK_ERROR' }) }), // @at:only-on
      marker: 'only-on',
      address: 'multistep-check.checkout',
      expected: { path: 'retryStrategy.onlyOn', message: '"retryStrategy.onlyOn" is only supported by API checks, not by MultiStepCheck', hint: ONLY_ON_HINT },
    },
  ],
  [
    'a multi-step check on a runtime before 2023.09',
    {
      define: () => new MultiStepCheck('checkout', { name: 'Checkout', code, runtimeId: '2023.02' }), // @at:runtime
      marker: 'runtime',
      address: 'multistep-check.checkout',
      expected: { path: 'runtimeId', message: '"runtimeId" 2023.02 does not run multi-step checks: they need 2023.09 or later', hint: RUNTIME_HINT },
    },
  ],
  [
    'a multi-step check inheriting a runtime before 2023.09 from the config',
    {
      define: () => new MultiStepCheck('checkout', { name: 'Checkout', code }), // @at:runtime-config
      marker: 'runtime-config',
      address: 'multistep-check.checkout',
      config: { runtimeId: '2022.10' },
      expected: {
        path: 'runtimeId',
        message: '"runtimeId" 2022.10 (inherited from the config\'s `checks` defaults) does not run multi-step checks: they need 2023.09 or later',
        hint: RUNTIME_HINT,
      },
    },
  ],
  [
    'degradedResponseTime above maxResponseTime',
    {
      define: () => new ApiCheck('home', { name: 'Home', request, degradedResponseTime: 3000, maxResponseTime: 2000 }), // @at:degraded
      marker: 'degraded',
      address: 'api-check.home',
      expected: {
        path: 'degradedResponseTime',
        message: '"degradedResponseTime" (3000) must be less than or equal to "maxResponseTime" (2000)',
        hint: 'A check is degraded before it fails: lower degradedResponseTime or raise maxResponseTime.',
      },
    },
  ],
  [
    'degradedResponseTime above the default maxResponseTime',
    {
      define: () => new ApiCheck('home', { name: 'Home', request, degradedResponseTime: 25000 }), // @at:degraded-default
      marker: 'degraded-default',
      address: 'api-check.home',
      expected: {
        path: 'degradedResponseTime',
        message: '"degradedResponseTime" (25000) must be less than or equal to the default "maxResponseTime" (20000)',
        hint: 'Set "maxResponseTime" too if the check may take longer.',
      },
    },
  ],
  [
    'degradedResponseTime above maxResponseTime on a multi-step check',
    {
      define: () => new MultiStepCheck('checkout', { name: 'Checkout', code, degradedResponseTime: 9000, maxResponseTime: 8000 }), // @at:degraded-ms
      marker: 'degraded-ms',
      address: 'multistep-check.checkout',
      expected: {
        path: 'degradedResponseTime',
        message: '"degradedResponseTime" (9000) must be less than or equal to "maxResponseTime" (8000)',
        hint: 'A check is degraded before it fails: lower degradedResponseTime or raise maxResponseTime.',
      },
    },
  ],
  [
    'StatusPageService.fromId with an id that is not a UUID',
    {
      define: () => new ApiCheck('home', { name: 'Home', request, triggerIncident: { service: StatusPageService.fromId('payments'), severity: 'MAJOR', name: 'Down' } }), // @at:uuid
      marker: 'uuid',
      address: 'api-check.home',
      expected: { path: 'triggerIncident.service', message: '"triggerIncident.service": StatusPageService.fromId("payments") needs the resource\'s UUID', hint: FROM_ID_HINT },
    },
  ],
  [
    'CheckGroupV2.fromId with an id that is not a number',
    {
      define: () => new ApiCheck('home', { name: 'Home', request, group: CheckGroupV2.fromId('12' as never) }), // @at:group-id
      marker: 'group-id',
      address: 'api-check.home',
      expected: { path: 'group', message: '"group": CheckGroupV2.fromId("12") needs the resource\'s numeric id', hint: FROM_ID_HINT },
    },
  ],
  [
    'a group variable with an empty value',
    {
      define: () => new CheckGroupV2('api', { name: 'API', environmentVariables: [{ key: 'TOKEN', value: 't' }, { key: 'EMPTY', value: '' }] }), // @at:empty-variable
      marker: 'empty-variable',
      address: 'check-group.api',
      expected: {
        path: 'environmentVariables[1].value',
        message: '"environmentVariables[1].value" must not be empty',
        hint: 'Remove the variable, or give it a value (a secret one with `secret: true`).',
      },
    },
  ],
  [
    'an alert channel fromId with an id that is not a number',
    {
      define: () => new ApiCheck('home', { name: 'Home', request, alertChannels: [EmailAlertChannel.fromId(-3)] }), // @at:channel-id
      marker: 'channel-id',
      address: 'api-check.home',
      expected: { path: 'alertChannels[0]', message: '"alertChannels[0]": EmailAlertChannel.fromId(-3) needs the resource\'s numeric id', hint: FROM_ID_HINT },
    },
  ],
];

describe('rules of Checkly\'s constructs', () => {
  it.each(rules)('rejects %s', async (_name, rule) => {
    const project = await load(rule.define, rule.config ? { config: config(rule.config) } : {});
    const source = markerLocation(import.meta.url, rule.marker);
    expect(project.validate()).toEqual([{ severity: 'error', address: rule.address, source, ...rule.expected }]);
  });
});

describe('what Checkly\'s types accept', () => {
  it('takes onlyOn as a single condition and sends it as a list', async () => {
    const project = await load(() => {
      new ApiCheck('home', { name: 'Home', request, retryStrategy: RetryStrategyBuilder.fixedStrategy({ onlyOn: 'NETWORK_ERROR' }) });
    });
    expect(specOf(project, 'api-check.home').payload.retryStrategy).toEqual({
      type: 'FIXED',
      baseBackoffSeconds: 60,
      maxRetries: 2,
      maxDurationSeconds: 600,
      sameRegion: true,
      onlyOn: ['NETWORK_ERROR'],
    });
  });

  it('takes groupId: group.ref() as the group, with the group\'s defaults', async () => {
    const project = await load(() => {
      const group = new CheckGroupV2('api', { name: 'API', frequency: 5 });
      new ApiCheck('home', { name: 'Home', request, groupId: group.ref() });
    });
    const { payload, refs } = specOf(project, 'api-check.home');
    expect(payload.groupId).toEqual({ $ref: 'check-group.api' });
    expect(payload.frequency).toBe(5);
    expect(refs).toEqual([{ path: 'groupId', address: 'check-group.api' }]);
  });

  it('takes Checkly\'s plain { type: "NO_RETRIES" } as noRetries()', async () => {
    const project = await load(() => {
      new ApiCheck('home', { name: 'Home', request, retryStrategy: { type: 'NO_RETRIES' } as never });
    });
    const { payload } = specOf(project, 'api-check.home');
    expect([payload.retryStrategy, payload.doubleCheck]).toEqual([null, false]);
  });

  it('takes URL objects where Checkly takes URL | string', async () => {
    const project = await load(() => {
      new SlackAlertChannel('slack', { url: new URL('https://hooks.slack.com/services/T/B/x') });
      new WebhookAlertChannel('hook', { name: 'Hook', url: new URL('https://example.com/hook?a=1') });
    });
    expect((specOf(project, 'alert-channel.slack').payload.config as { url: string }).url).toBe('https://hooks.slack.com/services/T/B/x');
    expect((specOf(project, 'alert-channel.hook').payload.config as { url: string }).url).toBe('https://example.com/hook?a=1');
  });

  it('takes an SmsAlertChannel and a PhoneCallAlertChannel without a name, naming them by their number', async () => {
    const project = await load(() => {
      new SmsAlertChannel('sms', { phoneNumber: '+31612345678' });
      new PhoneCallAlertChannel('call', { phoneNumber: '+31612345679' });
    });
    expect(specOf(project, 'alert-channel.sms').payload.config).toEqual({ name: '+31612345678', number: '+31612345678' });
    expect(specOf(project, 'alert-channel.call').payload.config).toEqual({ name: '+31612345679', number: '+31612345679' });
  });
});
