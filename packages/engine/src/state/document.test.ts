import { describe, expect, it } from 'vitest';
import { assertSameTarget, bindToTarget, emptyState, hashSecret, parseStateDocument, retargetState } from './document.js';
import { isStateError } from './errors.js';
import type { StateDocument } from './types.js';

const TARGET = { baseUrl: 'http://127.0.0.1:4010', accountId: 'acc-1' };
const LOCATION = '.vigil/state.json';
const UNTOUCHED = 'vigil left it untouched: fix it or restore it (e.g. from version control)';

function validDocument(): StateDocument {
  return {
    ...emptyState({ project: 'shop', target: TARGET }),
    serial: 3,
    resources: {
      'check-group.api': { kind: 'check-group', remoteId: 12, applied: { name: 'API' }, dependsOn: [] },
      'api-check.home': { kind: 'api-check', remoteId: 'c0ffee', applied: { name: 'Home' }, dependsOn: ['check-group.api'] },
    },
    journal: [{ id: 'j1', operation: 'create', address: 'api-check.cart', kind: 'api-check', startedAt: '2026-11-22T03:00:00.000Z', idempotencyKey: 'k1' }],
  };
}

function parseError(text: string): string {
  try {
    parseStateDocument(text, LOCATION);
  } catch (error) {
    if (isStateError(error) && error.code === 'state-invalid') return error.message;
    throw error;
  }
  throw new Error('expected the document to be refused');
}

function withChange(change: (document: Record<string, unknown>) => void): string {
  const document = JSON.parse(JSON.stringify(validDocument())) as Record<string, unknown>;
  change(document);
  return JSON.stringify(document);
}

describe('emptyState', () => {
  it('starts at serial 0 with a fresh uuid lineage, no resources and an empty journal', () => {
    const first = emptyState({ project: 'shop', target: TARGET });
    const second = emptyState({ project: 'shop', target: TARGET });
    expect(first).toMatchObject({ version: 1, serial: 0, project: 'shop', target: TARGET, resources: {}, journal: [] });
    expect(first.lineage).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(second.lineage).not.toBe(first.lineage);
  });
});

describe('hashSecret', () => {
  it('is sha256 of the value, prefixed, and never contains the value', () => {
    expect(hashSecret('hunter2')).toBe('sha256:f52fbd32b2b3b86ff88ef6c490628285f482af15ddcb29541f94bcf526a3f6c7');
    expect(hashSecret('hunter2')).toBe(hashSecret('hunter2'));
    expect(hashSecret('hunter3')).not.toBe(hashSecret('hunter2'));
  });
});

describe('parseStateDocument', () => {
  it('accepts a valid document as it is', () => {
    const document = validDocument();
    expect(parseStateDocument(JSON.stringify(document), LOCATION)).toEqual(document);
  });

  it.each([
    ['text that is not JSON', '{"version": 1,', `state file ${LOCATION} is not valid JSON (`],
    ['a JSON array', '[]', `state file ${LOCATION} is not a vigil state document (expected a JSON object); ${UNTOUCHED}`],
    ['a document without a version', '{"serial": 1}', `state file ${LOCATION} has no "version" field; it is not a vigil state document; ${UNTOUCHED}`],
    [
      'a document from a newer vigil',
      withChange((document) => (document['version'] = 2)),
      `state file ${LOCATION} has version 2, written by a newer vigil; this vigil reads version 1 (upgrade vigil); ${UNTOUCHED}`,
    ],
    [
      'a version that is not a number',
      withChange((document) => (document['version'] = '1')),
      `state file ${LOCATION} has version "1", but this vigil reads version 1; ${UNTOUCHED}`,
    ],
  ])('refuses %s', (_name, text, expected) => {
    expect(parseError(text)).toContain(expected);
  });

  it.each([
    ['a lineage that is not a uuid', (d: any) => (d.lineage = 'abc'), 'lineage: Invalid UUID'],
    ['a negative serial', (d: any) => (d.serial = -1), 'serial: Too small: expected number to be >=0'],
    ['a remote id of the wrong type', (d: any) => (d.resources['api-check.home'].remoteId = true), 'resources["api-check.home"].remoteId: Invalid input'],
    ['a resource without applied payload', (d: any) => delete d.resources['api-check.home'].applied, 'resources["api-check.home"].applied: Invalid input: expected record, received undefined'],
    ['an unknown kind', (d: any) => (d.resources['api-check.home'].kind = 'api-chek'), 'resources["api-check.home"].kind: Invalid option'],
    [
      'a resource whose kind differs from its address',
      (d: any) => (d.resources['api-check.home'].kind = 'check-group'),
      `resources["api-check.home"].kind: kind "check-group" does not match the address's kind`,
    ],
    [
      'an address that is not one',
      (d: any) => (d.resources['home'] = d.resources['api-check.home']),
      'resources.home: "home" is not an address: expected <kind>.<logicalId>, e.g. api-check.home',
    ],
    [
      'a dependency on an invalid address',
      (d: any) => (d.resources['api-check.home'].dependsOn = ['group.api']),
      'resources["api-check.home"].dependsOn[0]: "group.api" has an unknown kind "group"',
    ],
    ['an unknown journal operation', (d: any) => (d.journal[0].operation = 'upsert'), 'journal[0].operation: Invalid option'],
    ['a journal time that is not ISO', (d: any) => (d.journal[0].startedAt = 'yesterday'), 'journal[0].startedAt: Invalid ISO datetime'],
    ['an unknown top-level field', (d: any) => (d.outputs = {}), `(document): Unrecognized key: "outputs"`],
    ['a missing target account', (d: any) => delete d.target.accountId, 'target.accountId: Invalid input: expected string, received undefined'],
  ])('refuses %s, naming the file and the field', (_name, change, expected) => {
    const message = parseError(withChange(change));
    expect(message).toContain(`state file ${LOCATION} is invalid at ${expected}`);
    expect(message.endsWith(`; ${UNTOUCHED}`)).toBe(true);
  });
});

