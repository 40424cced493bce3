import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { fixtureConfig, REPO_ROOT, runVigil } from './cli-process.js';

describe('vigil validate', () => {
  const cases: Array<{ fixture: string; code: number; stdout: string[] }> = [
    {
      fixture: 'project',
      code: 0,
      stdout: ['✔ 5 resources valid'],
    },
    {
      fixture: 'ignored',
      code: 0,
      stdout: ['✔ 1 resource valid'],
    },
    {
      fixture: 'syntax-error',
      code: 1,
      stdout: ['checks/broken.monitor.ts:5:42  error  Expected identifier but found ","', '1 error'],
    },
    {
      fixture: 'thrown-error',
      code: 1,
      stdout: ['checks/throws.monitor.ts:4:9  error  no endpoint configured for payments', '1 error'],
    },
    {
      fixture: 'duplicate-ids',
      code: 1,
      stdout: [
        'checks/b.monitor.ts:4:1  error  duplicate logical id "home": another api-check with this id was created at checks/a.monitor.ts:3:1  (api-check.home)',
        '  hint: Logical ids must be unique per kind within a project; rename one of them.',
        '1 error',
      ],
    },
    {
      fixture: 'dangling-ref',
      code: 1,
      stdout: [
        'checks/orphan.monitor.ts:8:1  error  "group" refers to CheckGroupV2 "real", which is not registered in this project  (api-check.orphan.group)',
        '  hint: Create the referenced construct with `new` in a file vigil loads.',
        '1 error',
      ],
    },
    {
      fixture: 'cycle',
      code: 1,
      stdout: [
        'checks/linked.ts:4:1  error  dependency cycle: status-page-service.a -> status-page-service.b -> status-page-service.c -> status-page-service.a  (status-page-service.a)',
        '  hint: Resources are created in dependency order; remove one of these references.',
        '1 error',
      ],
    },
    {
      fixture: 'bad-jsonpath',
      code: 1,
      stdout: [
        'checks/orders.monitor.ts:3:1  error  the JSONPath "$.items[0.id" does not parse: unexpected "." at character 10  (api-check.orders.request.assertions[1].property)',
        `  hint: Write a JSONPath such as '$.items[0].id' or "$['a key']"; see docs/testing.md#assertions.`,
        '1 error',
      ],
    },
    {
      fixture: 'unknown-package',
      code: 1,
      stdout: [
        'checks/flow.spec.ts:2:21  error  "left-pad" is not available in the check runtime, so a check script cannot import it  (multistep-check.flow.code.entrypoint)',
        '  hint: Import only local files, Node built-ins and the runtime packages (@playwright/test, axios, lodash, moment, ...).',
        '1 error',
      ],
    },
  ];

  it.each(cases)('reports $fixture with exit code $code', async ({ fixture, code, stdout }) => {
    const run = await runVigil(['validate', '--config', fixtureConfig(fixture)]);
    expect({ code: run.code, stdout: run.stdout.split('\n').slice(0, -1), stderr: run.stderr }).toEqual({
      code,
      stdout,
      stderr: '',
    });
  });

  it('finds vigil.config.ts in the working directory when --config is not given', async () => {
    const run = await runVigil(['validate'], { cwd: path.join(REPO_ROOT, 'test/fixtures/project') });
    expect(run).toEqual({ code: 0, stdout: '✔ 5 resources valid\n', stderr: '' });
  });

  it('accepts --config before the command name, as a global option', async () => {
    const run = await runVigil(['--config', fixtureConfig('ignored'), 'validate']);
    expect(run).toEqual({ code: 0, stdout: '✔ 1 resource valid\n', stderr: '' });
  });

  it('fails with a plain error when the config file does not exist', async () => {
    const run = await runVigil(['validate', '--config', 'test/fixtures/nowhere/vigil.config.ts']);
    expect(run).toEqual({
      code: 1,
      stdout: '',
      stderr: `Error: config file not found: ${path.join(REPO_ROOT, 'test/fixtures/nowhere/vigil.config.ts')}\n`,
    });
  });

  it('refuses a config file with an extension it cannot load', async () => {
    const run = await runVigil(['validate', '--config', 'test/fixtures/project/tsconfig.json']);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      `Error: config file ${path.join(REPO_ROOT, 'test/fixtures/project/tsconfig.json')} must end in .ts, .mts, .cts, .js, .mjs, .cjs (got ".json")\n`,
    );
  });

  it('leaves no temporary bundles behind', async () => {
    await runVigil(['validate', '--config', fixtureConfig('thrown-error')]);
    expect(existsSync(path.join(REPO_ROOT, 'test/fixtures/thrown-error/.vigil/tmp'))).toBe(false);
  });
});
