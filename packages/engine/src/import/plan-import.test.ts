import { ApiCheckCreate, CheckGroupCreate, MultiStepCheckCreate } from '@vigil/schema';
import { describe, expect, it } from 'vitest';
import type { RemoteObject } from '../kinds/types.js';
import { emptyState, hashSecret, type StateDocument } from '../state/index.js';
import type { Code } from './code.js';
import { planImport, type ImportInput } from './plan-import.js';
import type { Candidate } from './select.js';

const STATE = emptyState({ project: 'shop', target: { baseUrl: 'http://127.0.0.1:1', accountId: '' } });

function apiCheck(id: string, fields: Record<string, unknown>): Candidate {
  const remote: RemoteObject = { ...ApiCheckCreate.parse({ request: { url: 'https://example.com/' }, ...fields }), id, frequencyOffset: 1 };
  return { kind: 'api-check', remoteId: id, remote, name: String(fields.name) };
}

function group(id: number, fields: Record<string, unknown>): Candidate {
  return { kind: 'check-group', remoteId: id, remote: { ...CheckGroupCreate.parse(fields), id }, name: String(fields.name) };
}

function plan(candidates: Candidate[], options: Partial<ImportInput> = {}) {
  return planImport({ candidates, state: STATE, projectAddresses: [], env: {}, existingFiles: [], ...options });
}

/** The props as `key: kind` pairs, enough to tell which were written and how. */
function propsOf(code: Code): Record<string, unknown> {
  if (code.type !== 'object') throw new Error('expected an object');
  return Object.fromEntries(code.entries.map(([key, value]) => [key, value.type === 'literal' ? value.value : value.type === 'call' ? value.text : value.type]));
}

describe('planImport', () => {
  it('derives logical ids distinct from each other, the code and the state, with check kinds sharing them', () => {
    const state: StateDocument = { ...STATE, resources: { 'multistep-check.home-2': { kind: 'multistep-check', remoteId: 'm1', applied: {}, dependsOn: [] } } };
    const result = plan([apiCheck('a', { name: 'Home' }), apiCheck('b', { name: 'Home' }), group(1, { name: 'Home' })], { state, projectAddresses: ['api-check.home'] });
    expect(result.resources.map((resource) => resource.address)).toEqual(['api-check.home-3', 'api-check.home-4', 'check-group.home']);
  });

  it('writes only the props that differ from what the check would inherit from the config', () => {
    const result = plan([apiCheck('a', { name: 'Five', frequency: 5 }), apiCheck('b', { name: 'Ten', frequency: 10 })], { checkDefaults: { frequency: 5, tags: ['team'] } });
    expect(result.resources.map((resource) => propsOf(resource.props))).toEqual([
      { name: 'Five', tags: 'array', request: 'object' },
      { name: 'Ten', tags: 'array', frequency: 'Frequency.EVERY_10M', request: 'object' },
    ]);
  });

  it("writes a grouped check's own locations (a group passes its checks none) and refers to the group by variable", () => {
    const result = plan([
      group(1, { name: 'Payments', locations: ['eu-west-1'] }),
      apiCheck('a', { name: 'Same', groupId: 1, locations: ['eu-west-1'] }),
      apiCheck('b', { name: 'Other', groupId: 1, locations: ['us-east-1'] }),
    ]);
    const [, same, other] = result.resources;
    expect(propsOf(same!.props)).toEqual({ name: 'Same', locations: 'array', group: 'ref', request: 'object' });
    expect(propsOf(other!.props)).toEqual({ name: 'Other', locations: 'array', group: 'ref', request: 'object' });
    expect(same!.dependsOn).toEqual(['check-group.payments']);
    expect(result.files).toEqual([{ name: 'payments.monitor.ts', addresses: ['check-group.payments', 'api-check.same', 'api-check.other'] }]);
  });

  it('refers to a group it does not import with fromId and no dependency', () => {
    const [check] = plan([apiCheck('a', { name: 'Home', groupId: 9 })]).resources;
    expect(propsOf(check!.props).group).toBe('CheckGroup.fromId(9)');
    expect(check!.dependsOn).toEqual([]);
  });

  it('never names a file like one already in the output directory', () => {
    const result = plan([apiCheck('a', { name: 'Home' })], { existingFiles: ['checks.monitor.ts', 'notes.md'] });
    expect(result.files.map((file) => file.name)).toEqual(['checks-2.monitor.ts']);
  });

  it('records a hidden secret as the hash of its environment variable when set, and as unknown when not', () => {
    const remote = { ...MultiStepCheckCreate.parse({ name: 'Flow', script: 'run()' }), id: 'm', environmentVariables: [{ key: 'TOKEN', value: null, locked: false, secret: true }] };
    const candidate: Candidate = { kind: 'multistep-check', remoteId: 'm', remote, name: 'Flow' };
    const withEnv = plan([candidate], { env: { FLOW_TOKEN: 'tok' } });
    expect(withEnv.variables).toEqual([{ name: 'FLOW_TOKEN', address: 'multistep-check.flow', path: 'environmentVariables[0].value', returnedByService: false }]);
    expect((withEnv.resources[0]!.applied.environmentVariables as Array<{ value: unknown }>)[0]!.value).toBe(hashSecret('tok'));
    const withoutEnv = plan([candidate]);
    expect((withoutEnv.resources[0]!.applied.environmentVariables as Array<{ value: unknown }>)[0]!.value).toBeNull();
  });

  it('records a secret the service returns as its hash, never in clear', () => {
    const [check] = plan([apiCheck('a', { name: 'Private', request: { url: 'https://example.com/', basicAuth: { username: 'u', password: 'pw' } } })]).resources;
    const applied = JSON.stringify(check!.applied);
    expect(applied).toContain(hashSecret('pw'));
    expect(applied).not.toContain('"pw"');
  });
});

describe('planImport state entries', () => {
  it('records in applied exactly the fields the code manages: no frequencyOffset unless sub-minute', () => {
    const [five, fast] = plan([apiCheck('a', { name: 'Five', frequency: 5 }), { ...apiCheck('b', { name: 'Fast', frequency: 0 }), remote: { ...apiCheck('b', { name: 'Fast', frequency: 0 }).remote, frequencyOffset: 10 } }]).resources;
    expect(five!.applied).not.toHaveProperty('frequencyOffset');
    expect(fast!.applied).toHaveProperty('frequencyOffset', 10);
    expect(propsOf(fast!.props).frequency).toBe('Frequency.EVERY_10S');
  });
});

describe('planImport of what a construct cannot express', () => {
  it('leaves retryStrategy.onlyOn out of a multi-step check, with a warning, so the code loads', () => {
    const remote: RemoteObject = {
      ...MultiStepCheckCreate.parse({ name: 'Flow', script: 'await run();', retryStrategy: { type: 'FIXED', onlyOn: ['NETWORK_ERROR'] } }),
      id: 'm1',
    };
    const [check] = plan([{ kind: 'multistep-check', remoteId: 'm1', remote, name: 'Flow' }]).resources;
    expect(propsOf(check!.props).retryStrategy).toBe('RetryStrategyBuilder.fixedStrategy()');
    expect(check!.warnings).toEqual([
      'retries only on NETWORK_ERROR (retryStrategy.onlyOn), which a MultiStepCheck cannot express; the code retries on any failure, so the next plan clears onlyOn',
    ]);
  });
});
