import { describe, expect, it } from 'vitest';
import { FIXTURE_ROOT, markerLocation } from './__fixtures__/load.js';
import { defineConfig, type VigilConfig } from './config.js';
import { Frequency } from './frequency.js';
import { Project } from './project.js';
import { RetryStrategyBuilder } from './retry-strategy.js';

const valid: VigilConfig = { projectName: 'Shop', logicalId: 'shop-monitoring' };
const STATE_HINT =
  'Backends are `{ backend: "local", path? }`, `{ backend: "service" }` (state kept by the target service), `{ backend: "http", address, ... }` (Terraform\'s http backend protocol), ' +
  '`{ backend: "postgres", connectionString? }` and `{ backend: "s3", bucket, key, region?, endpoint? }`.';
const LOCATIONS =
  '[us-east-1, us-east-2, us-west-1, us-west-2, ca-central-1, sa-east-1, eu-west-1, eu-central-1, eu-west-2, eu-west-3, ' +
  'eu-north-1, eu-south-1, me-south-1, ap-southeast-1, ap-northeast-1, ap-east-1, ap-southeast-2, ap-southeast-3, ' +
  'ap-northeast-2, ap-northeast-3, ap-south-1, af-south-1]';

function validate(config: VigilConfig) {
  const project = new Project({ root: FIXTURE_ROOT });
  project.setConfig(config);
  return project.validate();
}

