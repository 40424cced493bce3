import { describe, expect, it } from 'vitest';
import { applyGroupDefaults, groupVariables, resolveGroupBaseUrl, type GroupRunDefaults } from './group-defaults.js';

const apiCheck = (request: Record<string, unknown>) => ({ checkType: 'API', name: 'c', request: { method: 'GET', url: 'https://x', ...request } });

describe('applyGroupDefaults', () => {
  it('returns the check unchanged when it has no group', () => {
    const check = apiCheck({});
    expect(applyGroupDefaults(check, undefined)).toBe(check);
  });

  it("adds the group's headers and query parameters, the check's winning for the same name", () => {
    const group: GroupRunDefaults = {
      apiCheckDefaults: {
        headers: [{ key: 'X-Team', value: 'group' }, { key: 'accept', value: 'text/html' }],
        queryParameters: [{ key: 'page', value: '1' }, { key: 'Page', value: '2' }],
      },
    };
    const merged = applyGroupDefaults(apiCheck({ headers: [{ key: 'Accept', value: 'application/json' }], queryParameters: [{ key: 'page', value: '9' }] }), group);
    const request = merged.request as Record<string, unknown>;
    expect(request.headers).toEqual([{ key: 'X-Team', value: 'group' }, { key: 'Accept', value: 'application/json' }]);
    // Query parameter names are case-sensitive, so the group's `Page` stays.
    expect(request.queryParameters).toEqual([{ key: 'Page', value: '2' }, { key: 'page', value: '9' }]);
  });

  it("appends the group's assertions and uses its basic auth only when the check has none", () => {
    const group: GroupRunDefaults = {
      apiCheckDefaults: { assertions: [{ source: 'STATUS_CODE', comparison: 'LESS_THAN', target: '500' }], basicAuth: { username: 'g', password: 'gp' } },
    };
    const own = applyGroupDefaults(apiCheck({ assertions: [{ source: 'TEXT_BODY', comparison: 'CONTAINS', target: 'ok' }], basicAuth: { username: 'me', password: 'p' } }), group);
    expect((own.request as Record<string, unknown>).assertions).toHaveLength(2);
    expect((own.request as Record<string, unknown>).basicAuth).toEqual({ username: 'me', password: 'p' });
    const none = applyGroupDefaults(apiCheck({ basicAuth: { username: '', password: '' } }), group);
    expect((none.request as Record<string, unknown>).basicAuth).toEqual({ username: 'g', password: 'gp' });
  });

  it("runs the group's scripts only for checks without their own, for every check type", () => {
    const group: GroupRunDefaults = { localSetupScript: 'group-setup', localTearDownScript: 'group-teardown' };
    expect(applyGroupDefaults({ checkType: 'MULTI_STEP', localSetupScript: 'mine' }, group)).toMatchObject({ localSetupScript: 'mine', localTearDownScript: 'group-teardown' });
  });

  it("applies the group's retry strategy instead of the check's, unless the group says FALLBACK", () => {
    const check = { checkType: 'API', retryStrategy: { type: 'FIXED', maxRetries: 2 }, doubleCheck: true };
    const linear = { type: 'LINEAR', maxRetries: 3 };
    expect(applyGroupDefaults(check, { retryStrategy: linear })).toMatchObject({ retryStrategy: linear, doubleCheck: true });
    expect(applyGroupDefaults(check, { retryStrategy: null })).toMatchObject({ retryStrategy: null, doubleCheck: false });
    expect(applyGroupDefaults(check, { retryStrategy: 'FALLBACK' })).toMatchObject({ retryStrategy: { type: 'FIXED', maxRetries: 2 }, doubleCheck: true });
  });

  it('does not change its inputs', () => {
    const check = apiCheck({ headers: [] });
    const group: GroupRunDefaults = { apiCheckDefaults: { headers: [{ key: 'a', value: 'b' }] } };
    const before = structuredClone({ check, group });
    applyGroupDefaults(check, group);
    expect({ check, group }).toEqual(before);
  });
});

describe('groupVariables', () => {
  it("lists the group's variables, then GROUP_BASE_URL when the group has a base URL", () => {
    expect(groupVariables({ environmentVariables: [{ key: 'A', value: '1' }], apiCheckDefaults: { url: 'https://api.example.com/v1' } })).toEqual([
      { key: 'A', value: '1' },
      { key: 'GROUP_BASE_URL', value: 'https://api.example.com/v1' },
    ]);
    expect(groupVariables({ apiCheckDefaults: { url: '' } })).toEqual([]);
  });
});

describe('resolveGroupBaseUrl', () => {
  it('interpolates variables inside GROUP_BASE_URL from the rest of the list, first match winning', () => {
    const resolved = resolveGroupBaseUrl([
      { key: 'ENV_URL', value: 'https://preview.example.com' },
      { key: 'GROUP_BASE_URL', value: '{{ENV_URL}}/api' },
      { key: 'ENV_URL', value: 'https://prod.example.com' },
    ]);
    expect(resolved[1]).toEqual({ key: 'GROUP_BASE_URL', value: 'https://preview.example.com/api' });
    expect(resolveGroupBaseUrl([{ key: 'GROUP_BASE_URL', value: '{{MISSING}}' }])[0]!.value).toBe('{{MISSING}}');
  });
});
