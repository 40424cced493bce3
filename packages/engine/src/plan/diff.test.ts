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

describe('diffPayloads on lists whose elements have an identity', () => {
  const status = { source: 'STATUS_CODE', comparison: 'EQUALS', property: '', target: '200' };
  const time = { source: 'RESPONSE_TIME', comparison: 'LESS_THAN', property: '', target: '500' };
  const body = { source: 'TEXT_BODY', comparison: 'CONTAINS', property: '', target: 'ok' };
  const json = { source: 'JSON_BODY', comparison: 'EQUALS', property: '$.a', target: '1' };
  const header = (key: string, value = 'v') => ({ key, value, locked: false });
  const cases: Array<{ name: string; before: unknown; after: unknown; sets?: string[]; want: Array<{ path: string; before: unknown; after: unknown }> }> = [
    {
      name: 'an assertion inserted in the middle is one insertion at its new index',
      before: { request: { assertions: [status, time, body] } },
      after: { request: { assertions: [status, json, time, body] } },
      want: [{ path: 'request.assertions[1]', before: undefined, after: json }],
    },
    {
      name: 'a removed assertion is one removal at the index it has on the service',
      before: { request: { assertions: [status, json, time, body] } },
      after: { request: { assertions: [status, time, body] } },
      want: [{ path: 'request.assertions[1]', before: json, after: undefined }],
    },
    {
      name: 'an assertion edited in place reads as the fields that changed',
      before: { request: { assertions: [status, time] } },
      after: { request: { assertions: [status, { ...time, target: '800' }] } },
      want: [{ path: 'request.assertions[1].target', before: '500', after: '800' }],
    },
    {
      name: 'an insertion before an edited assertion keeps both apart',
      before: { request: { assertions: [status, time] } },
      after: { request: { assertions: [json, status, { ...time, target: '800' }] } },
      want: [
        { path: 'request.assertions[0]', before: undefined, after: json },
        { path: 'request.assertions[2].target', before: '500', after: '800' },
      ],
    },
    {
      name: 'headers are matched by key: an insertion, and a value change at the new index',
      before: { request: { headers: [header('A'), header('B', 'old')] } },
      after: { request: { headers: [header('X'), header('A'), header('B', 'new')] } },
      want: [
        { path: 'request.headers[0]', before: undefined, after: header('X') },
        { path: 'request.headers[2].value', before: 'old', after: 'new' },
      ],
    },
    {
      name: 'a header renamed is the old one removed and the new one inserted, not an edit',
      before: { request: { headers: [header('A')] } },
      after: { request: { headers: [header('B')] } },
      want: [
        { path: 'request.headers[0]', before: header('A'), after: undefined },
        { path: 'request.headers[0]', before: undefined, after: header('B') },
      ],
    },
    {
      name: 'query parameters are matched by key',
      before: { request: { queryParameters: [header('a'), header('b'), header('c')] } },
      after: { request: { queryParameters: [header('a'), header('c')] } },
      want: [{ path: 'request.queryParameters[1]', before: header('b'), after: undefined }],
    },
    {
      name: 'environment variables are matched by key, secret or not',
      before: { environmentVariables: [{ key: 'TOKEN', value: 'sha256:1', secret: true }] },
      after: { environmentVariables: [{ key: 'REGION', value: 'eu', secret: false }, { key: 'TOKEN', value: 'sha256:1', secret: true }] },
      want: [{ path: 'environmentVariables[0]', before: undefined, after: { key: 'REGION', value: 'eu', secret: false } }],
    },
    {
      name: 'alert channel subscriptions are matched by channel id',
      before: { alertChannelSubscriptions: [{ alertChannelId: 1, activated: true }, { alertChannelId: 2, activated: true }] },
      after: { alertChannelSubscriptions: [{ alertChannelId: 2, activated: false }] },
      want: [
        { path: 'alertChannelSubscriptions[0]', before: { alertChannelId: 1, activated: true }, after: undefined },
        { path: 'alertChannelSubscriptions[0].activated', before: true, after: false },
      ],
    },
    {
      name: 'a set field reads as the elements added and removed',
      before: { locations: ['eu-west-1', 'us-east-1'], tags: ['api'] },
      after: { locations: ['eu-central-1', 'eu-west-1'], tags: ['api', 'prod'] },
      sets: ['locations', 'tags'],
      want: [
        { path: 'locations[0]', before: undefined, after: 'eu-central-1' },
        { path: 'locations[1]', before: 'us-east-1', after: undefined },
        { path: 'tags[1]', before: undefined, after: 'prod' },
      ],
    },
    {
      name: 'a list of primitives that is not a set is still shown whole',
      before: { retryStrategy: { onlyOn: ['NETWORK_ERROR'] } },
      after: { retryStrategy: { onlyOn: ['NETWORK_ERROR', 'TIMEOUT'] } },
      want: [{ path: 'retryStrategy.onlyOn', before: ['NETWORK_ERROR'], after: ['NETWORK_ERROR', 'TIMEOUT'] }],
    },
    {
      name: 'a list that was null reads as the whole new list',
      before: { environmentVariables: null },
      after: { environmentVariables: [{ key: 'A', value: '1' }] },
      want: [{ path: 'environmentVariables', before: null, after: [{ key: 'A', value: '1' }] }],
    },
  ];
  for (const { name, before, after, sets, want } of cases) {
    it(name, () => expect(diffPayloads(before, after, { sets })).toEqual(want));
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
