/**
 * StatusPage end to end: the real CLI against a real `vigil server` (a child process), with a Checkly
 * project's files: validate → plan → apply → plan empty → change a card (and delete a service it no
 * longer shows, which must wait for the page) → apply → plan empty → import into a fresh project
 * (next plan empty) → destroy; bad inputs at file:line.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getJson, startVigilServer, targetEnv, vigil, writeProject } from '../../support/cli.js';

let service: ChildProcess;
let url: string;
let workdir: string;
beforeAll(async () => {
  workdir = await mkdtemp(path.join(tmpdir(), 'vigil-status-page-'));
  const started = await startVigilServer(['--data', path.join(workdir, 'data')]);
  service = started.child;
  url = started.url;
}, 60_000);
afterAll(async () => {
  service?.kill();
  await rm(workdir, { recursive: true, force: true });
});

const project = (files: Record<string, string>) => writeProject('vigil-status-page-project-', files);
const run = (args: string[], cwd: string) => vigil(args, { cwd, env: targetEnv(url) });
const get = <T,>(route: string) => getJson<T>(url, route);
const CONFIG = "import { defineConfig } from 'checkly';\n\nexport default defineConfig({ projectName: 'Status', logicalId: 'status', checks: { checkMatch: '**/*.check.ts' } });\n";

const BEFORE = `import { StatusPage, StatusPageService } from 'checkly/constructs';

export const web = new StatusPageService('web', { name: 'Web' });
export const db = new StatusPageService('db', { name: 'Database' });

new StatusPage('acme', {
  name: 'Acme status',
  url: 'acme-status-e2e',
  defaultTheme: 'DARK',
  cards: [{ name: 'Core', services: [web, db] }],
});
`;

const AFTER = `import { StatusPage, StatusPageService } from 'checkly/constructs';

export const web = new StatusPageService('web', { name: 'Web' });

new StatusPage('acme', {
  name: 'Acme status',
  url: 'acme-status-e2e',
  defaultTheme: 'DARK',
  cards: [{ name: 'Core', services: [web] }, { name: 'Later' }],
});
`;

interface Card {
  id: string;
  name: string;
  services: Array<{ id: string; name: string }>;
}
interface Page {
  id: string;
  name: string;
  url: string;
  defaultTheme: string;
  cards: Card[];
}
interface PageList {
  entries: Page[];
}
const cardsOf = (page: Page) => page.cards.map((card) => [card.name, card.services.map((each) => each.name)]);

