import { execFile } from 'node:child_process';
import { existsSync, realpathSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { REPO_ROOT, VIGIL_BIN, vigil } from '../support/cli.js';

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
    // In a source checkout the project cannot install vigil, so the steps run this very script.
    expect(created.stdout).toContain(`Next steps:\n  cd shop\n  node ${realpathSync(VIGIL_BIN)} validate `);
    expect(created.stdout).not.toContain('npm install');

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

  it('ignores in git what Vigil writes, but not the state nor its log', async () => {
    await run(['init']);
    const gitignore = await readFile(path.join(root, '.gitignore'), 'utf8');
    expect(gitignore.split('\n')).toEqual(
      expect.arrayContaining(['.vigil/local/', '.vigil/server/', '.vigil/tmp/', '.vigil/*.lock', '.vigil/*.tmp', 'node_modules/']),
    );
    const entries = gitignore.split('\n').filter((line) => !line.startsWith('#'));
    expect(entries.filter((line) => /^\.vigil\/?\*?$|state\.json|\.wal/.test(line))).toEqual([]);
  });

  it('says to commit the local state, and how to move it to a remote backend instead', async () => {
    const created = await run(['init']);
    expect(created.stdout).toContain(
      '\nCommit .vigil/state.json with your monitors (and a .vigil/state.json.wal beside it, if a killed apply left\n' +
        'one): it is how Vigil knows what it created. To keep it out of git instead, set state in vigil.config.ts to a remote backend (service, http, postgres or s3) and run vigil state migrate --from local.\n' +
        'Run vigil from the project directory or any directory below it.\n',
    );
    const config = await readFile(path.join(root, 'vigil.config.ts'), 'utf8');
    expect(config).toContain('vigil state migrate --from local');
    expect(config).not.toMatch(/^\s*state:/m);
    expect(await readFile(path.join(root, '.gitignore'), 'utf8')).toMatch(/^# vigil: .*Commit \.vigil\/state\.json \(and a \.wal beside it\): it is the state\.\n/);
  });

  it('warns when an existing .gitignore keeps the local state out of git, naming the line', async () => {
    await writeFile(path.join(root, '.gitignore'), 'dist/\n.vigil/\n');
    const created = await run(['init']);
    expect(created.code).toBe(0);
    expect(created.stdout).toContain(
      '\nYour .gitignore ignores .vigil/state.json (".vigil/"): then only this checkout knows what Vigil created, and an\n' +
        'apply from any other (a teammate, CI) would create everything again. Commit it (drop that line),\n' +
        'or keep state where every checkout finds it: set state in vigil.config.ts to a remote backend (service, http, postgres or s3) and run vigil state migrate --from local.\n',
    );
  });

  it.each([
    ['service', "  state: { backend: 'service' },\n", 'it uses VIGIL_API_URL and VIGIL_API_KEY, as plan and apply do'],
    ['http', "  state: { backend: 'http', address: 'https://tfstate.example.com/shop' },\n", 'set its address in vigil.config.ts and export VIGIL_STATE_HTTP_TOKEN (or VIGIL_STATE_HTTP_USERNAME and VIGIL_STATE_HTTP_PASSWORD)'],
    ['postgres', "  state: { backend: 'postgres' },\n", 'export VIGIL_STATE_PG_URL (postgres://user:password@host:5432/database)'],
    ['s3', "  state: { backend: 's3', bucket: 'my-vigil-state', key: 'vigil/shop.json' },\n", 'set bucket and key in vigil.config.ts and export AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and AWS_REGION'],
  ])('with --state %s, names that backend in a config that validates, commits nothing under .vigil/, and says what to export', async (backend, block, exports) => {
    const created = await run(['init', 'shop', '--state', backend]);
    expect(created.stderr).toBe('');
    expect(created.code).toBe(0);
    expect(created.stdout).toContain(`  .gitignore (created: .vigil/, node_modules/)\n`);
    expect(created.stdout).toContain(
      `\nState is kept on the ${backend} backend, so nothing under .vigil/ is committed: ${exports}.\n` +
        'State applied elsewhere before moves there with vigil state migrate --from local (or --from another backend).\n' +
        'Run vigil from the project directory or any directory below it.\n',
    );
    const project = path.join(root, 'shop');
    expect(await readFile(path.join(project, 'vigil.config.ts'), 'utf8')).toContain(block);
    expect(await readFile(path.join(project, '.gitignore'), 'utf8')).toBe(
      `# vigil: state is kept on the ${backend} backend (vigil.config.ts), so nothing under .vigil/ is committed.\n.vigil/\nnode_modules/\n`,
    );
    const validated = await run(['validate'], project);
    expect(validated.stderr).toBe('');
    expect(validated.stdout).toBe('✔ 1 resource valid\n');
  });

  it('refuses a --state that is not a backend, writing nothing', async () => {
    const refused = await run(['init', '--state', 'dynamodb']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toBe('Error: --state "dynamodb" is not a state backend: use local, service, http, postgres, s3\n');
    expect(existsSync(path.join(root, 'vigil.config.ts'))).toBe(false);
  });

  it('appends only the missing entries to an existing .gitignore', async () => {
    await writeFile(path.join(root, '.gitignore'), 'node_modules\n.vigil/local/');
    await run(['init']);
    const lines = (await readFile(path.join(root, '.gitignore'), 'utf8')).split('\n');
    expect(lines[0]).toBe('node_modules');
    expect(lines.filter((line) => line === '.vigil/local/')).toHaveLength(1);
    expect(lines).toContain('.vigil/*.lock');
    expect(lines).not.toContain('node_modules/');
  });

  it('creates a package.json with the typescript and @types/node dev dependencies and vigil:* scripts, and no registry dependency on a name Vigil has not published', async () => {
    const created = await run(['init', '--name', 'Shop API']);
    expect(created.stdout).toContain(
      '  package.json (created: scripts.vigil:validate, scripts.vigil:plan, scripts.vigil:apply, scripts.vigil:typecheck, devDependencies.typescript, devDependencies.@types/node)\n',
    );
    const manifest = JSON.parse(await readFile(path.join(root, 'package.json'), 'utf8'));
    // `vigil` on the npm registry is an unrelated package; `@vigil-mon/cli` is not published yet.
    expect(manifest).toEqual({
      name: 'shop-api',
      private: true,
      scripts: { 'vigil:validate': 'vigil validate', 'vigil:plan': 'vigil plan', 'vigil:apply': 'vigil apply', 'vigil:typecheck': 'tsc --noEmit' },
      devDependencies: { typescript: '^5.9.3', '@types/node': '^20.19.0' },
    });
  });

  it('installs the TypeScript and Node types it declares with one range everywhere: README.md and docs/getting-started.md install what init writes', async () => {
    await run(['init']);
    const { devDependencies } = JSON.parse(await readFile(path.join(root, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> };
    const install = `typescript@${devDependencies.typescript} @types/node@${devDependencies['@types/node']}`;
    for (const doc of ['README.md', 'docs/getting-started.md']) {
      const lines = (await readFile(path.join(REPO_ROOT, doc), 'utf8')).split('\n').filter((line) => /^npm i(nstall)? -D .*typescript/.test(line));
      expect(lines.length, doc).toBeGreaterThan(0);
      for (const line of lines) expect(line, doc).toContain(install);
    }
  });

  it('type-checks a project whose monitor reads process.env, once its declared dev dependencies are installed', async () => {
    await run(['init']);
    await writeFile(
      path.join(root, 'checks', 'env.monitor.ts'),
      "import { ApiCheck } from '@vigil-mon/cli/constructs';\n\nnew ApiCheck('from-env', { name: 'From env', request: { url: process.env.HOME_URL ?? 'https://example.com/' } });\n",
    );
    // What `npm install` puts in node_modules: @types/node as declared, and the package. The
    // package's own declarations are checked against a packed build in pack.test.ts; a stand-in
    // that mentions nothing of Node here, so only the project's tsconfig can bring in \`process\`.
    await mkdir(path.join(root, 'node_modules', '@types'), { recursive: true });
    await symlink(path.join(REPO_ROOT, 'node_modules', '@types', 'node'), path.join(root, 'node_modules', '@types', 'node'));
    const stub = path.join(root, 'node_modules', '@vigil-mon', 'cli');
    await mkdir(stub, { recursive: true });
    await writeFile(
      path.join(stub, 'package.json'),
      JSON.stringify({ name: '@vigil-mon/cli', type: 'module', exports: { '.': { types: './index.d.ts' }, './constructs': { types: './constructs.d.ts' } } }),
    );
    await writeFile(path.join(stub, 'index.d.ts'), 'export declare function defineConfig(config: Record<string, unknown>): unknown;\n');
    await writeFile(
      path.join(stub, 'constructs.d.ts'),
      'export declare class ApiCheck {\n  constructor(id: string, props: { name: string; request: { url: string; [key: string]: unknown }; [key: string]: unknown });\n}\n' +
        'export declare const AssertionBuilder: Record<string, () => Record<string, (value: number) => unknown>>;\n',
    );
    const tsc = path.join(REPO_ROOT, 'node_modules/typescript/bin/tsc');
    const result = await promisify(execFile)(process.execPath, [tsc, '-p', path.join(root, 'tsconfig.json')], { cwd: root }).then(
      () => ({ code: 0, output: '' }),
      (error: { code: number; stdout: string }) => ({ code: error.code, output: error.stdout }),
    );
    expect(result).toEqual({ code: 0, output: '' });
  }, 120_000);

  it('depends on the package tarball vendored in the project, as a file: dependency', async () => {
    const { version } = JSON.parse(await readFile(path.join(REPO_ROOT, 'packages/cli/package.json'), 'utf8'));
    await mkdir(path.join(root, 'vendor'));
    await writeFile(path.join(root, 'vendor', `vigil-mon-cli-${version}.tgz`), '');
    const created = await run(['init']);
    expect(created.stdout).toContain('devDependencies.@vigil-mon/cli, devDependencies.typescript, devDependencies.@types/node)\n');
    const manifest = JSON.parse(await readFile(path.join(root, 'package.json'), 'utf8'));
    expect(manifest.devDependencies).toEqual({ '@vigil-mon/cli': `file:vendor/vigil-mon-cli-${version}.tgz`, typescript: '^5.9.3', '@types/node': '^20.19.0' });
  });

  it('writes a config and monitor that import the package by its name', async () => {
    await run(['init']);
    expect(await readFile(path.join(root, 'vigil.config.ts'), 'utf8')).toContain("import { defineConfig } from '@vigil-mon/cli';\n");
    expect(await readFile(path.join(root, 'checks', 'homepage.monitor.ts'), 'utf8')).toContain(
      "import { ApiCheck, AssertionBuilder } from '@vigil-mon/cli/constructs';\n",
    );
  });

  it('adds only what an existing package.json lacks, keeping its entries, order and indentation', async () => {
    const original = {
      name: 'acme-web',
      version: '3.1.0',
      scripts: { build: 'vite build', 'vigil:plan': 'vigil plan --format markdown' },
      devDependencies: { '@vigil-mon/cli': 'file:vendor/vigil-mon-cli-0.1.0.tgz' },
      dependencies: { typescript: '5.4.0' },
    };
    await writeFile(path.join(root, 'package.json'), `${JSON.stringify(original, null, 4)}\n`);
    const created = await run(['init']);
    expect(created.code).toBe(0);
    expect(created.stdout).toContain('  package.json (updated: scripts.vigil:validate, scripts.vigil:apply, scripts.vigil:typecheck, devDependencies.@types/node)\n');
    const text = await readFile(path.join(root, 'package.json'), 'utf8');
    expect(text).toBe(
      `${JSON.stringify(
        {
          ...original,
          scripts: { ...original.scripts, 'vigil:validate': 'vigil validate', 'vigil:apply': 'vigil apply', 'vigil:typecheck': 'tsc --noEmit' },
          devDependencies: { ...original.devDependencies, '@types/node': '^20.19.0' },
        },
        null,
        4,
      )}\n`,
    );
  });

  it('leaves a package.json that has everything unchanged', async () => {
    const complete = `{"scripts":{"vigil:validate":"x","vigil:plan":"x","vigil:apply":"x","vigil:typecheck":"x"},"devDependencies":{"@vigil-mon/cli":"1","typescript":"5","@types/node":"20"}}`;
    await writeFile(path.join(root, 'package.json'), complete);
    const created = await run(['init']);
    expect(created.stdout).toContain('  package.json (unchanged: it has everything already)\n');
    expect(await readFile(path.join(root, 'package.json'), 'utf8')).toBe(complete);
  });

  it('writes a tsconfig.json that type-checks the config and the monitors, and keeps an existing one', async () => {
    await run(['init', 'fresh']);
    const tsconfig = JSON.parse(await readFile(path.join(root, 'fresh', 'tsconfig.json'), 'utf8'));
    expect(tsconfig.include).toEqual(['vigil.config.ts', '**/*.monitor.ts']);
    expect(tsconfig.compilerOptions).toMatchObject({ moduleResolution: 'Bundler', strict: true, noEmit: true, types: ['node'] });

    await mkdir(path.join(root, 'kept'));
    await writeFile(path.join(root, 'kept', 'tsconfig.json'), '{ "extends": "../tsconfig.base.json" }\n');
    const kept = await run(['init', 'kept']);
    expect(kept.code).toBe(0);
    expect(kept.stdout).toContain('  tsconfig.json (exists, left as it is: make sure it includes vigil.config.ts and the *.monitor.ts files)\n');
    expect(await readFile(path.join(root, 'kept', 'tsconfig.json'), 'utf8')).toBe('{ "extends": "../tsconfig.base.json" }\n');
  });

  it('refuses a package.json that is not valid JSON, writing nothing', async () => {
    await writeFile(path.join(root, 'package.json'), '{ "name": "broken", }');
    const refused = await run(['init']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^Error: package\.json is not valid JSON \(.+\); nothing was written\nhint: fix it, then run vigil init again\.\n$/);
    expect(existsSync(path.join(root, 'vigil.config.ts'))).toBe(false);
    expect(existsSync(path.join(root, 'tsconfig.json'))).toBe(false);
  });

  it('refuses a directory that already has a config of another extension', async () => {
    await writeFile(path.join(root, 'vigil.config.cjs'), 'module.exports = {};\n');
    const refused = await run(['init']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(
      `Error: refusing to overwrite existing files: ${path.join('.', 'vigil.config.cjs')}\nhint: run vigil init in a directory without a Vigil project, or remove them first.\n`,
    );
    expect(existsSync(path.join(root, 'vigil.config.ts'))).toBe(false);
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
    for (const file of ['.gitignore', 'package.json', 'tsconfig.json']) expect(existsSync(path.join(root, file)), file).toBe(false);
  });

  it('refuses when only the config exists, naming just that file', async () => {
    await writeFile(path.join(root, 'vigil.config.ts'), '// mine\n');
    const refused = await run(['init']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`refusing to overwrite existing files: ${path.join('.', 'vigil.config.ts')}\n`);
    expect(existsSync(path.join(root, 'checks'))).toBe(false);
  });
});

describe('finding the project', () => {
  it('plans from any subdirectory of the project, as git finds its repository', async () => {
    await run(['init', 'shop']);
    const nested = path.join(root, 'shop', 'checks');
    const planned = await run(['plan', '--local'], nested);
    expect(planned.stderr).toBe('');
    expect(planned.code).toBe(0);
    expect(planned.stdout).toContain('Plan: 1 to add, 0 to change, 0 to destroy.');
    expect(existsSync(path.join(root, 'shop', '.vigil', 'local'))).toBe(true);
  });

  it('lets --config win over the config found by walking up', async () => {
    await run(['init', 'outer']);
    // The outer project declares one check, this one two.
    await mkdir(path.join(root, 'inner'));
    await writeFile(path.join(root, 'inner', 'vigil.config.ts'), "export default { projectName: 'inner', logicalId: 'inner' };\n");
    await writeFile(
      path.join(root, 'inner', 'two.monitor.ts'),
      "import { ApiCheck } from 'vigil/constructs';\nfor (const id of ['a', 'b']) new ApiCheck(id, { name: id, request: { url: 'https://example.com/' } });\n",
    );
    const validated = await run(['validate', '--config', '../../inner/vigil.config.ts'], path.join(root, 'outer', 'checks'));
    expect(validated.stdout).toBe('✔ 2 resources valid\n');
  });

  it('says where it looked when no directory up to the root holds a config', async () => {
    const start = path.join(root, 'a', 'b');
    await mkdir(start, { recursive: true });
    const above: string[] = [];
    for (let directory = path.dirname(start); ; directory = path.dirname(directory)) {
      above.push(directory);
      if (path.dirname(directory) === directory) break;
    }
    const failed = await run(['validate'], start);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toBe(
      `Error: no Vigil project found: looked for {vigil.config,checkly.config}.{ts,mts,cts,js,mjs,cjs} in ${start} and the directories above it (${above.join(', ')})\n` +
        'hint: run vigil in a project directory (or below it), pass --config FILE, or create a project with vigil init\n',
    );
  });
});
