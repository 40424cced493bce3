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
