import { describe, expect, it } from 'vitest';
import { diffPayloads } from './diff.js';
import { formatPath, getAtPath, parsePath, replaceAtPath } from '../kinds/paths.js';
import { maskSecrets } from './secrets.js';

describe('diffPayloads', () => {
  const cases: Array<{ name: string; before: unknown; after: unknown; want: Array<{ path: string; before: unknown; after: unknown }> }> = [
    { name: 'equal payloads have no changes', before: { a: 1, b: { c: [1, 2] } }, after: { a: 1, b: { c: [1, 2] } }, want: [] },
    { name: 'a changed scalar is one change', before: { frequency: 5 }, after: { frequency: 10 }, want: [{ path: 'frequency', before: 5, after: 10 }] },
    { name: 'a new field has no before', before: {}, after: { name: 'x' }, want: [{ path: 'name', before: undefined, after: 'x' }] },
    { name: 'a removed field has no after', before: { name: 'x' }, after: {}, want: [{ path: 'name', before: 'x', after: undefined }] },
    {
      name: 'nested fields read as dotted paths with indexes',
      before: { request: { assertions: [{ source: 'STATUS_CODE', target: '200' }] } },
      after: { request: { assertions: [{ source: 'STATUS_CODE', target: '201' }] } },
      want: [{ path: 'request.assertions[0].target', before: '200', after: '201' }],
    },
    {
      name: 'a change inside a list of primitives shows the whole list',
      before: { tags: ['a', 'b'] },
      after: { tags: ['a', 'b', 'c'] },
      want: [{ path: 'tags', before: ['a', 'b'], after: ['a', 'b', 'c'] }],
    },
    {
      name: 'an appended object is reported at its index',
      before: { headers: [] },
      after: { headers: [{ key: 'x', value: 'y' }] },
      want: [{ path: 'headers[0]', before: undefined, after: { key: 'x', value: 'y' } }],
    },
    {
      name: 'changes sort by path, numerically for indexes',
      before: { list: Array.from({ length: 11 }, (_, i) => ({ v: i })) },
      after: { list: Array.from({ length: 11 }, (_, i) => ({ v: i + 1 })) },
      want: Array.from({ length: 11 }, (_, i) => ({ path: `list[${i}].v`, before: i, after: i + 1 })),
    },
  ];
  for (const { name, before, after, want } of cases) {
    it(name, () => expect(diffPayloads(before, after)).toEqual(want));
  }
});

describe('paths', () => {
  it('formats and parses the same path', () => {
    const segments = ['request', 'assertions', 0, 'target'];
    expect(formatPath(segments)).toBe('request.assertions[0].target');
    expect(parsePath('request.assertions[0].target')).toEqual(segments);
  });
  it('reads and replaces at a path without touching the original', () => {
    const original = { a: [{ b: 1 }] };
    const copy = replaceAtPath(original, 'a[0].b', () => 2);
    expect(getAtPath(copy, 'a[0].b')).toBe(2);
    expect(original.a[0]!.b).toBe(1);
  });
  it('leaves a missing path alone', () => {
    expect(replaceAtPath({ a: 1 }, 'b.c', () => 2)).toEqual({ a: 1 });
  });
});

describe('maskSecrets', () => {
  it('masks a change at a secret path', () => {
    expect(maskSecrets([{ path: 'config.apiKey', before: 'sha256:1', after: 'sha256:2' }], ['config.apiKey'])).toEqual([
      { path: 'config.apiKey', before: '(sensitive)', after: '(sensitive)' },
    ]);
  });
  it('masks a secret nested inside a changed value', () => {
    const [masked] = maskSecrets(
      [{ path: 'environmentVariables', before: undefined, after: [{ key: 'TOKEN', value: 'hunter2', secret: true }] }],
      ['environmentVariables[0].value'],
    );
    expect(masked).toEqual({ path: 'environmentVariables', before: undefined, after: [{ key: 'TOKEN', value: '(sensitive)', secret: true }] });
  });
  it('leaves other fields alone', () => {
    expect(maskSecrets([{ path: 'name', before: 'a', after: 'b' }], ['config.apiKey'])).toEqual([{ path: 'name', before: 'a', after: 'b' }]);
  });
});
