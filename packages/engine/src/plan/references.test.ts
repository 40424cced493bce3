import type { ResourceSpec } from '@vigil/constructs';
import { ApiCheckCreate, CheckGroupCreate } from '@vigil/schema';
import { describe, expect, it } from 'vitest';
import type { RemoteSnapshot } from '../refresh/refresh.js';
import { emptyState, type StateDocument } from '../state/index.js';
import { createPlan } from './plan.js';

const target = { baseUrl: 'test', accountId: 'a' };

function check(logicalId: string, line: number, extra: Partial<ResourceSpec> = {}, payload: Record<string, unknown> = {}): ResourceSpec {
  return {
    address: `api-check.${logicalId}`,
    kind: 'api-check',
    logicalId,
    payload: { ...ApiCheckCreate.parse({ name: logicalId, request: { url: 'https://example.com/' } }), ...payload },
    refs: [],
    source: { file: 'monitors/a.monitor.ts', line, column: 1 },
    protect: false,
    secrets: [],
    ...extra,
  };
}

function snapshot(lists: Partial<Record<ResourceSpec['kind'], Array<Record<string, unknown>>>>): RemoteSnapshot {
  return new Map(Object.entries(lists).map(([kind, items]) => [kind as ResourceSpec['kind'], new Map(items!.map((item) => [String(item.id), item]))]));
}

const fresh = (): StateDocument => emptyState({ project: 'p', target });

describe('fromId references at plan time', () => {
  it('reports every reference to a resource missing on the service, each at its construct', () => {
    const specs = [
      check('a', 3, { externalRefs: [{ path: 'groupId', kind: 'check-group', remoteId: 99 }] }, { groupId: 99 }),
      check('b', 7, {
        externalRefs: [
          { path: 'alertChannelSubscriptions[0].alertChannelId', kind: 'alert-channel', remoteId: 5 },
          { path: 'alertChannelSubscriptions[1].alertChannelId', kind: 'alert-channel', remoteId: 6 },
        ],
      }),
    ];
    const remote = snapshot({ 'api-check': [], 'check-group': [{ id: 1, name: 'Other' }], 'alert-channel': [{ id: 5, type: 'EMAIL' }] });
    const { plan } = createPlan({ project: 'p', target, specs, state: fresh(), remote });
    expect(plan.diagnostics.map((d) => [d.source?.line, d.address, d.path, d.message])).toEqual([
      [3, 'api-check.a', 'groupId', 'fromId(99): no check-group with this id exists on the service'],
      [7, 'api-check.b', 'alertChannelSubscriptions[1].alertChannelId', 'fromId(6): no alert-channel with this id exists on the service'],
    ]);
    expect(plan.diagnostics[0]!.hint).toBe('Correct the id, or declare the check-group as a construct and pass the object itself.');
  });

  it('refuses a reference to a resource the same plan deletes', () => {
    const state: StateDocument = {
      ...fresh(),
      serial: 1,
      resources: { 'check-group.old': { kind: 'check-group', remoteId: 12, applied: CheckGroupCreate.parse({ name: 'Old' }), dependsOn: [] } },
    };
    const specs = [check('a', 3, { externalRefs: [{ path: 'groupId', kind: 'check-group', remoteId: 12 }] }, { groupId: 12 })];
    const remote = snapshot({ 'api-check': [], 'check-group': [{ id: 12, name: 'Old' }] });
    const { plan } = createPlan({ project: 'p', target, specs, state, remote });
    expect(plan.diagnostics.map((d) => d.message)).toEqual(['fromId(12) refers to check-group.old, which this plan deletes or replaces (its id goes away)']);
  });

  it('refuses a reference to an alert channel the same plan replaces (its type changed)', async () => {
    const { AlertChannelCreate, CheckGroupCreate: Group } = await import('@vigil/schema');
    const email = AlertChannelCreate.parse({ type: 'EMAIL', config: { address: 'a@example.com' } });
    const state: StateDocument = {
      ...fresh(),
      serial: 1,
      resources: { 'alert-channel.oncall': { kind: 'alert-channel', remoteId: 4, applied: email, dependsOn: [] } },
    };
    const slack: ResourceSpec = {
      address: 'alert-channel.oncall',
      kind: 'alert-channel',
      logicalId: 'oncall',
      payload: AlertChannelCreate.parse({ type: 'SLACK', config: { url: 'https://hooks.example.com/x' } }),
      refs: [],
      source: { file: 'monitors/a.monitor.ts', line: 2, column: 1 },
      protect: false,
      secrets: [],
    };
    const group: ResourceSpec = {
      address: 'check-group.web',
      kind: 'check-group',
      logicalId: 'web',
      payload: { ...Group.parse({ name: 'Web' }), alertChannelSubscriptions: [{ alertChannelId: 4, activated: true }] },
      refs: [],
      externalRefs: [{ path: 'alertChannelSubscriptions[0].alertChannelId', kind: 'alert-channel', remoteId: 4 }],
      source: { file: 'monitors/a.monitor.ts', line: 3, column: 1 },
      protect: false,
      secrets: [],
    };
    const remote = snapshot({ 'alert-channel': [{ ...email, id: 4 }], 'check-group': [] });
    const { plan } = createPlan({ project: 'p', target, specs: [slack, group], state, remote });
    expect(plan.changes.find((change) => change.address === 'alert-channel.oncall')!.action).toBe('replace');
    expect(plan.diagnostics.map((d) => d.message)).toEqual(['fromId(4) refers to alert-channel.oncall, which this plan deletes or replaces (its id goes away)']);
  });

  it('does not judge a kind that was not read', () => {
    const specs = [check('a', 3, { externalRefs: [{ path: 'groupId', kind: 'check-group', remoteId: 99 }] }, { groupId: 99 })];
    const { plan } = createPlan({ project: 'p', target, specs, state: fresh(), remote: snapshot({ 'api-check': [] }) });
    expect(plan.diagnostics).toEqual([]);
  });
});

describe('a renamed logical id', () => {
  const state = (): StateDocument => ({
    ...fresh(),
    serial: 1,
    resources: { 'api-check.home': { kind: 'api-check', remoteId: 'c-1', applied: {}, dependsOn: [] } },
  });

  it('hints at vigil state mv when a delete and a create share kind and name', () => {
    const remote = snapshot({ 'api-check': [{ id: 'c-1', name: 'Home' }] });
    const specs = [check('home-page', 4, {}, { name: 'Home' })];
    const { plan } = createPlan({ project: 'p', target, specs, state: state(), remote });
    expect(plan.diagnostics).toEqual([
      {
        severity: 'warning',
        message: 'api-check.home would be destroyed and api-check.home-page created, both named "Home": was the logical id renamed?',
        hint: 'To keep the existing resource (id c-1) under its new id, run: vigil state mv api-check.home api-check.home-page',
        address: 'api-check.home-page',
        source: { file: 'monitors/a.monitor.ts', line: 4, column: 1 },
      },
    ]);
  });

  it.each([
    ['the names differ', [check('home-page', 4, {}, { name: 'Homepage' })]],
    ['two new resources share the name', [check('home-page', 4, {}, { name: 'Home' }), check('home-2', 5, {}, { name: 'Home' })]],
  ])('gives no hint when %s', (_name, specs) => {
    const remote = snapshot({ 'api-check': [{ id: 'c-1', name: 'Home' }] });
    expect(createPlan({ project: 'p', target, specs, state: state(), remote }).plan.diagnostics).toEqual([]);
  });
});
