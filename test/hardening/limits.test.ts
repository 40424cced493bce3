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
import { ENVIRONMENT_VARIABLES_MAX, INCIDENT_NAME_MAX, SCRIPT_MAX_LENGTH } from '@vigil/schema';
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
