/**
 * Check scripts are bundled and uploaded to the monitoring service, so nothing outside the project
 * root may end up in one: `entrypoint: '/etc/hostname'` used to validate, and the file's content
 * appeared in `vigil synth`. Entrypoints and the files they import must lie inside the root or a
 * directory `checks.allowedScriptDirectories` lists.
 */
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { vigil } from '../support/cli.js';

let outside: string;
let root: string;
let secretFile: string;

const config = (checks: string) => `import { defineConfig } from 'vigil';\nexport default defineConfig({ projectName: 'shop', logicalId: 'shop'${checks} });\n`;

beforeAll(async () => {
  outside = await mkdtemp(path.join(tmpdir(), 'vigil-scripts-'));
  root = path.join(outside, 'app');
  await mkdir(path.join(root, 'checks'), { recursive: true });
  await mkdir(path.join(outside, 'shared'));
  secretFile = path.join(outside, 'secret.txt');
  await writeFile(secretFile, "console.log('the content of a file outside the project');\n");
  await writeFile(path.join(outside, 'shared', 'helper.ts'), 'export const helper = 1;\n');
  await writeFile(path.join(outside, 'shared', 'flow.spec.ts'), "console.log('shared flow');\n");
  await symlink(secretFile, path.join(root, 'checks', 'link.spec.ts'));
  await writeFile(path.join(root, 'checks', 'imports.spec.ts'), "import { helper } from '../../shared/helper';\nconsole.log(helper);\n");
  await writeFile(
    path.join(root, 'checks', 'flows.monitor.ts'),
    [
      "import { ApiCheck, MultiStepCheck } from 'vigil/constructs';",
      `new MultiStepCheck('absolute', { name: 'Absolute', code: { entrypoint: ${JSON.stringify(secretFile)} } });`,
      "new MultiStepCheck('climbing', { name: 'Climbing', code: { entrypoint: '../../shared/flow.spec.ts' } });",
      "new MultiStepCheck('linked', { name: 'Linked', code: { entrypoint: './link.spec.ts' } });",
      "new MultiStepCheck('importing', { name: 'Importing', code: { entrypoint: './imports.spec.ts' } });",
      "new ApiCheck('setup', { name: 'Setup', request: { url: 'https://example.com/' }, setupScript: { entrypoint: '../../shared/flow.spec.ts' } });",
      '',
    ].join('\n'),
  );
});

afterAll(async () => {
  await rm(outside, { recursive: true, force: true });
});

describe('check script files outside the project root', () => {
  it('are refused at the construct (entrypoints) or the import (imported files), and never bundled', async () => {
    await writeFile(path.join(root, 'vigil.config.ts'), config(''));
    const hint = `  hint: Check scripts are bundled and uploaded to the monitoring service, so their files must be inside the project root (${root}) or a directory listed in checks.allowedScriptDirectories of the config.`;
    const result = await vigil(['synth'], { cwd: root });
    expect(result).toEqual({
      code: 1,
      signal: null,
      stdout: [
        `checks/flows.monitor.ts:2:1  error  "code.entrypoint" (${secretFile}) is outside the project root, so it cannot be bundled into the check  (multistep-check.absolute.code.entrypoint)`,
        hint,
        `checks/flows.monitor.ts:3:1  error  "code.entrypoint" (${path.join(outside, 'shared', 'flow.spec.ts')}) is outside the project root, so it cannot be bundled into the check  (multistep-check.climbing.code.entrypoint)`,
        hint,
        `checks/flows.monitor.ts:4:1  error  "code.entrypoint" (checks/link.spec.ts -> ${secretFile}) is outside the project root, so it cannot be bundled into the check  (multistep-check.linked.code.entrypoint)`,
        hint,
        `checks/flows.monitor.ts:6:1  error  "setupScript.entrypoint" (${path.join(outside, 'shared', 'flow.spec.ts')}) is outside the project root, so it cannot be bundled into the check  (api-check.setup.setupScript.entrypoint)`,
        hint,
        `checks/imports.spec.ts:1:24  error  "../../shared/helper" resolves to ${path.join(outside, 'shared', 'helper.ts')}, outside the project root, so a check script cannot import it  (multistep-check.importing.code.entrypoint)`,
        hint,
        '5 errors',
        '',
      ].join('\n'),
      stderr: '',
    });
    expect(result.stdout).not.toContain('the content of a file outside the project');
  });

  it('are bundled from a directory listed in checks.allowedScriptDirectories, and only from there', async () => {
    await writeFile(path.join(root, 'vigil.config.ts'), config(", checks: { allowedScriptDirectories: ['../shared'] }"));
    const result = await vigil(['synth', '--json'], { cwd: root });
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('multistep-check.absolute.code.entrypoint');
    expect(result.stdout).toContain('multistep-check.linked.code.entrypoint');
    expect(result.stdout).not.toContain('climbing');
    expect(result.stdout).not.toContain('importing');
    expect(result.stdout).not.toContain('api-check.setup');

    await writeFile(path.join(root, 'checks', 'flows.monitor.ts'), (await readFile(path.join(root, 'checks', 'flows.monitor.ts'), 'utf8')).split('\n').filter((line) => !/absolute|linked/.test(line)).join('\n'));
    const synth = await vigil(['synth', '--json'], { cwd: root });
    expect(synth.stderr).toBe('');
    const document = JSON.parse(synth.stdout) as { resources: Array<{ address: string; payload: Record<string, unknown> }> };
    const climbing = document.resources.find((resource) => resource.address === 'multistep-check.climbing');
    expect(climbing?.payload['script']).toContain('console.log("shared flow");');
  }, 90_000);
});
