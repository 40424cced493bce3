import { describe, expect, it } from 'vitest';
import { load, specOf } from './__fixtures__/load.js';
import { AlertEscalationBuilder } from './alert-escalation-policy.js';
import { ApiCheck } from './api-check.js';
import { CheckGroupV2 } from './check-group-v2.js';
import { defineConfig, type CheckDefaults } from './config.js';
import { EmailAlertChannel } from './email-alert-channel.js';
import { Frequency } from './frequency.js';
import { MultiStepCheck } from './multi-step-check.js';
import { RetryStrategyBuilder } from './retry-strategy.js';

const request = { url: 'https://example.com/' };
const config = (checks: CheckDefaults) => defineConfig({ projectName: 'Shop', logicalId: 'shop', checks });

describe('defaults cascade: config → group → the check\'s own props', () => {
  it('applies the config\'s check defaults to a check that sets none', async () => {
    const project = await load(
      () => {
        new ApiCheck('home', { name: 'Home', request });
      },
      {
        config: config({
          activated: false,
          muted: true,
          frequency: Frequency.EVERY_1H,
          locations: ['eu-west-1'],
          privateLocations: ['dc-1'],
          tags: ['shop'],
          runtimeId: '2024.02',
          retryStrategy: RetryStrategyBuilder.singleRetry(),
          alertEscalationPolicy: AlertEscalationBuilder.runBasedEscalation(3),
          runParallel: true,
        }),
      },
    );
    const { payload } = specOf(project, 'api-check.home');
    expect(payload).toMatchObject({
      activated: false,
      muted: true,
      frequency: 60,
      locations: ['eu-west-1'],
      privateLocations: ['dc-1'],
      tags: ['shop'],
      runtimeId: '2024.02',
      retryStrategy: { type: 'SINGLE_RETRY', baseBackoffSeconds: 60, sameRegion: true, onlyOn: [] },
      alertSettings: { runBasedEscalation: { failedRunThreshold: 3 } },
      useGlobalAlertSettings: false,
      runParallel: true,
    });
  });

  it('takes only frequency from the group, as Checkly: its locations, runtime and retries stay the group\'s own', async () => {
    const project = await load(
      () => {
        const group = new CheckGroupV2('api', {
          name: 'API',
          frequency: Frequency.EVERY_5M,
          locations: ['us-east-1'],
          runtimeId: '2024.09',
          retryStrategy: RetryStrategyBuilder.linearStrategy(),
        });
        new ApiCheck('inherits', { name: 'Inherits', request, group });
        new ApiCheck('overrides', {
          name: 'Overrides',
          request,
          group,
          frequency: Frequency.EVERY_2M,
          locations: ['ap-south-1'],
          runtimeId: '2025.04',
          retryStrategy: RetryStrategyBuilder.noRetries(),
        });
      },
      { config: config({ frequency: 30, locations: ['eu-west-1'], runtimeId: '2023.09', retryStrategy: RetryStrategyBuilder.fixedStrategy() }) },
    );
    const inherits = specOf(project, 'api-check.inherits').payload;
    expect([inherits.frequency, inherits.locations, inherits.runtimeId, (inherits.retryStrategy as { type: string }).type]).toEqual([
      5,
      ['eu-west-1'],
      '2023.09',
      'FIXED',
    ]);
    const overrides = specOf(project, 'api-check.overrides').payload;
    expect([overrides.frequency, overrides.locations, overrides.runtimeId, overrides.retryStrategy]).toEqual([2, ['ap-south-1'], '2025.04', null]);
  });

  it('treats a group\'s FALLBACK strategy and "global" policy as "let the check decide"', async () => {
    const project = await load(
      () => {
        const group = new CheckGroupV2('api', { name: 'API', retryStrategy: 'FALLBACK', alertEscalationPolicy: 'global' });
        new ApiCheck('home', { name: 'Home', request, group });
      },
      { config: config({ retryStrategy: RetryStrategyBuilder.exponentialStrategy(), alertEscalationPolicy: AlertEscalationBuilder.timeBasedEscalation(15) }) },
    );
    const { payload } = specOf(project, 'api-check.home');
    expect((payload.retryStrategy as { type: string }).type).toBe('EXPONENTIAL');
    expect(payload.alertSettings).toMatchObject({ escalationType: 'TIME_BASED', timeBasedEscalation: { minutesFailingThreshold: 15 } });
  });

  it('subscribes checks to the config\'s alert channels unless they name their own', async () => {
    const project = await load(
      () => {
        const own = new EmailAlertChannel('own', { address: 'own@example.com' });
        new ApiCheck('default', { name: 'Default', request });
        new ApiCheck('custom', { name: 'Custom', request, alertChannels: [own] });
        new ApiCheck('silent', { name: 'Silent', request, alertChannels: [] });
      },
      { config: config({ alertChannels: [EmailAlertChannel.fromId(9)] }) },
    );
    const subscriptions = (address: string) => specOf(project, address).payload.alertChannelSubscriptions;
    expect(subscriptions('api-check.default')).toEqual([{ alertChannelId: 9, activated: true }]);
    expect(subscriptions('api-check.custom')).toEqual([{ alertChannelId: { $ref: 'alert-channel.own' }, activated: true }]);
    expect(subscriptions('api-check.silent')).toEqual([]);
  });

  it('applies the same cascade to multi-step checks', async () => {
    const project = await load(
      () => {
        const group = new CheckGroupV2('flows', { name: 'Flows', locations: ['eu-north-1'], frequency: Frequency.EVERY_30M });
        new MultiStepCheck('checkout', { name: 'Checkout', code: { content: 'run()' }, group });
      },
      { config: config({ frequency: Frequency.EVERY_15M, tags: ['flows'] }) },
    );
    const { payload } = specOf(project, 'multistep-check.checkout');
    expect([payload.frequency, payload.locations, payload.tags]).toEqual([30, [], ['flows']]);
  });
});
