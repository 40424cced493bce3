import { describe, expect, it } from 'vitest';
import { RESOURCE_KINDS, type ResourceKind } from '@vigil/constructs';
import type { RemoteObject } from '../kinds/types.js';
import type { RemoteSnapshot } from '../refresh/refresh.js';
import { emptyState } from '../state/index.js';
import { parseImportFilter, selectCandidates } from './select.js';

const remote: RemoteSnapshot = new Map<ResourceKind, Map<string, RemoteObject>>([
  ['api-check', new Map<string, RemoteObject>([
    ['c1', { id: 'c1', name: 'Home', tags: ['web'] }],
    ['c2', { id: 'c2', name: 'Pay', tags: ['pay'] }],
  ])],
  ['alert-channel', new Map<string, RemoteObject>([['7', { id: 7, type: 'EMAIL', config: { address: 'oncall@example.com' } }]])],
  ['status-page-service', new Map<string, RemoteObject>([['s1', { id: 's1', name: 'Payments' }]])],
]);

const state = {
  ...emptyState({ project: 'shop', target: { baseUrl: 'http://127.0.0.1:1', accountId: '' } }),
  resources: { 'api-check.pay': { kind: 'api-check' as const, remoteId: 'c2', applied: {}, dependsOn: [] } },
};

const addresses = (options: Partial<Parameters<typeof selectCandidates>[0]>) =>
  selectCandidates({ remote, state, filters: [], ...options }).map((candidate) => `${candidate.kind}.${String(candidate.remoteId)} ${candidate.name}`);

describe('parseImportFilter', () => {
  it('reads a kind, or a kind and a remote id', () => {
    expect(parseImportFilter('api-check')).toEqual({ kind: 'api-check' });
    expect(parseImportFilter('alert-channel.12')).toEqual({ kind: 'alert-channel', remoteId: '12' });
  });

  it.each([
    // Every kind, sorted: the list grows with each kind added.
    ['checks', `unknown kind "checks" in filter "checks"; kinds are ${[...RESOURCE_KINDS].sort().join(', ')}`],
    ['api-check.', 'filter "api-check." has no remote id after the dot; write api-check or api-check.<id>'],
  ])('rejects %j', (text, message) => {
    expect(() => parseImportFilter(text)).toThrow(message);
  });
});

describe('selectCandidates', () => {
  it('selects every unmanaged resource, channels and services before checks', () => {
    expect(addresses({})).toEqual(['alert-channel.7 oncall@example.com', 'status-page-service.s1 Payments', 'api-check.c1 Home']);
  });

  it('narrows to kinds and single resources', () => {
    expect(addresses({ filters: [parseImportFilter('alert-channel'), parseImportFilter('api-check.c1')] })).toEqual(['alert-channel.7 oncall@example.com', 'api-check.c1 Home']);
  });

  it('narrows by tag (kinds without tags never match) and by name', () => {
    expect(addresses({ tag: 'web' })).toEqual(['api-check.c1 Home']);
    expect(addresses({ name: /^Pay/ })).toEqual(['status-page-service.s1 Payments']);
  });

  it('never selects a resource the state already manages', () => {
    expect(addresses({ filters: [parseImportFilter('api-check.c2')] })).toEqual([]);
  });
});