describe('assertSameTarget', () => {
  it('accepts the same service and account whatever the URL spelling', () => {
    const state = emptyState({ project: 'shop', target: { baseUrl: 'https://api.example.com/', accountId: 'a' } });
    expect(() => assertSameTarget(state, { baseUrl: 'HTTPS://API.example.com:443', accountId: 'a' })).not.toThrow();
  });

  it.each([
    ['another service', { baseUrl: 'https://api.other.com', accountId: 'a' }, 'https://api.other.com account a'],
    ['another account', { baseUrl: 'https://api.example.com', accountId: 'b' }, 'https://api.example.com account b'],
  ])('refuses a state made against %s', (_name, target, configured) => {
    const state = emptyState({ project: 'shop', target: { baseUrl: 'https://api.example.com', accountId: 'a' } });
    expect(() => assertSameTarget(state, target, { location: 'site/.vigil/state.json' })).toThrow(
      `state at site/.vigil/state.json belongs to https://api.example.com account a, but the configured target is ${configured}. ` +
        'Point VIGIL_API_URL / VIGIL_ACCOUNT_ID at the state\'s target, or give this target its own state file (state.path in vigil.config.ts).',
    );
  });
});

describe('serializeState', () => {
  it('writes exactly what JSON.stringify(document, null, 2) writes, before and after a cached entry changes', async () => {
    const { serializeState } = await import('./document.js');
    const document = {
      ...emptyState({ project: 'p', target: { baseUrl: 'http://x', accountId: 'a' } }),
      resources: {
        'api-check.a': { kind: 'api-check' as const, remoteId: 'r1', applied: { name: 'A', tags: ['x'], nested: { list: [{ k: 1 }] } }, dependsOn: ['check-group.g'] },
        'check-group.g': { kind: 'check-group' as const, remoteId: 2, applied: {}, dependsOn: [] },
      },
    };
    expect(serializeState(document)).toBe(JSON.stringify(document, null, 2));
    const next = { ...document, serial: 9, resources: { ...document.resources, 'check-group.g': { ...document.resources['check-group.g'], remoteId: 3 } } };
    expect(serializeState(next)).toBe(JSON.stringify(next, null, 2));
    const empty = { ...document, resources: {} };
    expect(serializeState(empty)).toBe(JSON.stringify(empty, null, 2));
  });
});

