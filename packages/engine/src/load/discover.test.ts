import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { discoverMonitorFiles, resolveConfigPath } from './discover.js';

let root: string;

beforeAll(() => {
  root = mkdtempSync(path.join(os.tmpdir(), 'vigil-discover-'));
  for (const file of [
    'vigil.config.ts',
    'a.monitor.ts',
    'checks/b.monitor.ts',
    'checks/deep/c.monitor.ts',
    'checks/helper.ts',
    'node_modules/pkg/d.monitor.ts',
    'checks/node_modules/e.monitor.ts',
    '.git/f.monitor.ts',
    'legacy/g.monitor.ts',
    'checks/legacy/h.monitor.ts',
    'other/i.check.ts',
  ]) {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), '');
  }
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

const relative = (files: string[]) => files.map((file) => path.relative(root, file));

describe('discoverMonitorFiles', () => {
  const cases: Array<{ name: string; checkMatch?: string | string[]; ignore?: string[]; want: string[] }> = [
    {
      name: 'matches **/*.monitor.ts by default and never looks in node_modules or .git',
      want: ['a.monitor.ts', 'checks/b.monitor.ts', 'checks/deep/c.monitor.ts', 'checks/legacy/h.monitor.ts', 'legacy/g.monitor.ts'],
    },
    {
      name: 'honours a single checkMatch glob',
      checkMatch: 'checks/**/*.monitor.ts',
      want: ['checks/b.monitor.ts', 'checks/deep/c.monitor.ts', 'checks/legacy/h.monitor.ts'],
    },
    {
      name: 'honours several checkMatch globs',
      checkMatch: ['a.monitor.ts', 'other/*.check.ts'],
      want: ['a.monitor.ts', 'other/i.check.ts'],
    },
    {
      name: 'skips a directory named by ignoreDirectoriesMatch, at the root only',
      ignore: ['legacy'],
      want: ['a.monitor.ts', 'checks/b.monitor.ts', 'checks/deep/c.monitor.ts', 'checks/legacy/h.monitor.ts'],
    },
    {
      name: 'skips directories matched by a ** glob at any depth',
      ignore: ['**/legacy'],
      want: ['a.monitor.ts', 'checks/b.monitor.ts', 'checks/deep/c.monitor.ts'],
    },
  ];
  it.each(cases)('$name', async ({ checkMatch, ignore, want }) => {
    expect(relative(await discoverMonitorFiles({ root, checkMatch, ignoreDirectoriesMatch: ignore }))).toEqual(want);
  });

  it.each([
    { ignore: ['checks/legacy/*'], want: ['a.monitor.ts', 'checks/b.monitor.ts', 'checks/deep/c.monitor.ts', 'legacy/g.monitor.ts'] },
    { ignore: ['**/c.monitor.ts'], want: ['a.monitor.ts', 'checks/b.monitor.ts', 'checks/legacy/h.monitor.ts', 'legacy/g.monitor.ts'] },
  ])('skips the files a pattern matches itself ($ignore), as the Checkly CLI does, in both readings', async ({ ignore, want }) => {
    for (const ignoreReading of ['checkly', 'vigil'] as const) {
      expect(relative(await discoverMonitorFiles({ root, ignoreDirectoriesMatch: ignore, ignoreReading }))).toEqual(want);
    }
  });

  it('reads a bare directory name as the Checkly CLI does for a Checkly config: it matches no file, so nothing is skipped', async () => {
    const files = await discoverMonitorFiles({ root, ignoreDirectoriesMatch: ['legacy'], ignoreReading: 'checkly' });
    expect(relative(files)).toEqual(['a.monitor.ts', 'checks/b.monitor.ts', 'checks/deep/c.monitor.ts', 'checks/legacy/h.monitor.ts', 'legacy/g.monitor.ts']);
    const below = await discoverMonitorFiles({ root, ignoreDirectoriesMatch: ['legacy/**'], ignoreReading: 'checkly' });
    expect(relative(below)).toEqual(['a.monitor.ts', 'checks/b.monitor.ts', 'checks/deep/c.monitor.ts', 'checks/legacy/h.monitor.ts']);
  });

  it('never picks up the config itself', async () => {
    const files = await discoverMonitorFiles({ root, checkMatch: '*.ts', exclude: [path.join(root, 'vigil.config.ts')] });
    expect(relative(files)).toEqual(['a.monitor.ts']);
  });
});

