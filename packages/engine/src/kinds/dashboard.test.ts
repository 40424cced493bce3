import { DashboardCreate } from '@vigil/schema';
import { describe, expect, it } from 'vitest';
import type { Code } from '../import/code.js';
import { planImport } from '../import/plan-import.js';
import { emptyState } from '../state/index.js';
import { dashboardAdapter } from './dashboard.js';
import { completeDesired, normalizeRemote } from './normalize.js';
import type { CallRequest, RemoteObject, ServiceCalls } from './types.js';

const desired = completeDesired(dashboardAdapter, DashboardCreate.parse({ header: 'Acme status', customUrl: 'acme-status', tags: ['prod', 'api'] }) as Record<string, unknown>);

/** What the service answers: the create body plus its two ids and the creation time. */
const remote: RemoteObject = { ...desired, tags: ['prod', 'api'], id: 7, dashboardId: 'd-7', created_at: '2026-11-27T00:00:00.000Z' };

const STATE = emptyState({ project: 'status', target: { baseUrl: 'http://127.0.0.1:1', accountId: '' } });

function propsOf(code: Code): Record<string, unknown> {
  if (code.type !== 'object') throw new Error('expected an object');
  return Object.fromEntries(code.entries.map(([key, value]) => [key, value.type === 'literal' ? value.value : value.type === 'object' || value.type === 'array' ? propsOrItems(value) : value.type]));
}

function propsOrItems(code: Code): unknown {
  if (code.type === 'array') return code.items.map((item) => (item.type === 'literal' ? item.value : item.type));
  return propsOf(code);
}

describe('dashboard adapter', () => {
  it('compares tags as a set and leaves out the ids and creation time, so an applied dashboard plans no change', () => {
    const normalized = normalizeRemote({ adapter: dashboardAdapter, remote: { ...remote, tags: ['api', 'prod'] }, managedKeys: Object.keys(desired), secretPaths: [], applied: undefined });
    expect(normalized).toEqual(desired);
  });

  it('addresses a dashboard by its dashboardId, not its numeric id, on update and delete', async () => {
    const calls: Array<[string, CallRequest | undefined]> = [];
    const api: ServiceCalls = {
      call: async (endpoint, request) => {
        calls.push([endpoint, request]);
        return remote;
      },
      listAll: async function* () {
        yield remote;
      },
    };
    expect(dashboardAdapter.remoteIdOf(remote)).toBe('d-7');
    await dashboardAdapter.update(api, 'd-7', desired);
    await dashboardAdapter.remove(api, 'd-7');
    expect(calls).toEqual([
      ['dashboards.update', { params: { dashboardId: 'd-7' }, body: desired }],
      ['dashboards.delete', { params: { dashboardId: 'd-7' } }],
    ]);
  });

  it('names a dashboard by its customUrl or customDomain, which the service keeps unique', () => {
    expect(dashboardAdapter.nameOf(desired)).toBe('acme-status');
    expect(dashboardAdapter.nameOf({ ...desired, customUrl: null, customDomain: 'status.acme.com' })).toBe('status.acme.com');
  });

  it('imports a Dashboard with its names, header and only the props that differ from the defaults', () => {
    const result = planImport({
      candidates: [{ kind: 'dashboard', remoteId: 'd-7', remote: { ...remote, refreshRate: 300, isPrivate: true, customCSS: '.a {}' }, name: 'Acme status' }],
      state: STATE,
      projectAddresses: [],
      env: {},
      existingFiles: [],
    });
    const [resource] = result.resources;
    expect(resource).toMatchObject({ address: 'dashboard.acme-status', construct: 'Dashboard', file: 'dashboards.monitor.ts' });
    expect(propsOf(resource!.props)).toEqual({
      customUrl: 'acme-status', header: 'Acme status', tags: ['api', 'prod'], refreshRate: 300, isPrivate: true, customCSS: { content: '.a {}' },
    });
    expect(resource!.applied).toEqual({ ...desired, refreshRate: 300, isPrivate: true, customCSS: '.a {}', tags: ['api', 'prod'] });
  });
});
