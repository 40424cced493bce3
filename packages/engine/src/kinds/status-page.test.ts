import { StatusPageCreate } from '@vigil/schema';
import { describe, expect, it } from 'vitest';
import type { Code } from '../import/code.js';
import { planImport } from '../import/plan-import.js';
import { diffPayloads } from '../plan/diff.js';
import { emptyState } from '../state/index.js';
import { completeDesired, normalizeRemote } from './normalize.js';
import { statusPageAdapter } from './status-page.js';
import type { CallRequest, RemoteObject, ServiceCalls } from './types.js';

const WEB = '0193a0b2-0000-7000-8000-000000000001';
const DB = '0193a0b2-0000-7000-8000-000000000002';
const STATE = emptyState({ project: 'status', target: { baseUrl: 'http://127.0.0.1:1', accountId: '' } });

const desired = completeDesired(
  statusPageAdapter,
  StatusPageCreate.parse({ name: 'Acme status', url: 'acme-status', cards: [{ name: 'Core', services: [{ id: WEB }, { id: DB }] }, { name: 'Empty' }] }) as Record<string, unknown>,
);

const service = (id: string, name: string) => ({ id, name, accountId: 'acme', created_at: '2026-11-27T00:00:00.000Z', updated_at: null });

/** What the service answers: the create body with its ids, cards with ids and services in full. */
const remote: RemoteObject = {
  ...desired,
  id: 'p-7',
  accountId: 'acme',
  isPrivate: false,
  created_at: '2026-11-27T00:00:00.000Z',
  updated_at: null,
  cards: [
    { id: 'c-1', name: 'Core', services: [service(WEB, 'Web'), service(DB, 'Database')], created_at: '2026-11-27T00:00:00.000Z', updated_at: null },
    { id: 'c-2', name: 'Empty', services: [], created_at: '2026-11-27T00:00:00.000Z', updated_at: null },
  ],
};

const normalized = (from: RemoteObject) =>
  normalizeRemote({ adapter: statusPageAdapter, remote: from, managedKeys: Object.keys(desired), secretPaths: [], applied: undefined });

function codeValue(code: Code): unknown {
  switch (code.type) {
    case 'literal':
      return code.value;
    case 'array':
      return code.items.map(codeValue);
    case 'object':
      return Object.fromEntries(code.entries.map(([key, value]) => [key, codeValue(value)]));
    case 'ref':
      return `ref:${code.address}`;
    case 'call':
      return `call:${code.text}`;
    case 'env':
      return `env:${code.name}`;
  }
}

describe('status-page adapter', () => {
  it("leaves out the page's and cards' ids and timestamps and the services' names, so an applied page plans no change", () => {
    expect(normalized(remote)).toEqual(desired);
    const renamed = { ...remote, cards: [{ ...(remote.cards as RemoteObject[])[0], services: [service(WEB, 'Website'), service(DB, 'DB')] }, (remote.cards as RemoteObject[])[1]] };
    expect(normalized(renamed)).toEqual(desired);
  });

  it('compares cards as an ordered list: swapping two cards or two services of a card is a change', () => {
    const [core, empty] = remote.cards as RemoteObject[];
    expect(normalized({ ...remote, cards: [empty, core] })).not.toEqual(desired);
    const swapped = { ...core, services: [service(DB, 'Database'), service(WEB, 'Web')] };
    const changes = diffPayloads(normalized({ ...remote, cards: [swapped, empty] }), desired);
    expect(changes.map((change) => change.path)).toEqual(['cards[0].services[0].id', 'cards[0].services[1].id']);
  });

  it('addresses a page by its id as the statusPageId path parameter, and recovers a create by its url', async () => {
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
    expect(statusPageAdapter.remoteIdOf(remote)).toBe('p-7');
    expect(statusPageAdapter.nameOf(desired)).toBe('acme-status');
    await statusPageAdapter.update(api, 'p-7', desired);
    await statusPageAdapter.remove(api, 'p-7');
    expect(calls).toEqual([
      ['statusPages.update', { params: { statusPageId: 'p-7' }, body: desired }],
      ['statusPages.delete', { params: { statusPageId: 'p-7' } }],
    ]);
  });

  it('imports a StatusPage whose cards refer to the imported services by variable and to others by fromId', () => {
    const result = planImport({
      candidates: [
        { kind: 'status-page-service', remoteId: WEB, remote: service(WEB, 'Web'), name: 'Web' },
        { kind: 'status-page', remoteId: 'p-7', remote: { ...remote, defaultTheme: 'DARK', logo: 'https://acme.com/logo.png' }, name: 'Acme status' },
      ],
      state: STATE,
      projectAddresses: [],
      env: {},
      existingFiles: [],
    });
    const page = result.resources.find((resource) => resource.kind === 'status-page')!;
    expect(page).toMatchObject({ address: 'status-page.acme-status', construct: 'StatusPage', file: 'status-pages.monitor.ts', dependsOn: ['status-page-service.web'] });
    expect(codeValue(page.props)).toEqual({
      name: 'Acme status',
      url: 'acme-status',
      cards: [{ name: 'Core', services: ['ref:status-page-service.web', `call:StatusPageService.fromId('${DB}')`] }, { name: 'Empty' }],
      logo: 'https://acme.com/logo.png',
      defaultTheme: 'DARK',
    });
    expect(page.applied).toEqual({ ...desired, defaultTheme: 'DARK', logo: 'https://acme.com/logo.png' });
  });
});
