/**
 * Dashboard end to end: the real CLI against a real vigil server, with a Checkly project's file
 * unchanged (CSS from a file beside it): validate → plan → apply → plan empty → change → plan shows
 * the fields → apply → import into a fresh project (next plan empty) → destroy; a customUrl another
 * account holds refused at apply; bad inputs at file:line.
 */
import { readFile, readdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { startServer, type RunningServer } from '@vigil/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getJson, targetEnv, vigil, writeProject } from '../../support/cli.js';

let server: RunningServer;
beforeAll(async () => {
  server = await startServer({ port: 0, dataDir: ':memory:' });
});
afterAll(async () => {
  await server.close();
});

const project = (files: Record<string, string>) => writeProject('vigil-dashboard-', files);
const run = (args: string[], cwd: string) => vigil(args, { cwd, env: targetEnv(server.url) });
const get = <T,>(route: string) => getJson<T>(server.url, route);
const CONFIG = "import { defineConfig } from 'checkly';\n\nexport default defineConfig({ projectName: 'Status', logicalId: 'status', checks: { checkMatch: '**/*.check.ts' } });\n";

const DASHBOARD = (refreshRate: number, tags: string[]) => `import { Dashboard } from 'checkly/constructs';

new Dashboard('status', {
  customUrl: 'acme-status-e2e',
  header: 'Acme status',
  description: 'Every production check',
  tags: ${JSON.stringify(tags)},
  refreshRate: ${refreshRate},
  checksPerPage: 10,
  customCSS: { entrypoint: './dashboard.css' },
});
`;

type Remote = Record<string, unknown> & { dashboardId: string };

describe('Dashboard', () => {
  it('validates, plans, applies, plans nothing more, applies a change, imports with an empty next plan and destroys', async () => {
    const root = await project({
      'checkly.config.ts': CONFIG,
      '__checks__/status.check.ts': DASHBOARD(60, ['prod']),
      '__checks__/dashboard.css': '.header { color: teal; }\n',
    });
    const fresh = await project({
      'vigil.config.ts': "import { defineConfig } from 'vigil';\nexport default defineConfig({ projectName: 'copy', logicalId: 'copy' });\n",
      'monitors/empty.monitor.ts': 'export {};\n',
    });
    try {
      expect((await run(['validate'], root)).stdout.trim()).toBe('✔ 1 resource valid');
      const plan = await run(['plan'], root);
      expect(plan.stdout).toContain('+ dashboard.status');
      expect(plan.stdout).toContain('Plan: 1 to add, 0 to change, 0 to destroy.');
      const apply = await run(['apply', '--auto-approve'], root);
      expect(apply.stderr).toBe('');
      expect(apply.code).toBe(0);
      const [created] = await get<Remote[]>('/v1/dashboards');
      expect(created).toMatchObject({
        customUrl: 'acme-status-e2e', header: 'Acme status', description: 'Every production check', tags: ['prod'], refreshRate: 60,
        checksPerPage: 10, customCSS: '.header { color: teal; }\n', paginate: true, showP95: true,
      });
      const again = await run(['plan', '--detailed-exitcode'], root);
      expect(again.stdout).toContain('No changes');
      expect(again.code).toBe(0);

      await writeFile(path.join(root, '__checks__/status.check.ts'), DASHBOARD(300, ['prod', 'api']));
      const change = await run(['plan', '--detailed-exitcode'], root);
      expect(change.code).toBe(2);
      expect(change.stdout).toContain('~ dashboard.status');
      expect(change.stdout).toContain(`~ dashboard.status (id ${created!.dashboardId})`);
      expect(change.stdout).toMatch(/~ refreshRate\s+= 60 → 300\n\s+\+ tags\[0\]\s+= "api"\n/);
      expect(change.stdout).toContain('Plan: 0 to add, 1 to change, 0 to destroy.');
      expect((await run(['apply', '--auto-approve'], root)).code).toBe(0);
      const updated = await get<Remote>(`/v1/dashboards/${created!.dashboardId}`);
      expect(updated).toMatchObject({ id: created!.id, refreshRate: 300, tags: ['api', 'prod'] });
      expect((await run(['plan', '--detailed-exitcode'], root)).code).toBe(0);

      const imported = await run(['import'], fresh);
      expect(imported.stderr).toBe('');
      expect(imported.code).toBe(0);
      const files = (await readdir(path.join(fresh, 'imported'))).map(String);
      expect(files).toEqual(['dashboards.monitor.ts']);
      const source = await readFile(path.join(fresh, 'imported', 'dashboards.monitor.ts'), 'utf8');
      expect(source).toContain("new Dashboard('acme-status', {");
      expect(source).toContain("customUrl: 'acme-status-e2e'");
      expect(source).toContain('refreshRate: 300');
      expect(source).toContain('customCSS: {');
      const next = await run(['plan', '--detailed-exitcode'], fresh);
      expect(next.stdout + next.stderr).toContain('No changes');
      expect(next.code).toBe(0);

      const destroyed = await run(['destroy', '--auto-approve'], root);
      expect(destroyed.code).toBe(0);
      expect(destroyed.stdout).toContain('Destroy complete! Resources: 1 destroyed.');
      expect(await get<Remote[]>('/v1/dashboards')).toEqual([]);
    } finally {
      await rm(root, { recursive: true, force: true });
      await rm(fresh, { recursive: true, force: true });
    }
  }, 150_000);

  it('fails the apply of a customUrl that a dashboard of another account holds, naming the conflict', async () => {
    const other = await startServer({ port: 0, dataDir: ':memory:', accounts: [{ apiKey: 'vigil-local', accountId: 'mine' }, { apiKey: 'theirs', accountId: 'theirs' }] });
    const root = await project({
      'checkly.config.ts': CONFIG,
      '__checks__/status.check.ts': "import { Dashboard } from 'checkly/constructs';\n\nnew Dashboard('status', { customUrl: 'shared-name', header: 'Mine' });\n",
    });
    try {
      const taken = await fetch(`${other.url}/v1/dashboards`, {
        method: 'POST',
        headers: { authorization: 'Bearer theirs', 'content-type': 'application/json' },
        body: JSON.stringify({ header: 'Theirs', customUrl: 'Shared-Name' }),
      });
      expect(taken.status).toBe(201);
      const apply = await vigil(['apply', '--auto-approve'], { cwd: root, env: targetEnv(other.url) });
      expect(apply.code).toBe(1);
      expect(apply.stdout + apply.stderr).toContain('customUrl "shared-name" is already taken by another dashboard');
    } finally {
      await other.close();
      await rm(root, { recursive: true, force: true });
    }
  }, 60_000);

  it('reports bad inputs at file:line', async () => {
    const root = await project({
      'checkly.config.ts': CONFIG,
      '__checks__/bad.check.ts': `import { Dashboard } from 'checkly/constructs';

new Dashboard('nowhere', { header: 'No address' });
new Dashboard('host', { customUrl: 'status.acme.com', refreshRate: 120 as never });
new Dashboard('copy', { customUrl: 'STATUS.ACME.COM', customCSS: { entrypoint: './missing.css' } });
`,
    });
    try {
      const validate = await run(['validate'], root);
      expect(validate.stdout.trim().split('\n')).toEqual([
        '__checks__/bad.check.ts:3:1  error  "customUrl" or "customDomain" is required  (dashboard.nowhere.customUrl)',
        '  hint: Serve the dashboard at a subdomain with customUrl: "acme-status", or at a domain of yours with customDomain: "status.example.com".',
        '__checks__/bad.check.ts:4:1  error  "customUrl" must be a subdomain name: 1 to 63 letters, digits or dashes, not starting or ending with a dash, got "status.acme.com"  (dashboard.host.customUrl)',
        '  hint: customUrl is the subdomain alone, e.g. "acme-status"; put a whole host name such as "status.example.com" in customDomain.',
        '__checks__/bad.check.ts:4:1  error  "refreshRate" must be one of [60, 300, 600]  (dashboard.host.refreshRate)',
        '__checks__/bad.check.ts:5:1  error  "customUrl" "STATUS.ACME.COM" is already the customUrl of Dashboard "host"  (dashboard.copy.customUrl)',
        '  hint: A customUrl names one dashboard across the service; give each dashboard its own.',
        '__checks__/bad.check.ts:5:1  error  "customCSS.entrypoint" file not found: __checks__/missing.css  (dashboard.copy.customCSS.entrypoint)',
        '  hint: The file is resolved relative to the file being loaded (the monitor or check file), as in Checkly.',
        '5 errors',
      ]);
      expect(validate.code).toBe(1);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  }, 60_000);
});
