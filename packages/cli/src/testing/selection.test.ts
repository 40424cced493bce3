import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ResourceSpec } from '@vigil/engine';
import { collectTagSet, collectVariable, parseGrep, readEnvFile, selectChecks, type Selection } from './selection.js';

function check(logicalId: string, file: string, payload: Record<string, unknown>, line = 1): ResourceSpec {
  return {
    address: `api-check.${logicalId}`,
    kind: 'api-check',
    logicalId,
    payload: { checkType: 'API', name: logicalId, ...payload },
    refs: [],
    source: { file, line, column: 1 },
    protect: false,
    secrets: [],
  };
}

const specs: ResourceSpec[] = [
  check('home', 'checks/web/home.monitor.ts', { name: 'Home page', tags: ['web', 'prod'] }),
  check('api-health', 'checks/api/health.monitor.ts', { name: 'API health', tags: ['api', 'prod'] }),
  check('api-search', 'checks/api/search.monitor.ts', { name: 'Search', tags: ['api'] }),
  { ...check('group', 'checks/groups.ts', {}), kind: 'check-group', address: 'check-group.group', payload: { name: 'g' } },
];
const none: Selection = { patterns: [], tagSets: [] };
const ids = (selection: Partial<Selection>) => selectChecks(specs, { ...none, ...selection }).map((spec) => spec.logicalId);

describe('selectChecks', () => {
  it.each([
    ['no filter: every check, by file', {}, ['api-health', 'api-search', 'home']],
    ['an address picks that check', { patterns: ['api-check.api-health'] }, ['api-health']],
    ['a logical id picks that check only, not the ones containing it', { patterns: ['health'] }, []],
    ['a logical id', { patterns: ['home'] }, ['home']],
    ['a directory picks the checks under it', { patterns: ['checks/api/'] }, ['api-health', 'api-search']],
    ['a file picks its checks', { patterns: ['./checks/web/home.monitor.ts'] }, ['home']],
    ['part of a path is not a directory', { patterns: ['api/'] }, []],
    ['patterns are alternatives', { patterns: ['home', 'api-check.api-search'] }, ['api-search', 'home']],
    ['a glob matches the whole path or its tail', { patterns: ['checks/*/h*.monitor.ts'] }, ['api-health', 'home']],
    ['a glob matches logical ids', { patterns: ['api-*'] }, ['api-health', 'api-search']],
    ['--grep matches names', { grep: /^(Home|Search)/ }, ['api-search', 'home']],
    ['--tags a,b needs all of them', { tagSets: [['api', 'prod']] }, ['api-health']],
    ['repeated --tags is any of the sets', { tagSets: [['web'], ['api', 'prod']] }, ['api-health', 'home']],
    ['filters combine', { patterns: ['api-*'], tagSets: [['prod']] }, ['api-health']],
  ] as const)('%s', (_name, selection, expected) => {
    expect(ids(selection as Partial<Selection>)).toEqual(expected);
  });
});

describe('flag values', () => {
  it('rejects a -e without = or with a bad name', () => {
    expect(() => collectVariable('NOVALUE')).toThrow('-e/--env takes KEY=VALUE with KEY made of letters, digits and _ (not starting with a digit), got "NOVALUE"');
    expect(() => collectVariable('1A=x')).toThrow('got "1A=x"');
    expect(collectVariable('URL=http://a=b', [['A', '1']])).toEqual([['A', '1'], ['URL', 'http://a=b']]);
  });

  it('rejects empty tag names and invalid regular expressions', () => {
    expect(() => collectTagSet('a,,b')).toThrow('--tags takes comma-separated tag names, got "a,,b"');
    expect(() => parseGrep('(')).toThrow(/^--grep is not a valid regular expression: /);
  });

  it('reads dotenv files and names a missing one', () => {
    const directory = mkdtempSync(path.join(tmpdir(), 'vigil-env-'));
    writeFileSync(path.join(directory, '.env'), '# comment\nA=1\nB="two words"\n');
    expect(readEnvFile('.env', directory)).toEqual([['A', '1'], ['B', 'two words']]);
    expect(() => readEnvFile('missing.env', directory)).toThrow('--env-file missing.env: no such file');
  });
});
