/**
 * `vigil test` as a user runs it: the real CLI, a project on disk, and real loopback HTTP targets.
 */
import { mkdtemp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { vigil } from '../support/cli.js';

const SECRET = 's3cr3t-token-value';

let target: Server;
let base: string;
let project: string;

/** The loopback service the checks test. */
function startTarget(): Promise<Server> {
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://target');
    if (url.pathname === '/ok') {
      response.writeHead(200, { 'content-type': 'application/json', 'x-team': String(request.headers['x-team'] ?? '') });
      response.end(JSON.stringify({ status: 'ok', items: [{ id: 1 }] }));
    } else if (url.pathname === '/broken') {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ status: 'degraded', detail: 'database \u001b[31mdown' }));
    } else if (url.pathname === '/banner') {
      response.writeHead(200, { 'content-type': 'text/plain' });
      response.end('maintenance \u001b]0;pwned\u0007\u001b[31mbanner');
    } else if (url.pathname === '/echo') {
      // Echoes what it was sent, as a careless service does: secrets must still not reach output.
      response.writeHead(500, { 'content-type': 'text/plain' });
      response.end(`you sent authorization=${request.headers.authorization ?? ''}`);
    } else if (url.pathname === '/hang') {
      // Never answers; the run must end at maxResponseTime.
    } else {
      response.writeHead(404).end('not found');
    }
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

async function writeProject(root: string): Promise<void> {
  await mkdir(path.join(root, 'checks'), { recursive: true });
  await writeFile(
    path.join(root, 'vigil.config.ts'),
    `import { defineConfig } from 'vigil';\nexport default defineConfig({ projectName: 'Test', logicalId: 'test', checks: { locations: ['eu-west-1'] } });\n`,
  );
  await writeFile(
    path.join(root, 'checks', 'api.monitor.ts'),
    `import { ApiCheck, AssertionBuilder, CheckGroupV2, RetryStrategyBuilder } from 'vigil/constructs';

const group = new CheckGroupV2('svc', {
  name: 'Service',
  apiCheckDefaults: { url: '{{TARGET}}', headers: [{ key: 'x-team', value: 'payments' }] },
});

new ApiCheck('healthy', {
  name: 'Healthy endpoint',
  group,
  tags: ['api', 'smoke'],
  request: {
    url: '{{GROUP_BASE_URL}}/ok',
    assertions: [
      AssertionBuilder.statusCode().equals(200),
      AssertionBuilder.jsonBody('$.status').equals('ok'),
      AssertionBuilder.headers('x-team').equals('payments'),
    ],
  },
  retryStrategy: RetryStrategyBuilder.noRetries(),
});

new ApiCheck('broken', {
  name: 'Broken endpoint',
  tags: ['api'],
  request: { url: '{{TARGET}}/broken', assertions: [AssertionBuilder.jsonBody('$.status').equals('ok')] },
  retryStrategy: RetryStrategyBuilder.noRetries(),
});

const secure = new CheckGroupV2('secure', { name: 'Secure', environmentVariables: [{ key: 'TOKEN', value: '${SECRET}', secret: true }] });
new ApiCheck('echo', {
  name: 'Echoing endpoint',
  group: secure,
  tags: ['leaky'],
  request: { url: '{{TARGET}}/echo', headers: [{ key: 'authorization', value: 'Bearer {{TOKEN}}' }] },
  retryStrategy: RetryStrategyBuilder.noRetries(),
});

new ApiCheck('hangs', {
  name: 'Hanging endpoint',
  tags: ['slow'],
  request: { url: '{{TARGET}}/hang' },
  maxResponseTime: 1000,
  degradedResponseTime: 500,
  retryStrategy: RetryStrategyBuilder.noRetries(),
});

new ApiCheck('preview-only', {
  name: 'Preview only',
  testOnly: true,
  tags: ['smoke'],
  request: { url: '{{TARGET}}/ok', assertions: [AssertionBuilder.statusCode().equals(200)] },
  retryStrategy: RetryStrategyBuilder.noRetries(),
});

new ApiCheck('banner', {
  name: 'Banner page',
  tags: ['terminal'],
  request: { url: '{{TARGET}}/banner', assertions: [AssertionBuilder.textBody().contains('welcome')] },
  retryStrategy: RetryStrategyBuilder.noRetries(),
});
`,
  );
}

