/**
 * Input limits at their edge: each limit is accepted exactly at the limit and refused one past it
 * with the field named — by the service (400 `validation.keys`) and, where a construct carries the
 * field, by `vigil validate` (a diagnostic naming the field path). Plus the size limit that matters
 * most to users: a 10,000-resource project validates.
 */
import { mkdtemp, rm, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ASSERTIONS_MAX,
  DEPENDENCIES_MAX,
  ENVIRONMENT_VARIABLES_MAX,
  IDEMPOTENCY_KEY_MAX_LENGTH,
  INCIDENT_NAME_MAX,
  INCIDENT_SERVICES_MAX,
  INCIDENT_UPDATES_MAX,
  KEY_VALUES_MAX,
  LOCATIONS,
  ALERT_CHANNEL_SUBSCRIPTIONS_MAX,
  PRIVATE_LOCATIONS_MAX,
  SCRIPT_MAX_LENGTH,
  TAGS_MAX,
} from '@vigil/schema';
import { vigil } from '../support/cli.js';
import { generateProject } from '../support/generate-project.js';
import { SAMPLE_BODIES } from './samples.js';
import { TENANTS, send, startService, type Service } from './harness.js';

const KEY = TENANTS[0].apiKey;
let service: Service;
const scratch: string[] = [];

beforeAll(async () => {
  service = await startService();
});

afterAll(async () => {
  await service.server.close();
  await rm(service.dataDir, { recursive: true, force: true });
  for (const dir of scratch) await rm(dir, { recursive: true, force: true });
});

function variables(count: number): Array<{ key: string; value: string; locked: boolean; secret: boolean }> {
  return Array.from({ length: count }, (_, i) => ({ key: `VAR_${i}`, value: `value-${i}`, locked: false, secret: false }));
}