describe('resolveConfigPath', () => {
  it('defaults to vigil.config.ts in the working directory', () => {
    expect(resolveConfigPath({ cwd: root })).toBe(path.join(root, 'vigil.config.ts'));
  });

  it('resolves --config against the working directory', () => {
    expect(resolveConfigPath({ cwd: path.dirname(root), configPath: path.join(path.basename(root), 'vigil.config.ts') })).toBe(
      path.join(root, 'vigil.config.ts'),
    );
  });

  it.each([
    ['vigil.config.json', 'must end in .ts, .mts, .cts, .js, .mjs, .cjs (got ".json")'],
    ['missing.config.ts', 'config file not found:'],
  ])('refuses %s', (configPath, message) => {
    expect(() => resolveConfigPath({ cwd: root, configPath })).toThrow(message);
  });

  it('walks up from a subdirectory to the nearest config, as git finds its repository', () => {
    expect(resolveConfigPath({ cwd: path.join(root, 'checks', 'deep') })).toBe(path.join(root, 'vigil.config.ts'));
  });

  it('takes the nearest of nested projects', () => {
    const nested = path.join(root, 'legacy');
    writeFileSync(path.join(nested, 'vigil.config.cjs'), '');
    try {
      expect(resolveConfigPath({ cwd: nested })).toBe(path.join(nested, 'vigil.config.cjs'));
    } finally {
      rmSync(path.join(nested, 'vigil.config.cjs'));
    }
  });

  it('lets --config win over a config found by walking up', () => {
    const other = path.join(root, 'other', 'vigil.config.mjs');
    writeFileSync(other, '');
    try {
      expect(resolveConfigPath({ cwd: path.join(root, 'checks'), configPath: '../other/vigil.config.mjs' })).toBe(other);
    } finally {
      rmSync(other);
    }
  });

  it('names every directory it looked in when no config exists', () => {
    const empty = mkdtempSync(path.join(os.tmpdir(), 'vigil-no-project-'));
    const start = path.join(empty, 'a', 'b');
    mkdirSync(start, { recursive: true });
    try {
      const above = [path.join(empty, 'a'), empty];
      for (let directory = path.dirname(empty); ; directory = path.dirname(directory)) {
        above.push(directory);
        if (path.dirname(directory) === directory) break;
      }
      expect(() => resolveConfigPath({ cwd: start })).toThrow(
        `no Vigil project found: looked for {vigil.config,checkly.config}.{ts,mts,cts,js,mjs,cjs} in ${start} and the directories above it (${above.join(', ')})\n` +
          'hint: run vigil in a project directory (or below it), pass --config FILE, or create a project with vigil init',
      );
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });
});

describe('resolveConfigPath in a Checkly project', () => {
  const cases: Array<{ name: string; files: string[]; want: string }> = [
    ...['ts', 'mts', 'js', 'mjs', 'cjs'].map((extension) => ({
      name: `finds checkly.config.${extension} from a subdirectory`,
      files: [`checkly.config.${extension}`],
      want: `checkly.config.${extension}`,
    })),
    { name: 'prefers vigil.config.ts to a checkly.config.ts beside it', files: ['checkly.config.ts', 'vigil.config.ts'], want: 'vigil.config.ts' },
    { name: 'prefers a nearer checkly.config.ts to a vigil.config.ts above it', files: ['vigil.config.ts', 'sub/checkly.config.ts'], want: 'sub/checkly.config.ts' },
  ];
  it.each(cases)('$name', ({ files, want }) => {
    const project = mkdtempSync(path.join(os.tmpdir(), 'vigil-checkly-config-'));
    try {
      for (const file of files) {
        mkdirSync(path.dirname(path.join(project, file)), { recursive: true });
        writeFileSync(path.join(project, file), '');
      }
      const cwd = path.join(project, 'sub', 'deep');
      mkdirSync(cwd, { recursive: true });
      expect(resolveConfigPath({ cwd })).toBe(path.join(project, want));
    } finally {
      rmSync(project, { recursive: true, force: true });
    }
  });
});
