/**
 * CommonJS user code: a config and monitor files that `require('vigil')` / `require('vigil/constructs')`
 * in a package that is not `"type": "module"`, as an existing repository may be written.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadProject } from './load-project.js';

let root: string;

const FILES: Record<string, string> = {
  'package.json': JSON.stringify({ name: 'legacy-monitors', type: 'commonjs' }),
  'vigil.config.js': [
    "const { defineConfig } = require('vigil');",
    'module.exports = defineConfig({',
    "  projectName: 'Legacy', logicalId: 'legacy',",
    "  checks: { checkMatch: ['**/*.monitor.js', '**/*.monitor.cjs'], frequency: 10, locations: ['eu-west-1'] },",
    '});',
  ].join('\n'),
  'checks/api.monitor.js': [
    "const { ApiCheck, CheckGroupV2 } = require('vigil/constructs');",
    "const group = new CheckGroupV2('legacy', { name: 'Legacy' });",
    "new ApiCheck('home', { name: 'Home', group, request: { url: 'https://example.com/' } });",
    'module.exports = { group };',
  ].join('\n'),
  'checks/search.monitor.cjs': [
    "const constructs = require('@vigil/constructs');",
    "const { group } = require('./api.monitor.js');",
    '',
    "new constructs.ApiCheck('search', { name: 'Search', group, request: { url: 'https://example.com/search' } });",
  ].join('\n'),
};

beforeAll(() => {
  root = mkdtempSync(path.join(os.tmpdir(), 'vigil-commonjs-'));
  for (const [file, contents] of Object.entries(FILES)) {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), `${contents}\n`);
  }
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('a CommonJS project', () => {
  it('loads a config that assigns module.exports and monitors that require the constructs, found from a subdirectory', async () => {
    const loaded = await loadProject({ cwd: path.join(root, 'checks') });
    expect(loaded.diagnostics).toEqual([]);
    expect(loaded.configPath).toBe(path.join(root, 'vigil.config.js'));
    expect(loaded.config?.projectName).toBe('Legacy');
    expect(loaded.specs.map((spec) => spec.address).sort()).toEqual(['api-check.home', 'api-check.search', 'check-group.legacy']);
  });

  it('locates a construct of a required file at its own file and line', async () => {
    const loaded = await loadProject({ cwd: root });
    expect(loaded.specs.find((spec) => spec.address === 'api-check.search')?.source).toMatchObject({
      file: 'checks/search.monitor.cjs',
      line: 4,
    });
  });
});

describe('a CommonJS Checkly project', () => {
  it('names every construct vigil lacks that any file requires, at its name, in one load', async () => {
    const checkly = mkdtempSync(path.join(os.tmpdir(), 'vigil-commonjs-checkly-'));
    try {
      const files: Record<string, string> = {
        'package.json': JSON.stringify({ name: 'checkly-js', type: 'commonjs' }),
        'checkly.config.js': "const { defineConfig } = require('checkly');\nmodule.exports = defineConfig({ projectName: 'P', logicalId: 'p' });\n",
        '__checks__/ping.check.js': "const { AlertChannelSubscription, ApiCheck } = require('checkly/constructs');\n\nnew AlertChannelSubscription('ping', { name: 'Ping' });\n",
        '__checks__/alerts.check.js': "const {\n  EmailAlertChannel,\n  PrivateLocationGroupAssignment: Assign,\n  Nonsense,\n} = require('checkly/constructs');\n",
      };
      for (const [file, contents] of Object.entries(files)) {
        mkdirSync(path.dirname(path.join(checkly, file)), { recursive: true });
        writeFileSync(path.join(checkly, file), contents);
      }
      const loaded = await loadProject({ cwd: checkly });
      expect(loaded.diagnostics.map((d) => `${d.source?.file}:${d.source?.line}:${d.source?.column} ${d.message}`)).toEqual([
        '__checks__/alerts.check.js:3:3 "PrivateLocationGroupAssignment" is not supported by vigil yet',
        '__checks__/alerts.check.js:4:3 "checkly/constructs" has no export named "Nonsense"',
        '__checks__/ping.check.js:1:9 "AlertChannelSubscription" is not supported by vigil yet',
      ]);
    } finally {
      rmSync(checkly, { recursive: true, force: true });
    }
  });
});