describe('bindToTarget', () => {
  const unbound = emptyState({ project: 'shop', target: { baseUrl: 'https://api.example.com', accountId: '' } });

  it('gives a state recorded without an account the account of the first target with its URL', () => {
    const bound = bindToTarget(unbound, { baseUrl: 'https://api.example.com/', accountId: 'acme' });
    expect(bound.adoptedAccount).toBe('acme');
    expect(bound.state.target).toEqual({ baseUrl: 'https://api.example.com', accountId: 'acme' });
  });

  it('keeps a state bound to its account and refuses another account on the same URL', () => {
    const state = bindToTarget(unbound, { baseUrl: 'https://api.example.com', accountId: 'acme' }).state;
    expect(bindToTarget(state, { baseUrl: 'https://api.example.com', accountId: 'acme' })).toEqual({ state });
    expect(() => bindToTarget(state, { baseUrl: 'https://api.example.com', accountId: 'globex' })).toThrow(/belongs to https:\/\/api.example.com account acme/);
  });

  it('does not let an unbound state move to another URL', () => {
    expect(() => bindToTarget(unbound, { baseUrl: 'https://other.example.com', accountId: 'acme' })).toThrow(/configured target is https:\/\/other.example.com/);
  });
});

describe('the identity of the service', () => {
  const at = (baseUrl: string, serviceId?: string, accountId = 'acme') => ({ baseUrl, accountId, ...(serviceId === undefined ? {} : { serviceId }) });
  const recorded = emptyState({ project: 'shop', target: at('http://127.0.0.1:4010', 'svc-1') });
  const urlOnly = emptyState({ project: 'shop', target: at('http://127.0.0.1:4010') });

  it('binds a state recorded with a URL only to the id of the service at that URL, once', () => {
    const bound = bindToTarget(urlOnly, at('http://127.0.0.1:4010/', 'svc-1'));
    expect(bound.adoptedService).toBe('svc-1');
    expect(bound.state.target).toEqual(at('http://127.0.0.1:4010', 'svc-1'));
    expect(bindToTarget(bound.state, at('http://127.0.0.1:4010', 'svc-1'))).toEqual({ state: bound.state });
  });

  it('keeps a state with an id usable against a service that reports none at its URL', () => {
    expect(bindToTarget(recorded, at('http://127.0.0.1:4010'))).toEqual({ state: recorded });
  });

  it('refuses the same service at a new address with the retarget command, and another service naming both', () => {
    expect(() => bindToTarget(recorded, at('http://127.0.0.1:4011', 'svc-1'))).toThrow(
      'state at .vigil/state.json belongs to service svc-1 at http://127.0.0.1:4010, and the configured target http://127.0.0.1:4011 is that same service (account acme) at a new address. ' +
        'Run `vigil state retarget http://127.0.0.1:4011` to record the new address, then run this command again.',
    );
    expect(() => bindToTarget(recorded, at('http://127.0.0.1:4010', 'svc-2'))).toThrow(
      'state at .vigil/state.json belongs to service svc-1 (http://127.0.0.1:4010 account acme), but the configured target http://127.0.0.1:4010 is another service, svc-2 (account acme), which holds none of its resources. ' +
        "Point VIGIL_API_URL at the state's service, or give this target its own state file (state.path in vigil.config.ts).",
    );
  });

  it('retargets only to the same service and account', () => {
    expect(retargetState(recorded, at('http://127.0.0.1:4011', 'svc-1')).target).toEqual(at('http://127.0.0.1:4011', 'svc-1'));
    expect(() => retargetState(recorded, at('http://127.0.0.1:4011'))).toThrow(
      'http://127.0.0.1:4011 does not report a service id (GET /v1/accounts/me), so vigil cannot tell that it is the service state at .vigil/state.json belongs to (http://127.0.0.1:4010 account acme (service svc-1)); state was left as it is.',
    );
    expect(() => retargetState(recorded, at('http://127.0.0.1:4011', 'svc-1', 'globex'))).toThrow(
      'state at .vigil/state.json belongs to account acme, but the API key acts on account globex at http://127.0.0.1:4011; state was left as it is. Set VIGIL_ACCOUNT_ID (or VIGIL_API_KEY) for account acme.',
    );
    expect(() => retargetState(recorded, at('http://127.0.0.1:4011', 'svc-2'))).toThrow(
      'state at .vigil/state.json belongs to service svc-1 (http://127.0.0.1:4010 account acme), but http://127.0.0.1:4011 is another service, svc-2 (account acme); state was left as it is.',
    );
    expect(() => retargetState(urlOnly, at('http://127.0.0.1:4011', 'svc-1'))).toThrow(/recorded no service id, and http:\/\/127\.0\.0\.1:4011 does not hold every resource it manages/);
    expect(retargetState(urlOnly, at('http://127.0.0.1:4011', 'svc-1'), { verifiedByResources: true }).target).toEqual(at('http://127.0.0.1:4011', 'svc-1'));
  });
});
