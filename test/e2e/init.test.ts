import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { vigil } from '../support/cli.js';

let root: string;

beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'vigil-init-'));
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const run = (args: string[], cwd = root) => vigil(args, { cwd });

describe('vigil init', () => {
  it('creates a project that validates and plans against the embedded service', async () => {
    const created = await run(['init', 'shop']);
    expect(created.stderr).toBe('');
    expect(created.code).toBe(0);
    expect(created.stdout).toContain('Created a Vigil project "shop"');
    expect(created.stdout).toContain('Next steps:\n  cd shop\n  vigil validate');

    const project = path.join(root, 'shop');
    const validated = await run(['validate'], project);
    expect(validated.code).toBe(0);
    expect(validated.stdout).toContain('✔ 1 resource valid');

    const planned = await run(['plan', '--local'], project);
    expect(planned.stderr).toBe('');
    expect(planned.code).toBe(0);
    expect(planned.stdout).toContain('+ api-check.homepage');
    expect(planned.stdout).toContain('Plan: 1 to add, 0 to change, 0 to destroy.');
  });

  it('names the project after its directory unless --name is given', async () => {
    await run(['init', 'billing-api']);
    await run(['init', 'other', '--name', "Bob's Shop"]);
    const byDirectory = await readFile(path.join(root, 'billing-api', 'vigil.config.ts'), 'utf8');
    const byName = await readFile(path.join(root, 'other', 'vigil.config.ts'), 'utf8');
    expect(byDirectory).toContain("projectName: 'billing-api',");
    expect(byDirectory).toContain("logicalId: 'billing-api',");
    expect(byName).toContain("projectName: 'Bob\\'s Shop',");
    expect(byName).toContain("logicalId: 'bob-s-shop',");
  });

  it('initialises the current directory when no directory is given', async () => {
    const created = await run(['init']);
    expect(created.code).toBe(0);
    expect(created.stdout).not.toContain('  cd ');
    expect(existsSync(path.join(root, 'vigil.config.ts'))).toBe(true);
    expect(existsSync(path.join(root, 'checks', 'homepage.monitor.ts'))).toBe(true);
  });

  it('ignores the embedded database and the state lock in git, but not the state', async () => {
    await run(['init']);
    const gitignore = await readFile(path.join(root, '.gitignore'), 'utf8');
    expect(gitignore.split('\n')).toEqual(expect.arrayContaining(['.vigil/local/', '.vigil/*.lock']));
    expect(gitignore).not.toMatch(/^\.vigil\/?$|^\.vigil\/state\.json$/m);
  });

  it('appends only the missing entries to an existing .gitignore', async () => {
    await writeFile(path.join(root, '.gitignore'), 'node_modules\n.vigil/local/');
    await run(['init']);
    const lines = (await readFile(path.join(root, '.gitignore'), 'utf8')).split('\n');
    expect(lines[0]).toBe('node_modules');
    expect(lines.filter((line) => line === '.vigil/local/')).toHaveLength(1);
    expect(lines).toContain('.vigil/*.lock');
  });

  it('refuses to overwrite existing files, names them, and writes nothing', async () => {
    await mkdir(path.join(root, 'checks'));
    await writeFile(path.join(root, 'vigil.config.ts'), '// mine\n');
    await writeFile(path.join(root, 'checks', 'homepage.monitor.ts'), '// mine too\n');

    const refused = await run(['init']);

    expect(refused.code).toBe(1);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toContain(`refusing to overwrite existing files: ${path.join('.', 'vigil.config.ts')}, ${path.join('.', 'checks', 'homepage.monitor.ts')}`);
    expect(await readFile(path.join(root, 'vigil.config.ts'), 'utf8')).toBe('// mine\n');
    expect(existsSync(path.join(root, '.gitignore'))).toBe(false);
  });

  it('refuses when only the config exists, naming just that file', async () => {
    await writeFile(path.join(root, 'vigil.config.ts'), '// mine\n');
    const refused = await run(['init']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`refusing to overwrite existing files: ${path.join('.', 'vigil.config.ts')}\n`);
    expect(existsSync(path.join(root, 'checks'))).toBe(false);
  });
});