const run = (args: string[], env: Record<string, string> = {}) => vigil(['test', ...args], { cwd: project, env });
const withTarget = (args: string[]) => run([...args, '-e', `TARGET=${base}`]);

beforeAll(async () => {
  target = await startTarget();
  base = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
  project = await mkdtemp(path.join(tmpdir(), 'vigil-test-cmd-'));
  await writeProject(project);
});

afterAll(async () => {
  target.closeAllConnections();
  await new Promise((resolve) => target.close(resolve));
  await rm(project, { recursive: true, force: true });
});

describe('vigil test', () => {
  it('lists the runs it would make, testOnly checks included, without running anything', async () => {
    const result = await run(['--list']);
    expect(result.code).toBe(0);
    expect(result.stdout.split('\n')).toEqual([
      'api-check.healthy  Healthy endpoint  API  [eu-west-1]  checks/api.monitor.ts:8:1',
      'api-check.broken  Broken endpoint  API  [eu-west-1]  checks/api.monitor.ts:23:1',
      'api-check.echo  Echoing endpoint  API  [eu-west-1]  checks/api.monitor.ts:31:1',
      'api-check.hangs  Hanging endpoint  API  [eu-west-1]  checks/api.monitor.ts:39:1',
      'api-check.preview-only  Preview only  API  [eu-west-1]  checks/api.monitor.ts:48:1',
      'api-check.banner  Banner page  API  [eu-west-1]  checks/api.monitor.ts:56:1',
      '6 runs',
      '',
    ]);
  });

  it('passes a check whose assertions hold, with the group base URL and headers merged in', async () => {
    const result = await withTarget(['healthy', '--reporter', 'ci']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^✔ api-check\.healthy {2}Healthy endpoint {2}\[eu-west-1\] {2}\d+ ms\n/);
    expect(result.stdout).toMatch(/1 run: 1 passed, 0 failed \(\d+\.\d s\)\n$/);
  });

  it('fails with the failed assertion, the actual value, the request and a body excerpt; exit 1', async () => {
    const result = await withTarget(['broken']);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('✖ api-check.broken  Broken endpoint  [eu-west-1]');
    expect(result.stdout).toContain('    at checks/api.monitor.ts:23:1\n');
    expect(result.stdout).toContain('    error: assertion failed: JSON_BODY $.status EQUALS "ok": actual "degraded"\n');
    expect(result.stdout).toContain('      ✖ JSON_BODY $.status EQUALS ok  (actual: "degraded")\n');
    expect(result.stdout).toContain(`    request: GET ${base}/broken\n`);
    expect(result.stdout).toContain('    response: 200 OK\n');
    expect(result.stdout).toContain('      {"status":"degraded","detail":"database \\u001b[31mdown"}\n');
    expect(result.stdout).not.toContain('\u001b');
    expect(result.stdout).toMatch(/timings: dns \d+ ms · tcp \d+ ms · first byte \d+ ms · download \d+ ms · total \d+ ms/);
  });

  it('shows control characters a target sent instead of sending them to the terminal', async () => {
    const result = await withTarget(['banner']);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('      maintenance \\u001b]0;pwned\\u0007\\u001b[31mbanner\n');
    expect(result.stdout).not.toMatch(/[\u0007\u001b]/);
  });

  it('never prints a secret variable, even when the target echoes it', async () => {
    const result = await withTarget(['echo', '--reporter', 'json']);
    expect(result.code).toBe(1);
    expect(result.stdout + result.stderr).not.toContain(SECRET);
    const document = JSON.parse(result.stdout);
    expect(document.results[0].result.apiCheckResult.response.body).toContain('*****');
  });

  it('aborts a hanging target at maxResponseTime without holding up the other runs', async () => {
    const result = await withTarget(['--tags', 'slow', '--tags', 'smoke', '--reporter', 'json']);
    const document = JSON.parse(result.stdout);
    const byId = Object.fromEntries(document.results.map((item: { logicalId: string }) => [item.logicalId, item]));
    expect(Object.keys(byId).sort()).toEqual(['hangs', 'healthy', 'preview-only']);
    expect(byId.hangs).toMatchObject({ passed: false, overMaxResponseTime: true });
    expect(byId.healthy).toMatchObject({ passed: true, attempts: 1 });
    expect(document.summary).toMatchObject({ total: 3, passed: 2, failed: 1, skipped: 0 });
    expect(result.code).toBe(1);
  });

  it('writes JUnit XML', async () => {
    const result = await withTarget(['healthy', 'broken', '--reporter', 'junit']);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('<testsuites name="vigil test" tests="2" failures="1" skipped="0"');
    expect(result.stdout).toContain('<testsuite name="checks/api.monitor.ts" tests="2" failures="1" skipped="0">');
  });

  it('writes a GitHub job summary and annotations with --reporter github', async () => {
    const summary = path.join(project, 'step-summary.md');
    const result = await run(['broken', '--reporter', 'github', '-e', `TARGET=${base}`], { GITHUB_STEP_SUMMARY: summary });
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('::error file=checks/api.monitor.ts,line=23,col=1,title=Broken endpoint (eu-west-1)::assertion failed');
    expect(await readFile(summary, 'utf8')).toContain('### vigil test: 1 run: 0 passed, 1 failed');
  });

  it('stops the session at --timeout and says so', async () => {
    const result = await withTarget(['hangs', '--timeout', '0.3']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('Stopped: the test session passed --timeout (0.3 s); runs that had not finished count as failed.');
  });

  it('never plans a testOnly check', async () => {
    const result = await vigil(['plan', '--local'], { cwd: project });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('api-check.healthy');
    expect(result.stdout).not.toContain('preview-only');
  });

  it('reads variables from --env-file, -e winning over it', async () => {
    await writeFile(path.join(project, 'test.env'), `TARGET=http://127.0.0.1:1\n`);
    const fromFile = await run(['healthy', '--env-file', 'test.env', '--reporter', 'json']);
    expect(JSON.parse(fromFile.stdout).results[0].result.apiCheckResult.request.url).toBe('http://127.0.0.1:1/ok');
    const overridden = await run(['healthy', '--env-file', 'test.env', '-e', `TARGET=${base}`]);
    expect(overridden.code).toBe(0);
  });

  it('refuses a missing --env-file', async () => {
    const result = await run(['--env-file', 'missing.env']);
    if (Number(process.versions.node.split('.')[0]) <= 20) {
      // Node 20 itself reads any --env-file in its arguments, even after the script, and stops first.
      expect(result.code).toBe(9);
      expect(result.stderr).toMatch(/node: missing\.env: not found\n$/);
    } else {
      expect(result.code).toBe(2);
      expect(result.stderr.split('\n')[0]).toBe('Error: --env-file missing.env: no such file');
    }
  });

  it.each([
    [['--retries', '9'], 2, 'Error: --retries must be a whole number from 0 to 3, got "9"'],
    [['-e', 'NOEQUALS'], 2, 'Error: -e/--env takes KEY=VALUE with KEY made of letters, digits and _ (not starting with a digit), got "NOEQUALS"'],
    [['--grep', '('], 2, 'Error: --grep is not a valid regular expression: Invalid regular expression: /(/: Unterminated group'],
    [['--parallelism', '0'], 2, 'Error: --parallelism must be a whole number from 1 to 100, got "0"'],
    [['--timeout', 'soon'], 2, 'Error: --timeout must be a positive number of seconds, got "soon"'],
    [['--reporter', 'tap'], 2, "error: option '--reporter <name>' argument 'tap' is invalid. Allowed choices are list, dot, ci, github, json, junit."],
    [['nothing-like-this'], 1, 'Error: no check matches patterns "nothing-like-this" (the project has 6 checks; vigil test --list shows them)'],
  ])('refuses %j with exit %i', async (args, code, message) => {
    const result = await run(args);
    expect(result.code).toBe(code);
    expect(result.stderr.split('\n')[0]).toBe(message);
  });
});
