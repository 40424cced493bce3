/**
 * Bundled user code may carry its own copy of this package. This suite imports a second copy (the
 * same sources at another path, so every class is a different object) and checks that its
 * constructs register into, and are recognised by, a Project of the first copy.
 */
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURE_ROOT } from './__fixtures__/load.js';
import * as first from './index.js';

type ConstructsModule = typeof import('./index.js');

const PACKAGE_DIR = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
let copyDir: string;
let second: ConstructsModule;

beforeAll(async () => {
  // Inside the package, so the copy resolves `@vigil/schema` and `zod` from the same node_modules.
  copyDir = mkdtempSync(path.join(PACKAGE_DIR, '.second-copy-'));
  cpSync(path.join(PACKAGE_DIR, 'src'), path.join(copyDir, 'src'), {
    recursive: true,
    filter: (source) => !source.endsWith('.test.ts') && !source.includes('__fixtures__'),
  });
  second = (await import(path.join(copyDir, 'src', 'index.ts'))) as ConstructsModule;
});

afterAll(() => {
  rmSync(copyDir, { recursive: true, force: true });
});

describe('a second copy of the package', () => {
  it('is really a different copy', () => {
    expect(second.ApiCheck).not.toBe(first.ApiCheck);
    expect(second.CONSTRUCT_BRAND).toBe(first.CONSTRUCT_BRAND);
  });

  it('registers its constructs into the Project of the first copy, which recognises them by brand', async () => {
    const project = new first.Project({ root: FIXTURE_ROOT });
    let group: InstanceType<typeof second.CheckGroupV2> | undefined;
    await first.withProject(project, async () => {
      group = new second.CheckGroupV2('api', { name: 'API', frequency: second.Frequency.EVERY_5M });
      const channel = new first.EmailAlertChannel('ops', { address: 'ops@example.com' });
      new first.ApiCheck('home', { name: 'Home', request: { url: 'https://example.com/' }, group, alertChannels: [channel] });
      new second.ApiCheck('search', { name: 'Search', request: { url: 'https://example.com/search' }, alertChannels: [channel] });
    });
    expect(group instanceof first.CheckGroupV2).toBe(false);
    expect(first.isConstruct(group)).toBe(true);
    expect(project.constructs().map((c) => c.address)).toEqual([
      'check-group.api',
      'alert-channel.ops',
      'api-check.home',
      'api-check.search',
    ]);
    expect(project.validate()).toEqual([]);
    const specs = project.synth();
    const home = specs.find((s) => s.address === 'api-check.home')!;
    expect(home.payload.groupId).toEqual({ $ref: 'check-group.api' });
    // The group's Frequency (from the second copy) still cascades into the first copy's check.
    expect(home.payload.frequency).toBe(5);
    expect(specs.find((s) => s.address === 'api-check.search')!.refs).toEqual([
      { path: 'alertChannelSubscriptions[0].alertChannelId', address: 'alert-channel.ops' },
    ]);
  });

  it('sees the Project of a load started by the first copy', async () => {
    const project = new first.Project({ root: FIXTURE_ROOT });
    const seen = await first.withProject(project, async () => second.tryCurrentProject());
    expect(seen).toBe(project);
  });
});