describe('defineConfig', () => {
  it('returns the config it was given', () => {
    const config = { ...valid, checks: { frequency: Frequency.EVERY_5M } };
    expect(defineConfig(config)).toBe(config);
  });

  it('accepts every documented option', () => {
    const config = defineConfig({
      ...valid,
      checks: {
        checkMatch: ['**/*.monitor.ts', 'extra/*.ts'],
        ignoreDirectoriesMatch: ['drafts/**'],
        activated: true,
        muted: false,
        frequency: Frequency.EVERY_10S,
        locations: ['eu-west-1'],
        privateLocations: ['dc-1'],
        tags: ['shop'],
        runtimeId: '2025.04',
        retryStrategy: RetryStrategyBuilder.noRetries(),
        runParallel: true,
      },
      state: { backend: 'local', path: '.vigil/state.json' },
      api: { baseUrl: 'http://127.0.0.1:4000', accountId: 'acc-1' },
    });
    expect(validate(config)).toEqual([]);
  });

  it.each<[string, Record<string, unknown>, Array<{ path: string; message: string; hint?: string }>]>([
    ['an empty project name', { projectName: '' }, [{ path: 'projectName', message: 'vigil.config: "projectName" is not allowed to be empty' }]],
    [
      'a logical id with a space',
      { logicalId: 'shop monitoring' },
      [{ path: 'logicalId', message: 'vigil.config: "logicalId" has an invalid format', hint: 'The project logical id may only contain letters, digits and _ - / # . (e.g. "shop-monitoring").' }],
    ],
    ['a misspelt option', { chekcs: {} }, [{ path: 'chekcs', message: 'vigil.config: "chekcs" is not a config option', hint: 'Did you mean "checks"?' }]],
    ['a misspelt check default', { checks: { location: ['eu-west-1'] } }, [{ path: 'checks.location', message: 'vigil.config: "checks.location" is not a config option', hint: 'Did you mean "locations"?' }]],
    [
      'an unknown location',
      { checks: { locations: ['moon-1'] } },
      [{ path: 'checks.locations[0]', message: `vigil.config: "checks.locations[0]" must be one of ${LOCATIONS}`, hint: 'Use data-center locations such as "eu-west-1" or "us-east-1".' }],
    ],
    [
      'a frequency outside the value set',
      { checks: { frequency: 7 } },
      [{ path: 'checks.frequency', message: 'vigil.config: "checks.frequency" must be one of [0, 1, 2, 5, 10, 15, 30, 60, 120, 180, 360, 720, 1440]', hint: 'Use a Frequency builder, e.g. `frequency: Frequency.EVERY_5M`.' }],
    ],
    ['an empty checkMatch list', { checks: { checkMatch: [] } }, [{ path: 'checks.checkMatch', message: 'vigil.config: "checks.checkMatch" must contain at least 1 items' }]],
    [
      'a state backend vigil does not have',
      { state: { backend: 'gcs' } },
      [{ path: 'state.backend', message: 'vigil.config: "state.backend" must be one of [local, http, service, postgres, s3]', hint: STATE_HINT }],
    ],
    [
      'a postgres connection string with a password in it',
      { state: { backend: 'postgres', connectionString: 'postgres://ci:hunter2@db.example.com/vigil' } },
      [{ path: 'state.connectionString', message: 'vigil.config: "state.connectionString" must not contain a password (set PGPASSWORD, or the whole URL in VIGIL_STATE_PG_URL)', hint: STATE_HINT }],
    ],
    [
      'a postgres connection string that is not a postgres URL',
      { state: { backend: 'postgres', connectionString: 'mysql://db.example.com/vigil' } },
      [{ path: 'state.connectionString', message: 'vigil.config: "state.connectionString" must be a postgres:// URL', hint: STATE_HINT }],
    ],
    [
      'an s3 state without a bucket',
      { state: { backend: 's3', key: 'shop.json' } },
      [{ path: 'state.bucket', message: 'vigil.config: "state.bucket" is required', hint: STATE_HINT }],
    ],
    [
      'an s3 bucket name with capitals',
      { state: { backend: 's3', bucket: 'My_Bucket', key: 'shop.json' } },
      [{ path: 'state.bucket', message: 'vigil.config: "state.bucket" must be an S3 bucket name (3 to 63 lower-case letters, digits, dots and hyphens)', hint: STATE_HINT }],
    ],
    [
      'an s3 key that ends in .lock',
      { state: { backend: 's3', bucket: 'states', key: 'shop.lock' } },
      [{ path: 'state.key', message: 'vigil.config: "state.key" must be an object key that does not start with "/" or end in ".lock" (vigil keeps its lock at <key>.lock)', hint: STATE_HINT }],
    ],
    [
      'an s3 secret key in the config',
      { state: { backend: 's3', bucket: 'states', key: 'shop.json', secretAccessKey: 'abc' } },
      [
        {
          path: 'state.secretAccessKey',
          message: 'vigil.config: "state.secretAccessKey" is not a config option',
          hint: 'S3 credentials are read from AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN only, so they never sit in the repository.',
        },
      ],
    ],
    [
      'an http state address with credentials in it',
      { state: { backend: 'http', address: 'https://ci:hunter2@state.example.com/shop' } },
      [
        {
          path: 'state.address',
          message: 'vigil.config: "state.address" must not contain credentials (set VIGIL_STATE_HTTP_USERNAME and VIGIL_STATE_HTTP_PASSWORD, or VIGIL_STATE_HTTP_TOKEN)',
          hint: STATE_HINT,
        },
      ],
    ],
    ['an http state without an address', { state: { backend: 'http' } }, [{ path: 'state.address', message: 'vigil.config: "state.address" must be a string', hint: STATE_HINT }]],
    [
      'an http state password in the config',
      { state: { backend: 'http', address: 'https://state.example.com/shop', password: 'hunter2' } },
      [{ path: 'state.password', message: 'vigil.config: "state.password" is not a config option', hint: 'The password is read from VIGIL_STATE_HTTP_PASSWORD only, so it never sits in the repository.' }],
    ],
    [
      'an http state lock method in lower case',
      { state: { backend: 'http', address: 'https://state.example.com/shop', lockMethod: 'lock' } },
      [{ path: 'state.lockMethod', message: 'vigil.config: "state.lockMethod" must be an HTTP method in capitals, e.g. "LOCK" or "PUT"', hint: STATE_HINT }],
    ],
    [
      'an API base URL that is not a URL',
      { api: { baseUrl: 'localhost' } },
      [{ path: 'api.baseUrl', message: 'vigil.config: "api.baseUrl" must be a valid url', hint: 'The service is configured with `api: { baseUrl, accountId }` or the VIGIL_API_URL / VIGIL_ACCOUNT_ID variables.' }],
    ],
  ])('reports %s at the defineConfig call', (_name, change, expected) => {
    const config = defineConfig({ ...valid, ...change } as VigilConfig); // @at:config
    const source = markerLocation(import.meta.url, 'config', 'defineConfig(');
    expect(validate(config)).toEqual(expected.map((e) => ({ severity: 'error', ...e, source })));
  });

  it('reports a config that did not go through defineConfig without a location', () => {
    expect(validate({ projectName: '', logicalId: 'shop' })).toEqual([
      { severity: 'error', path: 'projectName', message: 'vigil.config: "projectName" is not allowed to be empty' },
    ]);
  });
});
