import { describe, expect, it } from 'vitest';
import { fixtureConfig, runVigil } from './cli-process.js';

describe('vigil synth', () => {
  it('prints the graph as stable JSON: dependency order, edges, secrets masked', async () => {
    const run = await runVigil(['synth', '--json', '--config', fixtureConfig('project')]);
    expect(run.code).toBe(0);
    expect(run.stderr).toBe('');
    const document = JSON.parse(run.stdout);
    expect(document.formatVersion).toBe(1);
    expect(document.project).toEqual({ projectName: 'Loader fixture', logicalId: 'loader-fixture' });
    expect(document.resources.map((resource: { address: string; dependsOn: string[] }) => [resource.address, resource.dependsOn])).toEqual([
      ['alert-channel.oncall', []],
      ['check-group.web', ['alert-channel.oncall']],
      ['api-check.home', ['check-group.web']],
      ['api-check.login', ['check-group.web']],
      ['multistep-check.checkout', ['check-group.web']],
    ]);
    expect(document.edges).toEqual([
      { from: 'check-group.web', to: 'alert-channel.oncall', path: 'alertChannelSubscriptions[0].alertChannelId' },
      { from: 'api-check.home', to: 'check-group.web', path: 'groupId' },
      { from: 'api-check.login', to: 'check-group.web', path: 'groupId' },
      { from: 'multistep-check.checkout', to: 'check-group.web', path: 'groupId' },
    ]);
    const oncall = document.resources[0];
    expect(oncall.source).toEqual({ file: 'shared/groups.ts', line: 3, column: 23 });
    expect(oncall.secrets).toEqual(['config.apiKey']);
    expect(oncall.payload.config.apiKey).toBe('(sensitive)');
    expect(run.stdout).not.toContain('opsgenie-key-123');
    const home = document.resources[2];
    expect(home.source).toEqual({ file: 'checks/home.monitor.ts', line: 4, column: 1 });
    expect(home.payload.groupId).toEqual({ $ref: 'check-group.web' });
    const login = document.resources[3];
    expect(login.payload.localSetupScript).toContain('randomUUID()');
    expect(login.payload.localSetupScript).toContain('require("node:crypto")');
    expect(document.diagnostics).toEqual([]);
  });

  it('prints each resource with its source and dependencies, then a count', async () => {
    const run = await runVigil(['synth', '--config', fixtureConfig('project')]);
    expect(run.code).toBe(0);
    const lines = run.stdout.split('\n');
    expect(lines.filter((line) => /^\S/.test(line))).toEqual([
      'alert-channel.oncall  (shared/groups.ts:3:23)',
      'check-group.web  (shared/groups.ts:10:25)',
      'api-check.home  (checks/home.monitor.ts:4:1)',
      'api-check.login  (checks/deep/nested/login.monitor.ts:4:1)',
      'multistep-check.checkout  (checks/flows/checkout.monitor.ts:8:1)',
      '5 resources, 4 edges',
    ]);
    expect(lines).toContain('  groupId -> check-group.web');
    expect(lines).toContain('      "apiKey": "(sensitive)",');
  });

  it('prints diagnostics instead of a graph, and exits 1, when the project has errors', async () => {
    const run = await runVigil(['synth', '--json', '--config', fixtureConfig('thrown-error')]);
    expect(run).toEqual({
      code: 1,
      stdout: 'checks/throws.monitor.ts:4:9  error  no endpoint configured for payments\n1 error\n',
      stderr: '',
    });
  });
});
