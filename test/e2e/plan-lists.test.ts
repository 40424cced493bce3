/**
 * A list edited in code plans as the elements inserted and removed (matched by content, key or
 * value), in every plan format, and the plan after applying it is empty.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { planSchema } from '@vigil/engine';
import { startServer, type RunningServer } from '@vigil/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { targetEnv, vigil } from '../support/cli.js';

let root: string;
let server: RunningServer;

function monitor(version: 'before' | 'after'): string {
  const after = version === 'after';
  return [
    "import { ApiCheck, AssertionBuilder, MultiStepCheck } from 'vigil/constructs';",
    "new MultiStepCheck('flow', {",
    "  name: 'Flow',",
    "  code: { content: 'run()' },",
    '  environmentVariables: [',
    after ? "    { key: 'REGION', value: 'eu' }," : '',
    "    { key: 'TOKEN', value: 'hunter2', secret: true },",
    '  ],',
    '});',
    "new ApiCheck('home', {",
    "  name: 'Home',",
    `  locations: ${after ? "['eu-west-1', 'us-east-1', 'eu-central-1']" : "['eu-west-1', 'us-east-1']"},`,
    '  request: {',
    "    url: 'https://example.com/',",
    `    headers: [${after ? "{ key: 'X-Trace', value: '1' }, " : ''}{ key: 'Accept', value: 'application/json' }, { key: 'User-Agent', value: 'vigil' }],`,
    '    assertions: [',
    '      AssertionBuilder.statusCode().equals(200),',
    after ? "      AssertionBuilder.jsonBody('$.ok').equals('true')," : '',
    '      AssertionBuilder.responseTime().lessThan(1000),',
    "      AssertionBuilder.textBody().contains('welcome'),",
    "      AssertionBuilder.headers('content-type').contains('json'),",
    '    ],',
    '  },',
    '});',
  ]
    .filter((line) => line !== '')
    .join('\n');
}

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'vigil-plan-lists-'));
  server = await startServer({ port: 0, dataDir: ':memory:' });
  await writeFile(path.join(root, 'vigil.config.ts'), "import { defineConfig } from 'vigil';\nexport default defineConfig({ projectName: 'shop', logicalId: 'shop' });\n");
  await mkdir(path.join(root, 'monitors'));
  await writeFile(path.join(root, 'monitors', 'home.monitor.ts'), monitor('before'));
});

afterAll(async () => {
  await server.close();
  await rm(root, { recursive: true, force: true });
});

const run = (args: string[]) => vigil(args, { cwd: root, env: targetEnv(server.url) });

describe('a plan of edited lists', () => {
  it('shows each inserted element once, at its new index, and applies to an empty plan', async () => {
    const first = await run(['apply', '--auto-approve']);
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    await writeFile(path.join(root, 'monitors', 'home.monitor.ts'), monitor('after'));

    const json = await run(['plan', '--json']);
    expect(json.stderr).toBe('');
    const plan = planSchema.parse(JSON.parse(json.stdout));
    expect(plan.changes.map((change) => [change.address, change.action])).toEqual([
      ['api-check.home', 'update'],
      ['multistep-check.flow', 'update'],
    ]);
    expect(plan.changes[1]!.diff).toEqual([{ path: 'environmentVariables[0]', after: { key: 'REGION', value: 'eu', locked: false, secret: false } }]);
    expect(plan.changes[0]!.diff).toEqual([
      { path: 'locations[0]', after: 'eu-central-1' },
      { path: 'request.assertions[1]', after: { source: 'JSON_BODY', comparison: 'EQUALS', property: '$.ok', target: 'true', regex: null } },
      { path: 'request.headers[0]', after: { key: 'X-Trace', value: '1', locked: false } },
    ]);
    expect(plan.changes.flatMap((change) => change.drift)).toEqual([]);

    const text = await run(['plan']);
    expect(text.stdout).toContain(
      [
        '      + locations[0]          = "eu-central-1"',
        '      + request.assertions[1] = {"source":"JSON_BODY","comparison":"EQUALS","property":"$.ok","target":"true","regex":null}',
        '      + request.headers[0]    = {"key":"X-Trace","value":"1","locked":false}',
        '',
        '  # multistep-check.flow will be updated in place',
      ].join('\n'),
    );
    expect(text.stdout).toContain(
      [
        '      + environmentVariables[0] = {"key":"REGION","value":"eu","locked":false,"secret":false}',
        '',
        'Plan: 0 to add, 2 to change, 0 to destroy.',
      ].join('\n'),
    );
    const markdown = await run(['plan', '--format', 'markdown']);
    expect(markdown.stdout).toContain('+ request.headers[0]    = {"key":"X-Trace","value":"1","locked":false}\n');
    expect(text.stdout + markdown.stdout + json.stdout).not.toContain('hunter2');

    const applied = await run(['apply', '--auto-approve']);
    expect(applied.stderr).toBe('');
    expect(applied.code).toBe(0);
    const after = await run(['plan', '--detailed-exitcode']);
    expect(after.stdout).toContain('No changes. Your monitoring matches the code.');
    expect(after.code).toBe(0);
  });
});