async function post(pathAndQuery: string, body: unknown): Promise<{ status: number; json: any }> {
  const reply = await send(service.server.url, 'POST', pathAndQuery, { apiKey: KEY, body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
  return { status: reply.status, json: reply.json };
}

const script = (length: number): string => `// ${'x'.repeat(length - 3)}`;
const strings = (count: number, prefix: string): string[] => Array.from({ length: count }, (_, i) => `${prefix}${i}`);
const keyValues = (count: number): Array<{ key: string; value: string }> => Array.from({ length: count }, (_, i) => ({ key: `k${i}`, value: `v${i}` }));
const assertions = (count: number): unknown[] => Array.from({ length: count }, () => ({ source: 'STATUS_CODE', comparison: 'EQUALS', target: '200' }));
const dependencies = (count: number): unknown[] => Array.from({ length: count }, (_, i) => ({ path: `lib/${i}.js`, content: '' }));
const apiCheck = SAMPLE_BODIES['checks.createApi'] as { request: Record<string, unknown> };
const withRequest = (extra: Record<string, unknown>): unknown => ({ ...apiCheck, request: { ...apiCheck.request, ...extra } });
const webhook = (extra: Record<string, unknown>): unknown => ({ type: 'WEBHOOK', config: { name: 'Hook', url: 'https://example.com/hook', ...extra } });
const API = '/v1/checks/api?autoAssignAlerts=false';
const MULTISTEP = '/v1/checks/multistep?autoAssignAlerts=false';
const GROUPS = '/v2/check-groups?autoAssignAlerts=false';

describe('the service at each limit and one past it', () => {
  const cases: Array<{ limit: string; path: string; atLimit: unknown; pastLimit: unknown; key: string }> = [
    {
      limit: `a ${SCRIPT_MAX_LENGTH}-character (1 MiB) multi-step script`,
      path: '/v1/checks/multistep?autoAssignAlerts=false',
      atLimit: { ...SAMPLE_BODIES['checks.createMultiStep'], script: script(SCRIPT_MAX_LENGTH) },
      pastLimit: { ...SAMPLE_BODIES['checks.createMultiStep'], script: script(SCRIPT_MAX_LENGTH + 1) },
      key: 'script',
    },
    {
      limit: `${ENVIRONMENT_VARIABLES_MAX} environment variables on a multi-step check`,
      path: '/v1/checks/multistep?autoAssignAlerts=false',
      atLimit: { ...SAMPLE_BODIES['checks.createMultiStep'], environmentVariables: variables(ENVIRONMENT_VARIABLES_MAX) },
      pastLimit: { ...SAMPLE_BODIES['checks.createMultiStep'], environmentVariables: variables(ENVIRONMENT_VARIABLES_MAX + 1) },
      key: 'environmentVariables',
    },
    {
      limit: `${ENVIRONMENT_VARIABLES_MAX} environment variables on a check group`,
      path: '/v2/check-groups?autoAssignAlerts=false',
      atLimit: { ...SAMPLE_BODIES['checkGroups.create'], environmentVariables: variables(ENVIRONMENT_VARIABLES_MAX) },
      pastLimit: { ...SAMPLE_BODIES['checkGroups.create'], environmentVariables: variables(ENVIRONMENT_VARIABLES_MAX + 1) },
      key: 'environmentVariables',
    },
    {
      limit: `a ${INCIDENT_NAME_MAX}-character incident name`,
      path: '/v1/status-pages/incidents',
      atLimit: { ...SAMPLE_BODIES['incidents.create'], name: 'n'.repeat(INCIDENT_NAME_MAX) },
      pastLimit: { ...SAMPLE_BODIES['incidents.create'], name: 'n'.repeat(INCIDENT_NAME_MAX + 1) },
      key: 'name',
    },
    // Arrays the spec leaves unbounded (a check with 400,000 tags was stored).
    ...(
      [
        ['tags', 'a check', API, SAMPLE_BODIES['checks.createApi'], (n: number) => ({ tags: strings(n, 't') }), TAGS_MAX],
        ['tags', 'a check group', GROUPS, SAMPLE_BODIES['checkGroups.create'], (n: number) => ({ tags: strings(n, 't') }), TAGS_MAX],
        ['tags', 'a maintenance window', '/v1/maintenance-windows', SAMPLE_BODIES['maintenanceWindows.create'], (n: number) => ({ tags: strings(n, 't') }), TAGS_MAX],
        ['locations', 'a check', API, SAMPLE_BODIES['checks.createApi'], (n: number) => ({ locations: [...LOCATIONS, ...LOCATIONS].slice(0, n) }), LOCATIONS.length],
        ['locations', 'a check group', GROUPS, SAMPLE_BODIES['checkGroups.create'], (n: number) => ({ locations: [...LOCATIONS, ...LOCATIONS].slice(0, n) }), LOCATIONS.length],
        ['privateLocations', 'a check', API, SAMPLE_BODIES['checks.createApi'], (n: number) => ({ privateLocations: strings(n, 'pl-') }), PRIVATE_LOCATIONS_MAX],
        ['request.headers', 'an API check', API, null, (n: number) => withRequest({ headers: keyValues(n) }), KEY_VALUES_MAX],
        ['request.queryParameters', 'an API check', API, null, (n: number) => withRequest({ queryParameters: keyValues(n) }), KEY_VALUES_MAX],
        ['request.assertions', 'an API check', API, null, (n: number) => withRequest({ assertions: assertions(n) }), ASSERTIONS_MAX],
        ['apiCheckDefaults.assertions', 'a check group', GROUPS, SAMPLE_BODIES['checkGroups.create'], (n: number) => ({ apiCheckDefaults: { assertions: assertions(n) } }), ASSERTIONS_MAX],
        ['apiCheckDefaults.headers', 'a check group', GROUPS, SAMPLE_BODIES['checkGroups.create'], (n: number) => ({ apiCheckDefaults: { headers: keyValues(n) } }), KEY_VALUES_MAX],
        ['dependencies', 'a multi-step check', MULTISTEP, SAMPLE_BODIES['checks.createMultiStep'], (n: number) => ({ dependencies: dependencies(n) }), DEPENDENCIES_MAX],
        ['config.headers', 'a webhook alert channel', '/v1/alert-channels', null, (n: number) => webhook({ headers: keyValues(n) }), KEY_VALUES_MAX],
        ['config.queryParameters', 'a webhook alert channel', '/v1/alert-channels', null, (n: number) => webhook({ queryParameters: keyValues(n) }), KEY_VALUES_MAX],
        ['incidentUpdates', 'a new incident', '/v1/status-pages/incidents', SAMPLE_BODIES['incidents.create'], (n: number) => ({ incidentUpdates: Array.from({ length: n }, () => ({ description: 'd', status: 'INVESTIGATING' })) }), INCIDENT_UPDATES_MAX],
      ] as const
    ).map(([key, owner, url, base, extra, max]) => ({
      limit: `${max} ${key} on ${owner}`,
      path: url,
      atLimit: { ...(base ?? {}), ...(extra(max) as object) },
      pastLimit: { ...(base ?? {}), ...(extra(max + 1) as object) },
      key,
    })),
  ];

  it.each(cases)('accepts $limit', async ({ path: url, atLimit }) => {
    const reply = await post(url, atLimit);
    expect(reply.status).toBe(201);
  });

  it.each(cases)('refuses one past $limit with 400 naming "$key"', async ({ path: url, pastLimit, key }) => {
    const reply = await post(url, pastLimit);
    expect(reply.status).toBe(400);
    expect(reply.json.validation).toEqual({ source: 'payload', keys: [key] });
  });
});

describe('the service past limits whose at-limit case needs other resources', () => {
  it.each([
    ['alertChannelSubscriptions', API, { ...SAMPLE_BODIES['checks.createApi'], alertChannelSubscriptions: Array.from({ length: ALERT_CHANNEL_SUBSCRIPTIONS_MAX + 1 }, (_, i) => ({ alertChannelId: i + 1, activated: true })) }],
    ['services', '/v1/status-pages/incidents', { ...SAMPLE_BODIES['incidents.create'], services: Array.from({ length: INCIDENT_SERVICES_MAX + 1 }, (_, i) => ({ id: `s${i}` })) }],
  ] as const)('refuses one past the limit of %s with 400 naming it', async (key, url, body) => {
    const reply = await post(url, body);
    expect(reply.status).toBe(400);
    expect(reply.json.validation).toEqual({ source: 'payload', keys: [key] });
  });

  it(`takes an Idempotency-Key of ${IDEMPOTENCY_KEY_MAX_LENGTH} characters and refuses a longer one before storing anything`, async () => {
    const withKey = (key: string) =>
      send(service.server.url, 'POST', '/v1/status-pages/services', {
        apiKey: KEY,
        body: JSON.stringify({ name: `Keyed ${key.length}` }),
        headers: { 'content-type': 'application/json', 'idempotency-key': key },
      });
    expect((await withKey('k'.repeat(IDEMPOTENCY_KEY_MAX_LENGTH))).status).toBe(200);
    const refused = await withKey('k'.repeat(IDEMPOTENCY_KEY_MAX_LENGTH + 1));
    expect(refused.status).toBe(400);
    expect(refused.json).toEqual({ statusCode: 400, error: 'Bad Request', message: `"Idempotency-Key" must be at most ${IDEMPOTENCY_KEY_MAX_LENGTH} characters long` });
  });

  it(`answers 409 to update number ${INCIDENT_UPDATES_MAX + 1} of one incident`, async () => {
    const services = await post('/v1/status-pages/services', SAMPLE_BODIES['statusPageServices.create']);
    const incident = await post('/v1/status-pages/incidents', {
      ...SAMPLE_BODIES['incidents.create'],
      services: [{ id: services.json.id }],
      incidentUpdates: Array.from({ length: INCIDENT_UPDATES_MAX - 1 }, () => ({ description: 'earlier', status: 'INVESTIGATING' })),
    });
    expect(incident.status).toBe(201);
    const last = await post(`/v1/status-pages/incidents/${incident.json.id}/incident-updates`, { description: 'the last one', status: 'IDENTIFIED' });
    expect(last.status).toBe(200);
    const past = await post(`/v1/status-pages/incidents/${incident.json.id}/incident-updates`, { description: 'one too many', status: 'IDENTIFIED' });
    expect(past.status).toBe(409);
    expect(past.json.message).toBe(`incident ${incident.json.id} already has ${INCIDENT_UPDATES_MAX} updates, the most one incident may have; open a new incident`);
  });
});

async function projectWith(monitor: string): Promise<string> {
  const root = await mkdtemp(path.join(tmpdir(), 'vigil-limits-'));
  scratch.push(root);
  await mkdir(path.join(root, 'monitors'), { recursive: true });
  await writeFile(path.join(root, 'vigil.config.ts'), "import { defineConfig } from 'vigil';\nexport default defineConfig({ projectName: 'limits', logicalId: 'limits' });\n");
  await writeFile(path.join(root, 'monitors', 'limit.monitor.ts'), monitor);
  return root;
}

function multiStepMonitor(options: { scriptLength: number; variables: number }): string {
  return [
    "import { MultiStepCheck } from 'vigil/constructs';",
    `const variables = Array.from({ length: ${options.variables} }, (_, i) => ({ key: 'VAR_' + i, value: 'v' + i }));`,
    "new MultiStepCheck('flow', {",
    "  name: 'Flow',",
    `  code: { content: '// ' + 'x'.repeat(${options.scriptLength - 3}) },`,
    '  environmentVariables: variables,',
    '});',
    '',
  ].join('\n');
}

describe('vigil validate at each construct limit and one past it', () => {
  it(`accepts a ${SCRIPT_MAX_LENGTH}-character script with ${ENVIRONMENT_VARIABLES_MAX} environment variables`, async () => {
    const root = await projectWith(multiStepMonitor({ scriptLength: SCRIPT_MAX_LENGTH, variables: ENVIRONMENT_VARIABLES_MAX }));
    const result = await vigil(['validate'], { cwd: root });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
  });

  it.each([
    // The construct takes the script as `code`, so that is the path the user is pointed at.
    ['a script one character past the limit', { scriptLength: SCRIPT_MAX_LENGTH + 1, variables: 1 }, '"code" length must be less than or equal to 1048576 characters long  (multistep-check.flow.code)'],
    ['one environment variable past the limit', { scriptLength: 100, variables: ENVIRONMENT_VARIABLES_MAX + 1 }, '(multistep-check.flow.environmentVariables)'],
  ] as const)('refuses %s with a diagnostic naming the field', async (_case, options, field) => {
    const root = await projectWith(multiStepMonitor(options));
    const result = await vigil(['validate'], { cwd: root });
    expect(result.code).toBe(1);
    expect(`${result.stdout}${result.stderr}`).toContain(field);
    expect(`${result.stdout}${result.stderr}`).toContain('monitors/limit.monitor.ts:3:1');
  });
});

describe('a 10,000-resource project', () => {
  it('validates', async () => {
    const root = await mkdtemp(path.join(tmpdir(), 'vigil-limits-10k-'));
    scratch.push(root);
    const project = await generateProject({ root, files: 100, checksPerFile: 99 });
    expect(project.addresses.length).toBeGreaterThanOrEqual(10_000);
    const result = await vigil(['validate'], { cwd: root });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
  }, 180_000);
});
