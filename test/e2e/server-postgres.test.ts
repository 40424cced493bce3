/**
 * `vigil server --database postgres://…` end to end: the real CLI serving from embedded PostgreSQL
 * (no SQLite file anywhere), a small project applied to it with the real `vigil apply`, its check run
 * on schedule against a loopback target and its result stored; then the server stopped and started
 * again on the same database, which finds the check and its result and goes on running it.
 */
import type { ChildProcess } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getJson, startVigilServer, targetEnv, vigil, waitFor, writeProject } from '../support/cli.js';
import { useTestPostgres } from '../support/postgres.js';
import { startStatementNamesRelay } from '../support/statement-names-relay.js';

const postgres = useTestPostgres();
let target: Server;
let targetUrl: string;
let requests = 0;
let project: string | undefined;
const running: ChildProcess[] = [];

interface StoredResult {
  readonly id: string;
  readonly created_at: string;
  readonly hasFailures: boolean;
}

beforeAll(async () => {
  target = createServer((_request, response) => {
    requests += 1;
    response.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
  });
  await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
  targetUrl = `http://127.0.0.1:${(target.address() as AddressInfo).port}/health`;
});

afterAll(async () => {
  for (const child of running) child.kill('SIGKILL');
  await new Promise<void>((resolve) => target?.close(() => resolve()));
  if (project) await rm(project, { recursive: true, force: true });
});

async function stop(child: ChildProcess): Promise<number | null> {
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  child.kill('SIGTERM');
  return exited;
}

describe('vigil server --database', () => {
  it('serves an applied project from PostgreSQL, runs its check on schedule, and finds it all after a restart', async () => {
    const databaseUrl = await postgres.freshDatabase();
    const first = await startVigilServer(['--database', databaseUrl]);
    running.push(first.child);
    expect(await getJson(first.url, '/healthz')).toEqual({ status: 'UP', database: { status: 'UP', engine: 'postgres' } });

    project = await writeProject('vigil-server-postgres-', {
      'vigil.config.ts': "import { defineConfig } from 'vigil';\nexport default defineConfig({ projectName: 'On PostgreSQL', logicalId: 'on-postgres' });\n",
      'checks/health.monitor.ts': `import { ApiCheck, Frequency } from 'vigil/constructs';
new ApiCheck('health', { name: 'Health', frequency: Frequency.EVERY_10S, locations: ['eu-west-1'], request: { url: '${targetUrl}' } });
`,
    });
    const applied = await vigil(['apply', '--auto-approve'], { cwd: project, env: targetEnv(first.url) });
    expect(applied.code, applied.stderr).toBe(0);
    const checks = await getJson<Array<{ id: string; name: string }>>(first.url, '/v1/checks');
    expect(checks.map((check) => check.name)).toEqual(['Health']);
    const checkId = checks[0]!.id;

    const results = (url: string) => getJson<StoredResult[]>(url, `/v1/check-results/${checkId}?limit=100`);
    const firstResult = await waitFor(`a scheduled result of check ${checkId} stored in PostgreSQL`, async () => (await results(first.url))[0]);
    expect(firstResult.hasFailures).toBe(false);
    expect(requests).toBeGreaterThan(0);
    expect(await stop(first.child)).toBe(0);

    const second = await startVigilServer(['--database', databaseUrl]);
    running.push(second.child);
    expect((await getJson<Array<{ id: string }>>(second.url, '/v1/checks')).map((check) => check.id)).toEqual([checkId]);
    expect((await results(second.url)).map((result) => result.id)).toContain(firstResult.id);
    // The same service (its identity is in the database) at a new port: the project's state is moved to it.
    const retargeted = await vigil(['state', 'retarget', second.url], { cwd: project, env: targetEnv(second.url) });
    expect(retargeted.code, retargeted.stderr).toBe(0);
    // The state `vigil apply` keeps is in the database too: nothing is left to change.
    const planned = await vigil(['plan'], { cwd: project, env: targetEnv(second.url) });
    expect(planned.code, planned.stderr).toBe(0);
    expect(planned.stdout).toMatch(/no changes/i);
    await waitFor(`a result of check ${checkId} stored after the restart`, async () =>
      (await results(second.url)).some((result) => Date.parse(result.created_at) > Date.parse(firstResult.created_at)) ? true : undefined,
    );
    expect(await stop(second.child)).toBe(0);
  }, 240_000);

  it.each([
    { setting: 'off', named: false },
    { setting: 'on', named: true },
  ])('with --database-prepared-statements $setting, names a prepared statement: $named', async ({ setting, named }) => {
    // What a pooler in front of the database would be sent: a named statement breaks PgBouncer in transaction mode.
    const relay = await startStatementNamesRelay(await postgres.freshDatabase());
    try {
      const server = await startVigilServer(['--database', relay.url, '--database-prepared-statements', setting]);
      running.push(server.child);
      // The same create, list and read, several times: every statement of them is sent more than once.
      for (let n = 1; n <= 3; n++) {
        const created = await fetch(`${server.url}/v1/checks/api`, {
          method: 'POST',
          headers: { authorization: 'Bearer vigil-local', 'content-type': 'application/json' },
          body: JSON.stringify({ name: `check ${n}`, activated: false, locations: ['eu-west-1'], request: { url: 'https://example.com/' } }),
        });
        expect(created.status, await created.clone().text()).toBe(201);
        const { id } = (await created.json()) as { id: string };
        expect((await getJson<{ name: string }>(server.url, `/v1/checks/${id}`)).name).toBe(`check ${n}`);
        expect(await getJson<unknown[]>(server.url, '/v1/checks')).toHaveLength(n);
      }
      expect(await stop(server.child)).toBe(0);
      expect(relay.parses()).toBeGreaterThan(0);
      if (named) expect(relay.preparedNames.length).toBeGreaterThan(0);
      else expect(relay.preparedNames).toEqual([]);
    } finally {
      await relay.close();
    }
  }, 120_000);
});
