import { describe, expect, it } from 'vitest';
import { load, specOf } from './__fixtures__/load.js';
import { CheckGroupV1 } from './check-group-v1.js';
import { CheckGroupV2 } from './check-group-v2.js';
import { RetryStrategyBuilder } from './retry-strategy.js';

describe('CheckGroupV1 (what a Checkly project\'s CheckGroup means)', () => {
  it('imposes the account\'s alert settings and round-robin when the group omits them, where a V2 group lets each check decide', async () => {
    const project = await load(() => {
      new CheckGroupV1('v1', { name: 'V1' });
      new CheckGroupV2('v2', { name: 'V2' });
    });
    const v1 = specOf(project, 'check-group.v1').payload;
    const v2 = specOf(project, 'check-group.v2').payload;
    expect([v1.useGlobalAlertSettings, v1.runParallel]).toEqual([true, false]);
    expect([v2.useGlobalAlertSettings, v2.runParallel]).toEqual([null, null]);
  });

  it('accepts and sends the deprecated doubleCheck, which CheckGroupV2 refuses', async () => {
    const project = await load(() => {
      new CheckGroupV1('retries', { name: 'Retries', doubleCheck: true });
      new CheckGroupV1('none', { name: 'None', retryStrategy: RetryStrategyBuilder.noRetries() });
    });
    expect(project.validate().filter((d) => d.severity === 'error')).toEqual([]);
    expect(specOf(project, 'check-group.retries').payload.doubleCheck).toBe(true);
    expect(specOf(project, 'check-group.none').payload.doubleCheck).toBe(false);
  });

  it('keeps an explicit policy and runParallel', async () => {
    const project = await load(() => {
      new CheckGroupV1('v1', { name: 'V1', alertEscalationPolicy: 'global', runParallel: true });
    });
    const payload = specOf(project, 'check-group.v1').payload;
    expect([payload.useGlobalAlertSettings, payload.runParallel]).toEqual([true, true]);
  });
});
