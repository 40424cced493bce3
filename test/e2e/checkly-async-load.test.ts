import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ChildProcess } from 'node:child_process';
import { startVigilServer, targetEnv, vigil } from '../support/cli.js';

/** A Checkly project whose check file makes one API check per endpoint file, in an fs.readdir callback. */
const FILES: Record<string, string> = {
  'checkly.config.ts': "import { defineConfig } from 'checkly'\n\nexport default defineConfig({ projectName: 'Endpoints', logicalId: 'endpoints' })\n",
  '__checks__/endpoints.check.ts': `import fs from 'node:fs'
import path from 'node:path'
import { ApiCheck } from 'checkly/constructs'

fs.readdir(path.join(__dirname, 'endpoints'), (error, files) => {
  if (error) throw new Error(\`no endpoints: \${error.code}\`)
  for (const file of files.sort()) {
    const name = file.replace('.json', '')
    new ApiCheck(\`endpoint-\${name}\`, { name, request: { method: 'GET', url: \`https://example.com/\${name}\` } })
  }
})
`,
  '__checks__/endpoints/orders.json': '{}',
  '__checks__/endpoints/users.json': '{}',
};

const roots: string[] = [];
function project(files: Record<string, string>): string {
  const root = mkdtempSync(path.join(os.tmpdir(), 'vigil-checkly-async-'));
  roots.push(root);
  for (const [file, contents] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), contents);
  }
  return root;
}

let server: { child: ChildProcess; url: string };
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'vigil-checkly-async-data-'));
beforeAll(async () => {
  server = await startVigilServer(['--no-scheduler', '--data', dataDir]);
});
afterAll(() => {
  server?.child.kill();
  rmSync(dataDir, { recursive: true, force: true });
});
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

describe('a Checkly project that creates checks asynchronously while it loads', () => {
  it('plans the checks an fs.readdir callback creates, as the Checkly CLI deploys them', async () => {
    const root = project(FILES);
    const run = await vigil(['plan'], { cwd: root, env: targetEnv(server.url) });
    expect(run.stderr).toBe('');
    expect(run.stdout).toContain('+ api-check.endpoint-orders');
    expect(run.stdout).toContain('+ api-check.endpoint-users');
    expect(run.stdout).toContain('Plan: 2 to add, 0 to change, 0 to destroy.');
    expect(run.code).toBe(0);
  });

  it('reports a throw in the callback at its line instead of crashing', async () => {
    const { '__checks__/endpoints/orders.json': _orders, '__checks__/endpoints/users.json': _users, ...files } = FILES;
    const root = project(files);
    const run = await vigil(['validate'], { cwd: root });
    expect(run.stdout.trim().split('\n')).toEqual(['__checks__/endpoints.check.ts:6:20  error  no endpoints: ENOENT', '1 error']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(1);
  });
});
