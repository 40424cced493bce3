/**
 * PrivateLocation end to end against a real vigil server: validate → plan → apply → plan empty →
 * import into a fresh project (next plan empty), checks naming the location by construct and by
 * slug, and its bad inputs at file:line.
 */
import { mkdtemp, mkdir, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startServer, type RunningServer } from '@vigil/server';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { targetEnv, vigil } from '../../support/cli.js';

let root: string;
let server: RunningServer;

beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'vigil-private-location-'));
  server = await startServer({ port: 0, dataDir: ':memory:' });
});

afterEach(async () => {
  await server.close();
  await rm(root, { recursive: true, force: true });
});

async function write(dir: string, files: Record<string, string>): Promise<void> {
  for (const [file, text] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(dir, file)), { recursive: true });
    await writeFile(path.join(dir, file), text);
  }
}

const run = (args: string[], cwd = root) => vigil(args, { cwd, env: targetEnv(server.url) });

async function get(route: string): Promise<unknown> {
  const response = await fetch(`${server.url}${route}`, { headers: { authorization: 'Bearer vigil-local' } });
  return response.json();
}

const CONFIG = "import { defineConfig } from 'checkly';\n\nexport default defineConfig({ projectName: 'Shop', logicalId: 'shop', checks: { checkMatch: '**/*.check.ts' } });\n";

const LOCATIONS = `import { ApiCheck, PrivateLocation } from 'checkly/constructs';

export const office = new PrivateLocation('office', { name: 'Office', slugName: 'office-dc', icon: 'server', proxyUrl: 'https://proxy.example.com:3128' });

new ApiCheck('intranet', {
  name: 'Intranet',
  locations: ['eu-west-1'],
  privateLocations: [office, 'basement-dc'],
  request: { method: 'GET', url: 'https://intranet.example.com' },
});
`;

describe('PrivateLocation', () => {
  it('validates, plans, applies, plans nothing more, and a check names it by its slug', async () => {
    await write(root, { 'checkly.config.ts': CONFIG, '__checks__/locations.check.ts': LOCATIONS });
    const validate = await run(['validate']);
    expect(validate.stdout.trim()).toBe('✔ 2 resources valid');
    const plan = await run(['plan']);
    expect(plan.stdout).toContain('+ private-location.office');
    const apply = await run(['apply', '--auto-approve']);
    expect(apply.code).toBe(0);
    const locations = (await get('/v1/private-locations')) as Array<Record<string, unknown>>;
    expect(locations).toEqual([expect.objectContaining({ name: 'Office', slugName: 'office-dc', icon: 'server', proxyUrl: 'https://proxy.example.com:3128' })]);
    const checks = (await get('/v1/checks')) as Array<Record<string, unknown>>;
    expect(checks.map((check) => check.privateLocations)).toEqual([['basement-dc', 'office-dc']]);
    const again = await run(['plan', '--detailed-exitcode']);
    expect(again.code).toBe(0);

    const fresh = await mkdtemp(path.join(tmpdir(), 'vigil-private-location-import-'));
    try {
      await write(fresh, { 'vigil.config.ts': "import { defineConfig } from 'vigil';\nexport default defineConfig({ projectName: 'copy', logicalId: 'copy' });\n", 'monitors/empty.monitor.ts': 'export {};\n' });
      const imported = await run(['import'], fresh);
      expect(imported.stderr).toBe('');
      expect(imported.code).toBe(0);
      const files = await readdir(path.join(fresh, 'imported'));
      const source = await readFile(path.join(fresh, 'imported', String(files.find((file) => file.includes('private-locations')))), 'utf8');
      expect(source).toContain(
        "export const officeLocation = new PrivateLocation('office', {\n  name: 'Office',\n  slugName: 'office-dc',\n  icon: 'server',\n  proxyUrl: 'https://proxy.example.com:3128',\n});",
      );
      const next = await run(['plan', '--detailed-exitcode'], fresh);
      expect(next.stdout + next.stderr).toContain('No changes');
      expect(next.code).toBe(0);
    } finally {
      await rm(fresh, { recursive: true, force: true });
    }
  }, 120_000);

  it('reports a slug shaped like a data-center location and a wrong privateLocations entry at file:line', async () => {
    await write(root, {
      'checkly.config.ts': CONFIG,
      '__checks__/bad.check.ts': `import { ApiCheck, PrivateLocation } from 'checkly/constructs';

new PrivateLocation('aws', { name: 'AWS', slugName: 'eu-west-1' });
new ApiCheck('home', { name: 'Home', privateLocations: [42 as never], request: { method: 'GET', url: 'https://example.com' } });
`,
    });
    const validate = await run(['validate']);
    expect(validate.stdout.trim().split('\n')).toEqual([
      '__checks__/bad.check.ts:3:1  error  "slugName" must be 1 to 30 letters, digits or dashes, and not a data-center location name such as "eu-west-1", got "eu-west-1"  (private-location.aws.slugName)',
      '__checks__/bad.check.ts:4:1  error  "privateLocations[0]" must be a private location\'s slug name, a PrivateLocation or PrivateLocation.fromId(id), got 42  (api-check.home.privateLocations[0])',
      '2 errors',
    ]);
    expect(validate.code).toBe(1);
  }, 60_000);
});