describe('StatusPage', () => {
  it('validates, plans, applies, plans nothing more, applies a changed card, imports with an empty next plan and destroys', async () => {
    const root = await project({ 'checkly.config.ts': CONFIG, '__checks__/status.check.ts': BEFORE });
    const fresh = await project({
      'vigil.config.ts': "import { defineConfig } from 'vigil';\nexport default defineConfig({ projectName: 'copy', logicalId: 'copy' });\n",
      'monitors/empty.monitor.ts': 'export {};\n',
    });
    try {
      expect((await run(['validate'], root)).stdout.trim()).toBe('✔ 3 resources valid');
      const plan = await run(['plan'], root);
      expect(plan.stdout).toContain('+ status-page.acme');
      expect(plan.stdout).toContain('Plan: 3 to add, 0 to change, 0 to destroy.');
      const apply = await run(['apply', '--auto-approve'], root);
      expect(apply.stderr).toBe('');
      expect(apply.code).toBe(0);
      const [created] = (await get<PageList>('/v1/status-pages')).entries;
      expect(created).toMatchObject({ name: 'Acme status', url: 'acme-status-e2e', defaultTheme: 'DARK' });
      expect(cardsOf(created!)).toEqual([['Core', ['Web', 'Database']]]);
      const again = await run(['plan', '--detailed-exitcode'], root);
      expect(again.stdout).toContain('No changes');
      expect(again.code).toBe(0);

      await writeFile(path.join(root, '__checks__/status.check.ts'), AFTER);
      const change = await run(['plan', '--detailed-exitcode'], root);
      expect(change.code).toBe(2);
      expect(change.stdout).toContain(`~ status-page.acme (id ${created!.id})`);
      expect(change.stdout).toContain('- status-page-service.db');
      expect(change.stdout).toContain('Plan: 0 to add, 1 to change, 1 to destroy.');
      const changed = await run(['apply', '--auto-approve'], root);
      expect(changed.stdout + changed.stderr).not.toContain('409');
      expect(changed.code).toBe(0);
      const updated = await get<Page>(`/v1/status-pages/${created!.id}`);
      expect(cardsOf(updated)).toEqual([['Core', ['Web']], ['Later', []]]);
      // The card named again keeps its id.
      expect(updated.cards[0]!.id).toBe(created!.cards[0]!.id);
      expect((await run(['plan', '--detailed-exitcode'], root)).code).toBe(0);

      const imported = await run(['import'], fresh);
      expect(imported.stderr).toBe('');
      expect(imported.code).toBe(0);
      const files = (await readdir(path.join(fresh, 'imported'))).map(String).sort();
      expect(files).toEqual(['status-page-services.monitor.ts', 'status-pages.monitor.ts']);
      const source = await readFile(path.join(fresh, 'imported', 'status-pages.monitor.ts'), 'utf8');
      expect(source).toContain("new StatusPage('acme-status', {");
      expect(source).toContain("url: 'acme-status-e2e'");
      expect(source).toMatch(/services: \[webService\]/);
      expect(source).toContain("defaultTheme: 'DARK'");
      const next = await run(['plan', '--detailed-exitcode'], fresh);
      expect(next.stdout + next.stderr).toContain('No changes');
      expect(next.code).toBe(0);

      const destroyed = await run(['destroy', '--auto-approve'], root);
      expect(destroyed.code).toBe(0);
      expect(destroyed.stdout).toContain('Destroy complete! Resources: 2 destroyed.');
      expect((await get<PageList>('/v1/status-pages')).entries).toEqual([]);
    } finally {
      await rm(root, { recursive: true, force: true });
      await rm(fresh, { recursive: true, force: true });
    }
  }, 180_000);

  it('reports bad inputs at file:line', async () => {
    const root = await project({
      'checkly.config.ts': CONFIG,
      '__checks__/bad.check.ts': `import { StatusPage, StatusPageService } from 'checkly/constructs';

const web = new StatusPageService('web', { name: 'Web' });
new StatusPage('host', { name: 'Host', url: 'status.acme.com', cards: [{ name: 'Core', services: [web, web] }] });
new StatusPage('named', { name: 'Named', url: 'named', cards: [{ name: 'Core', services: ['Web' as never] }], defaultTheme: 'SEPIA' as never });
`,
    });
    try {
      const validate = await run(['validate'], root);
      expect(validate.stdout.trim().split('\n')).toEqual([
        '__checks__/bad.check.ts:4:1  error  "cards[0].services[1]" lists the same service a second time on this card  (status-page.host.cards[0].services[1])',
        '  hint: A card shows each service once; remove the repeated entry.',
        '__checks__/bad.check.ts:4:1  error  "url" must be a subdomain name: 1 to 63 letters, digits or dashes, not starting or ending with a dash, got "status.acme.com"  (status-page.host.url)',
        '  hint: url is the subdomain alone, e.g. "acme-status"; put a whole host name such as "status.example.com" in customDomain.',
        '__checks__/bad.check.ts:5:1  error  "cards[0].services[0]" must be a StatusPageService construct or a fromId reference, got the string "Web"  (status-page.named.cards[0].services[0])',
        '  hint: Pass the construct object itself (for example `group: apiGroup`), or X.fromId(id) for a resource Vigil does not manage.',
        '__checks__/bad.check.ts:5:1  error  "defaultTheme" must be one of [AUTO, DARK, LIGHT]  (status-page.named.defaultTheme)',
        '4 errors',
      ]);
      expect(validate.code).toBe(1);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  }, 60_000);
});
