import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { loadProject } from './load-project.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, '../../../..');

/**
 * Lines and columns that only come out right through the source maps: type-only lines that the
 * bundle drops, indented calls, a user subclass, a factory in a local file, a file whose
 * `__dirname` goes through the extra transform (two source maps composed), and a construct made by
 * a helper whose path marks it as part of the constructs package (the caller's line is reported).
 */
const FILES: Record<string, string> = {
  'vigil.config.ts': "import { defineConfig } from 'vigil';\n\nexport default defineConfig({ projectName: 'Locations', logicalId: 'locations' });\n",
  'lib/factory.ts': [
    "import { ApiCheck } from 'vigil/constructs';",
    '',
    'export function makeCheck(id: string): ApiCheck {',
    "  const url: string = 'https://example.com/' + id;",
    '  return new ApiCheck(id, { name: id, request: { url } });',
    '}',
    '',
  ].join('\n'),
  // Where a bundled second copy of the constructs would live: its frames are not the user's.
  'vendor/packages/constructs/src/helper.ts': [
    "import { ApiCheck } from 'vigil/constructs';",
    '',
    'export function makeInternally(id: string): ApiCheck {',
    "  return new ApiCheck(id, { name: id, request: { url: 'https://example.com/' + id } });",
    '}',
    '',
  ].join('\n'),
  'checks/types.monitor.ts': [
    "import { ApiCheck } from 'vigil/constructs';",
    "import { makeCheck } from '../lib/factory';",
    '',
    'interface Endpoint {',
    '  path: string;',
    '}',
    '',
    "const endpoints: Endpoint[] = [{ path: 'a' }, { path: 'b' }];",
    '',
    "export const first = new ApiCheck('first', { name: 'First', request: { url: 'https://example.com/first' } });",
    'for (const endpoint of endpoints) {',
    "  new ApiCheck(`loop-${endpoint.path}`, { name: endpoint.path, request: { url: 'https://example.com/' + endpoint.path } });",
    '}',
    '',
    'class PingCheck extends ApiCheck {',
    '  constructor(id: string) {',
    "    super(id, { name: id, request: { url: 'https://example.com/ping' } });",
    '  }',
    '}',
    "type Id = 'ping';",
    "const id: Id = 'ping';",
    '    new PingCheck(id);',
    "makeCheck('made');",
    "new ApiCheck('bad', { name: 'Bad', frequency: 7 as never, request: { url: 'https://example.com/bad' } });",
    "import { makeInternally } from '../vendor/packages/constructs/src/helper';",
    "  makeInternally('helped');",
    '',
  ].join('\n'),
  'checks/dirname.monitor.ts': [
    "import path from 'node:path';",
    "import { ApiCheck } from 'vigil/constructs';",
    '',
    'type Name = string;',
    'const name: Name = path.basename(__dirname);',
    "      export const check = new ApiCheck('dirname', { name, request: { url: 'https://example.com/' + name } });",
    '',
  ].join('\n'),
};

const EXPECTED_CONSTRUCTS = [
  ['api-check.dirname', { file: 'checks/dirname.monitor.ts', line: 6, column: 28 }],
  ['api-check.first', { file: 'checks/types.monitor.ts', line: 10, column: 22 }],
  ['api-check.loop-a', { file: 'checks/types.monitor.ts', line: 12, column: 3 }],
  ['api-check.loop-b', { file: 'checks/types.monitor.ts', line: 12, column: 3 }],
  ['api-check.ping', { file: 'checks/types.monitor.ts', line: 22, column: 5 }],
  ['api-check.made', { file: 'lib/factory.ts', line: 5, column: 10 }],
  ['api-check.bad', { file: 'checks/types.monitor.ts', line: 24, column: 1 }],
  ['api-check.helped', { file: 'checks/types.monitor.ts', line: 26, column: 3 }],
];

const EXPECTED_DIAGNOSTICS = [
  {
    severity: 'error',
    message: expect.stringContaining('"frequency"'),
    hint: 'Use a Frequency builder, e.g. `frequency: Frequency.EVERY_5M`.',
    address: 'api-check.bad',
    path: 'frequency',
    source: { file: 'checks/types.monitor.ts', line: 24, column: 1 },
  },
];

const root = mkdtempSync(path.join(os.tmpdir(), 'vigil-locations-'));
for (const [file, contents] of Object.entries(FILES)) {
  mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
  writeFileSync(path.join(root, file), contents);
}
afterAll(() => rmSync(root, { recursive: true, force: true }));

function loadInChildProcess(): Promise<{ stackFormatter?: string; pendingAfterLoad: unknown; constructs: unknown; diagnostics: unknown }> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', path.join(here, '__fixtures__/print-locations.ts'), root],
      { cwd: repoRoot },
      (error, stdout, stderr) => (error ? reject(new Error(stderr || error.message)) : resolve(JSON.parse(stdout))),
    );
  });
}

describe('source locations of constructs and diagnostics', () => {
  it("are the user's file:line:col when Node formats stacks (the CLI)", async () => {
    const printed = await loadInChildProcess();
    expect(printed.stackFormatter).toBe('ErrorPrepareStackTrace');
    // Locations are worked out only when read, even the diagnostic's (when it is printed).
    expect(printed.pendingAfterLoad).toEqual(EXPECTED_CONSTRUCTS.map(([address]) => address));
    expect(printed.constructs).toEqual(EXPECTED_CONSTRUCTS);
    expect(printed.diagnostics).toEqual(EXPECTED_DIAGNOSTICS);
  }, 30_000);

  it('are the same when another stack formatter is installed (the test runner)', async () => {
    expect(Error.prepareStackTrace?.name).not.toBe('ErrorPrepareStackTrace');
    const loaded = await loadProject({ cwd: root });
    const constructs = loaded.project.constructs().map((construct) => [construct.address, { ...construct.source, file: path.relative(root, construct.source.file) }]);
    expect(constructs).toEqual(EXPECTED_CONSTRUCTS);
    expect(loaded.diagnostics).toEqual(EXPECTED_DIAGNOSTICS);
  });
});
