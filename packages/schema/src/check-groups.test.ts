import { describe, expect, it } from 'vitest';
import { CheckGroupCreate, CheckGroupUpdate } from './check-groups.js';
import { expectAccepted, expectRejected } from './test-support.js';

const env = (n: number) => Array.from({ length: n }, (_, i) => ({ key: `K${i}`, value: 'v' }));

describe('CheckGroupCreate', () => {
  it('fills the documented v2 defaults: activated, concurrency 3, FALLBACK retries, checks keep their own alerting and scheduling', () => {
    const parsed = expectAccepted(CheckGroupCreate, { name: 'g' });
    expect(parsed).toMatchObject({
      activated: true,
      muted: false,
      concurrency: 3,
      runParallel: null,
      useGlobalAlertSettings: null,
      doubleCheck: false,
      retryStrategy: 'FALLBACK',
      apiCheckDefaults: { url: '', headers: [], queryParameters: [], assertions: [], basicAuth: { username: '', password: '' } },
    });
  });

  it.each([
    ['concurrency 1', { name: 'g', concurrency: 1 }],
    ['50 environment variables', { name: 'g', environmentVariables: env(50) }],
    ['a retry strategy object', { name: 'g', retryStrategy: { type: 'EXPONENTIAL' } }],
    ['the FALLBACK literal', { name: 'g', retryStrategy: 'FALLBACK' }],
    ['no retries (null)', { name: 'g', retryStrategy: null }],
    ['a SINGLE_RETRY strategy', { name: 'g', retryStrategy: { type: 'SINGLE_RETRY', baseBackoffSeconds: 0 } }],
  ])('accepts %s', (_name, input) => {
    expectAccepted(CheckGroupCreate, input);
  });

  it.each<[string, unknown, string[], string]>([
    ['a missing name', {}, ['name'], '"name" is required'],
    ['concurrency 0', { name: 'g', concurrency: 0 }, ['concurrency'], '"concurrency" must be greater than or equal to 1'],
    ['51 environment variables', { name: 'g', environmentVariables: env(51) }, ['environmentVariables'], '"environmentVariables" must contain less than or equal to 50 items'],
    ['an unknown location', { name: 'g', locations: ['moon'] }, ['locations.0'], '"locations[0]" must be one of [us-east-1, us-east-2, us-west-1, us-west-2, ca-central-1, sa-east-1, eu-west-1, eu-central-1, eu-west-2, eu-west-3, eu-north-1, eu-south-1, me-south-1, ap-southeast-1, ap-northeast-1, ap-east-1, ap-southeast-2, ap-southeast-3, ap-northeast-2, ap-northeast-3, ap-south-1, af-south-1]'],
    ['an unknown runtime', { name: 'g', runtimeId: '1999.01' }, ['runtimeId'], '"runtimeId" must be one of [2026.04, 2025.04, 2024.09, 2024.02, 2023.09, 2023.02, 2022.10]'],
    [
      'maxRetries on a SINGLE_RETRY strategy, as the real service does',
      { name: 'g', retryStrategy: { type: 'SINGLE_RETRY', maxRetries: 1 } },
      ['retryStrategy.maxRetries'],
      '"retryStrategy.maxRetries" is not allowed',
    ],
    ['an unknown retry strategy type', { name: 'g', retryStrategy: { type: 'NO_RETRIES' } }, ['retryStrategy.type'], '"retryStrategy.type" must be one of [FIXED, LINEAR, EXPONENTIAL, SINGLE_RETRY]'],
  ])('rejects %s', (_name, input, keys, message) => {
    expectRejected(CheckGroupCreate, input, { keys, message });
  });
});

describe('CheckGroupUpdate (PUT /v2/check-groups/{id})', () => {
  it('requires name, as the API says, and fills nothing else', () => {
    expect(expectAccepted(CheckGroupUpdate, { name: 'g' })).toEqual({ name: 'g' });
    expectRejected(CheckGroupUpdate, { concurrency: 2 }, { keys: ['name'], message: '"name" is required' });
  });

  it('enforces concurrency on updates too', () => {
    expectRejected(CheckGroupUpdate, { name: 'g', concurrency: 0 }, { keys: ['concurrency'], message: '"concurrency" must be greater than or equal to 1' });
  });
});
