import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTempProjects } from './test-support/temp-projects.js';
import { loadProject } from './load-project.js';

const CHECKLY_CONFIG = [
  "import { defineConfig } from 'checkly';",
  '',
  "export default defineConfig({ projectName: 'Shop', logicalId: 'shop', checks: { checkMatch: '**/*.check.ts' } });",
  '',
].join('\n');

const project = useTempProjects('vigil-checkly-');

describe('loadProject of a Checkly project', () => {
  it('loads checkly.config.ts and checks importing from checkly and checkly/constructs unchanged', async () => {
    const root = project({
      'checkly.config.ts': CHECKLY_CONFIG,
      '__checks__/home.check.ts': [
        "import { ApiCheck, AssertionBuilder } from 'checkly/constructs';",
        '',
        "new ApiCheck('home', {",
        "  name: 'Home',",
        "  request: { method: 'GET', url: 'https://example.com', assertions: [AssertionBuilder.statusCode().equals(200)] },",
        '});',
        '',
      ].join('\n'),
    });
    const loaded = await loadProject({ cwd: path.join(root, '__checks__') });
    expect(loaded.diagnostics).toEqual([]);
    expect(loaded.configPath).toBe(path.join(root, 'checkly.config.ts'));
    expect(loaded.specs.map((spec) => spec.logicalId)).toEqual(['home']);
  });

  it('loads the files the Checkly CLI would, **/*.check.{js,ts}, when checkly.config.ts sets no checkMatch', async () => {
    const root = project({
      'checkly.config.ts': "import { defineConfig } from 'checkly';\n\nexport default defineConfig({ projectName: 'Shop', logicalId: 'shop' });\n",
      '__checks__/a.check.ts': "import { ApiCheck } from 'checkly/constructs';\n\nnew ApiCheck('a', { name: 'A', request: { method: 'GET', url: 'https://example.com/a' } });\n",
      '__checks__/b.check.js': "import { ApiCheck } from 'checkly/constructs';\n\nnew ApiCheck('b', { name: 'B', request: { method: 'GET', url: 'https://example.com/b' } });\n",
      'c.monitor.ts': "throw new Error('not a Checkly file');\n",
    });
    const loaded = await loadProject({ cwd: root });
    expect(loaded.diagnostics).toEqual([]);
    expect(loaded.files.map((file) => path.relative(root, file))).toEqual(['__checks__/a.check.ts', '__checks__/b.check.js']);
    expect(loaded.config?.checks?.checkMatch).toBe('**/*.check.{js,ts}');
  });

  it('reports every construct vigil lacks at its import, in every file, in one load', async () => {
    const root = project({
      'checkly.config.ts': CHECKLY_CONFIG,
      'a.check.ts': "import { AlertChannelSubscription, ApiCheck } from 'checkly/constructs';\n\nconsole.log(AlertChannelSubscription, ApiCheck);\n",
      'b.check.ts': "import { PrivateLocationCheckAssignment } from 'checkly/constructs';\nimport { PrivateLocationGroupAssignment } from 'checkly/constructs';\n\nconsole.log(PrivateLocationCheckAssignment, PrivateLocationGroupAssignment);\n",
    });
    const loaded = await loadProject({ cwd: root });
    const hint = (name: string) =>
      `"checkly/constructs" in vigil has no ${name}; remove it from this file (or keep it in Checkly). docs/migrating-from-checkly.md lists what vigil supports.`;
    expect(loaded.diagnostics).toEqual([
      { severity: 'error', message: '"AlertChannelSubscription" is not supported by vigil yet', hint: hint('AlertChannelSubscription'), source: { file: 'a.check.ts', line: 1, column: 10 } },
      { severity: 'error', message: '"PrivateLocationCheckAssignment" is not supported by vigil yet', hint: hint('PrivateLocationCheckAssignment'), source: { file: 'b.check.ts', line: 1, column: 10 } },
      { severity: 'error', message: '"PrivateLocationGroupAssignment" is not supported by vigil yet', hint: hint('PrivateLocationGroupAssignment'), source: { file: 'b.check.ts', line: 2, column: 10 } },
    ]);
  });

  it('reports a construct vigil lacks that is used through a namespace import at its use, and evaluates nothing', async () => {
    const root = project({
      'checkly.config.ts': CHECKLY_CONFIG,
      'a.check.ts': "import * as checkly from 'checkly/constructs';\n\nnew checkly.AlertChannelSubscription('ping', { name: 'Ping' });\n",
    });
    const loaded = await loadProject({ cwd: root });
    expect(loaded.diagnostics).toEqual([
      {
        severity: 'error',
        message: '"AlertChannelSubscription" is not supported by vigil yet',
        hint: '"checkly/constructs" in vigil has no AlertChannelSubscription; remove it from this file (or keep it in Checkly). docs/migrating-from-checkly.md lists what vigil supports.',
        source: { file: 'a.check.ts', line: 3, column: 13 },
      },
    ]);
  });

  it('reports a construct vigil lacks that a CommonJS file destructures from require() at its name there', async () => {
    const root = project({
      'package.json': JSON.stringify({ name: 'legacy', type: 'commonjs' }),
      'checkly.config.ts': CHECKLY_CONFIG.replace("'**/*.check.ts'", "'**/*.check.js'"),
      'a.check.js': "const { ApiCheck, AlertChannelSubscription } = require('checkly/constructs');\n\nnew AlertChannelSubscription('cert', { name: 'Cert' });\n",
    });
    const loaded = await loadProject({ cwd: root });
    expect(loaded.diagnostics).toEqual([
      {
        severity: 'error',
        message: '"AlertChannelSubscription" is not supported by vigil yet',
        hint: '"checkly/constructs" in vigil has no AlertChannelSubscription; remove it from this file (or keep it in Checkly). docs/migrating-from-checkly.md lists what vigil supports.',
        source: { file: 'a.check.js', line: 1, column: 19 },
      },
    ]);
  });

  it('reports a construct vigil lacks that a CommonJS file takes from the required module at the line that uses it', async () => {
    const root = project({
      'package.json': JSON.stringify({ name: 'legacy', type: 'commonjs' }),
      'checkly.config.ts': CHECKLY_CONFIG.replace("'**/*.check.ts'", "'**/*.check.js'"),
      'a.check.js': "const constructs = require('checkly/constructs');\n\nnew constructs.AlertChannelSubscription('cert', { name: 'Cert' });\n",
    });
    const loaded = await loadProject({ cwd: root });
    expect(loaded.diagnostics).toEqual([
      {
        severity: 'error',
        message: '"AlertChannelSubscription" is not supported by vigil yet',
        hint: 'vigil has no AlertChannelSubscription construct, so requiring it gave undefined; remove it from this file (or keep it in Checkly). docs/migrating-from-checkly.md lists what vigil supports.',
        source: { file: 'a.check.js', line: 3, column: 1 },
      },
    ]);
  });

  it('reports a name neither vigil nor Checkly exports as a missing export at its import', async () => {
    const root = project({
      'checkly.config.ts': CHECKLY_CONFIG,
      'a.check.ts': "import { ApiCheks } from 'vigil/constructs';\n\nconsole.log(ApiCheks);\n",
    });
    const loaded = await loadProject({ cwd: root });
    expect(loaded.diagnostics).toEqual([
      {
        severity: 'error',
        message: '"vigil/constructs" has no export named "ApiCheks"',
        hint: 'Check the spelling; docs/constructs.md lists every construct vigil exports.',
        source: { file: 'a.check.ts', line: 1, column: 10 },
      },
    ]);
  });

  it('reports a package that is not installed at the import in the user\'s file', async () => {
    const root = project({
      'checkly.config.ts': CHECKLY_CONFIG,
      'a.check.ts': "import { ApiCheck } from 'checkly/constructs';\nimport leftPad from 'left-pad';\n\nconsole.log(ApiCheck, leftPad);\n",
    });
    const loaded = await loadProject({ cwd: root });
    expect(loaded.diagnostics).toEqual([
      {
        severity: 'error',
        message: 'Cannot find package "left-pad" (imported as "left-pad"): it is not installed in node_modules of the project or a directory above it',
        hint: 'Install it in the project (npm install left-pad), or remove the import.',
        source: { file: 'a.check.ts', line: 2, column: 21 },
      },
    ]);
  });

  it('loads an installed package, a Node builtin and a tsconfig paths alias without complaint', async () => {
    const root = project({
      'checkly.config.ts': CHECKLY_CONFIG,
      'tsconfig.json': JSON.stringify({ compilerOptions: { baseUrl: '.', paths: { '@lib/*': ['lib/*'] } } }),
      'lib/urls.ts': "export const home = 'https://example.com';\n",
      'node_modules/@acme/pad/package.json': JSON.stringify({ name: '@acme/pad', type: 'module', exports: './index.js' }),
      'node_modules/@acme/pad/index.js': 'export const pad = (text) => text;\n',
      'a.check.ts': [
        "import path from 'node:path';",
        "import { pad } from '@acme/pad';",
        "import { home } from '@lib/urls';",
        "import { ApiCheck } from 'checkly/constructs';",
        '',
        "new ApiCheck(pad(path.basename('x/home')), { name: 'Home', request: { method: 'GET', url: home } });",
        '',
      ].join('\n'),
    });
    const loaded = await loadProject({ cwd: root });
    expect(loaded.diagnostics).toEqual([]);
    expect(loaded.specs.map((spec) => spec.logicalId)).toEqual(['home']);
  });
});
