import { ApiCheckCreate, CheckGroupCreate, MaintenanceWindowCreate, MultiStepCheckCreate } from '@vigil/schema';
import { describe, expect, it } from 'vitest';
import { diffPayloads } from '../plan/diff.js';
import { hashSecret } from '../state/index.js';
import { apiCheckAdapter } from './api-check.js';
import { checkGroupAdapter } from './check-group.js';
import { maintenanceWindowAdapter } from './maintenance-window.js';
import { multiStepCheckAdapter } from './multistep-check.js';
import { completeDesired, hideSecrets, normalizeRemote } from './normalize.js';
import type { KindAdapter, Payload } from './types.js';

/** What the service returns for a payload: response-only fields added, server-assigned values set. */
function asServed(payload: Payload, extra: Payload = {}): Payload {
  return { ...payload, id: 'x1', created_at: '2026-11-22', updated_at: null, alertChannels: { email: [], webhook: [], slack: [], sms: [] }, frequencyOffset: 7, ...extra };
}

function compare(adapter: KindAdapter, desired: Payload, remote: Payload, secrets: string[] = [], applied?: Payload) {
  const after = hideSecrets(completeDesired(adapter, desired), secrets);
  const before = normalizeRemote({ adapter, remote, managedKeys: Object.keys(after), secretPaths: secrets, applied });
  return diffPayloads(before, after);
}

const apiCheck = ApiCheckCreate.parse({ name: 'Home', tags: ['b', 'a'], locations: ['us-east-1', 'eu-west-1'], request: { url: 'https://example.com' } });

describe('normalisation of an API check', () => {
  const cases: Array<{ name: string; remote: Payload; want: string[] }> = [
    { name: 'server defaults and response-only fields are no difference', remote: asServed(apiCheck), want: [] },
    { name: 'tags in another order are no difference', remote: asServed({ ...apiCheck, tags: ['a', 'b'] }), want: [] },
    { name: 'locations in another order are no difference', remote: asServed({ ...apiCheck, locations: ['eu-west-1', 'us-east-1'] }), want: [] },
    { name: 'a server-assigned frequencyOffset the code does not set is no difference', remote: asServed(apiCheck, { frequencyOffset: 42 }), want: [] },
    { name: 'a group set outside vigil is a difference (absent means cleared)', remote: asServed({ ...apiCheck, groupId: 12 }), want: ['groupId'] },
    { name: 'null and an absent nullable field are the same', remote: asServed({ ...apiCheck, runtimeId: null }), want: [] },
    { name: 'a changed nested field is named by its path', remote: asServed({ ...apiCheck, request: { ...apiCheck.request, url: 'https://example.org' } }), want: ['request.url'] },
    {
      name: 'nested defaults the service fills in are no difference',
      remote: asServed({ ...apiCheck, request: { url: 'https://example.com', method: 'GET' } }),
      want: [],
    },
  ];
  for (const { name, remote, want } of cases) {
    it(name, () => expect(compare(apiCheckAdapter, apiCheck, remote).map((change) => change.path)).toEqual(want));
  }

  it('sends every managed field, clearing those the code leaves out', () => {
    const complete = completeDesired(apiCheckAdapter, apiCheck);
    expect(complete).toMatchObject({ groupId: null, runtimeId: null, retryStrategy: null, triggerIncident: null, setupSnippetId: null });
    expect(complete).not.toHaveProperty('frequencyOffset');
  });
});

describe('normalisation of secrets', () => {
  const check = MultiStepCheckCreate.parse({
    name: 'Flow',
    script: 'run()',
    environmentVariables: [{ key: 'TOKEN', value: 's3cret', secret: true }],
  });
  const secrets = ['environmentVariables[0].value'];
  const applied = hideSecrets(completeDesired(multiStepCheckAdapter, check), secrets);

  it('a secret the service hides (null) is taken to be the last-applied one', () => {
    const remote = asServed({ ...check, environmentVariables: [{ key: 'TOKEN', value: null, secret: true, locked: false }] });
    expect(compare(multiStepCheckAdapter, check, remote, secrets, applied)).toEqual([]);
  });

  it('a secret changed in code differs by hash, never by value', () => {
    const remote = asServed({ ...check, environmentVariables: [{ key: 'TOKEN', value: null, secret: true, locked: false }] });
    const changed = { ...check, environmentVariables: [{ key: 'TOKEN', value: 'n3w', secret: true, locked: false }] };
    expect(compare(multiStepCheckAdapter, changed, remote, secrets, applied)).toEqual([
      { path: 'environmentVariables[0].value', before: hashSecret('s3cret'), after: hashSecret('n3w') },
    ]);
  });
});

describe('normalisation of a check group', () => {
  const group = CheckGroupCreate.parse({ name: 'Web', tags: ['x'] });
  it('the FALLBACK retry strategy and full alert settings the service fills in are no difference', () => {
    expect(compare(checkGroupAdapter, group, { ...group, id: 3, retryStrategy: 'FALLBACK', created_at: '2026-11-22' })).toEqual([]);
  });
  it('a concurrency changed outside vigil is a difference', () => {
    expect(compare(checkGroupAdapter, group, { ...group, id: 3, concurrency: 9 }).map((change) => change.path)).toEqual(['concurrency']);
  });
});

describe('normalisation of a maintenance window', () => {
  const window = MaintenanceWindowCreate.parse({ name: 'Freeze', startsAt: '2026-12-20', endsAt: '2026-12-27', repeatUnit: 'WEEK', tags: ['api'], timezone: 'Europe/Amsterdam', pauseAllChecks: true });
  const served = (extra: Payload = {}) => ({ ...window, id: 7, created_at: '2026-11-22', updated_at: null, ...extra });

  it.each([
    ['as applied', served(), []],
    ['pauseAllChecks switched off outside vigil', served({ pauseAllChecks: false }), ['pauseAllChecks']],
    ['silenceAllAlerts switched on outside vigil', served({ silenceAllAlerts: true }), ['silenceAllAlerts']],
    ['another timezone', served({ timezone: 'UTC' }), ['timezone']],
  ] as const)('%s → %j', (_name, remote, want) => {
    expect(compare(maintenanceWindowAdapter, window, remote).map((change) => change.path)).toEqual(want);
  });
});
