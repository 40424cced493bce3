import { describe, expect, it } from 'vitest';
import { RESOURCE_KINDS } from '@vigil/constructs';
import { closestAddress } from './addresses.js';
import { emptyState } from './document.js';
import { getResource, moveResource, removeResource, unprotectResource, withProtection } from './edit.js';
import { isStateError, type StateErrorCode } from './errors.js';
import type { StateDocument } from './types.js';

function state(): StateDocument {
  return {
    ...emptyState({ project: 'shop', target: { baseUrl: 'http://127.0.0.1:4010', accountId: 'acc-1' } }),
    resources: {
      'check-group.api': { kind: 'check-group', remoteId: 12, applied: { name: 'API' }, dependsOn: [] },
      'api-check.home': { kind: 'api-check', remoteId: 'c1', applied: { name: 'Home' }, dependsOn: ['check-group.api'] },
      'api-check.cart': { kind: 'api-check', remoteId: 'c2', applied: { name: 'Cart' }, dependsOn: ['check-group.api'] },
    },
    journal: [{ id: 'j1', operation: 'update', address: 'api-check.cart', kind: 'api-check', startedAt: '2026-11-22T03:00:00.000Z', remoteId: 'c2' }],
  };
}

function failure(run: () => unknown): { code: StateErrorCode; message: string } {
  try {
    run();
  } catch (error) {
    if (isStateError(error)) return { code: error.code, message: error.message };
    throw error;
  }
  throw new Error('expected a StateError');
}

describe('moving a resource in state', () => {
  it('renames the address, keeps the remote id and payload, and updates references to it', () => {
    const moved = moveResource(state(), 'check-group.api', 'check-group.backend');
    expect(Object.keys(moved.resources).sort()).toEqual(['api-check.cart', 'api-check.home', 'check-group.backend']);
    expect(moved.resources['check-group.backend']).toEqual(state().resources['check-group.api']);
    expect(moved.resources['api-check.home']?.dependsOn).toEqual(['check-group.backend']);
  });

  it.each<[string, string, string, StateErrorCode, string]>([
    ['an unknown source, suggesting a close address', 'api-check.hom', 'api-check.index', 'address-unknown', 'no resource api-check.hom in state (.vigil/state.json); did you mean api-check.home?'],
    ['an unknown source with nothing close', 'api-check.zzzzzz', 'api-check.index', 'address-unknown', 'no resource api-check.zzzzzz in state (.vigil/state.json); run `vigil state list` to see the addresses it holds'],
    ['a destination that exists', 'api-check.home', 'api-check.cart', 'address-taken', 'cannot move api-check.home to api-check.cart: api-check.cart already exists in state (remove it first with vigil state rm api-check.cart)'],
    ['a destination of another kind', 'api-check.home', 'multistep-check.home', 'kind-mismatch', 'cannot move api-check.home to multistep-check.home: the resource is of kind api-check, not multistep-check (a remote resource\'s kind cannot change)'],
    ['a destination that is not an address', 'api-check.home', 'home', 'address-invalid', '"home" is not an address: expected <kind>.<logicalId>, e.g. api-check.home'],
    ['a destination with an unknown kind', 'api-check.home', 'check.home', 'address-invalid', `"check.home" has an unknown kind "check"; kinds are ${RESOURCE_KINDS.join(', ')}`],
    ['a destination with an invalid logical id', 'api-check.home', 'api-check.home page', 'address-invalid', '"api-check.home page" has an invalid logical id "home page": use letters, digits and _ - / # .'],
    ['the same address', 'api-check.home', 'api-check.home', 'address-taken', 'cannot move api-check.home onto itself'],
    ['a resource with a pending operation', 'api-check.cart', 'api-check.basket', 'operation-pending', 'cannot move api-check.cart: an interrupted apply left a pending update of it (started 2026-11-22T03:00:00.000Z); run vigil apply to finish it first'],
  ])('refuses %s', (_name, from, to, code, message) => {
    expect(failure(() => moveResource(state(), from, to, { location: '.vigil/state.json' }))).toEqual({ code, message });
  });
});

describe('removing a resource from state', () => {
  it('forgets the resource and drops references to it', () => {
    const removed = removeResource(state(), 'check-group.api');
    expect(Object.keys(removed.resources).sort()).toEqual(['api-check.cart', 'api-check.home']);
    expect(removed.resources['api-check.home']?.dependsOn).toEqual([]);
  });

  it.each<[string, string, StateErrorCode, string]>([
    ['an unknown address, suggesting a close one', 'check-group.apx', 'address-unknown', 'no resource check-group.apx in state; did you mean check-group.api?'],
    ['an invalid address', 'nonsense', 'address-invalid', '"nonsense" is not an address: expected <kind>.<logicalId>, e.g. api-check.home'],
    ['a resource with a pending operation', 'api-check.cart', 'operation-pending', 'cannot remove api-check.cart: an interrupted apply left a pending update of it (started 2026-11-22T03:00:00.000Z); run vigil apply to finish it first'],
  ])('refuses %s', (_name, address, code, message) => {
    expect(failure(() => removeResource(state(), address))).toEqual({ code, message });
  });

  it('says state is empty when asked for a resource of an empty state', () => {
    expect(failure(() => getResource({ ...state(), resources: {} }, 'api-check.home'))).toEqual({
      code: 'address-unknown',
      message: 'no resource api-check.home in state; state holds no resources',
    });
  });
});

describe('closestAddress', () => {
  it.each([
    ['api-check.hme', 'api-check.home'],
    ['apicheck.home', 'api-check.home'],
    ['api-check.cart', 'api-check.cart'],
    ['alert-channel.oncall', undefined],
  ])('suggests for %s: %s', (wanted, expected) => {
    expect(closestAddress(wanted, ['api-check.home', 'api-check.cart', 'check-group.api'])).toBe(expected);
  });
});

describe('protection in state', () => {
  function protectedState(): StateDocument {
    const document = state();
    return { ...document, resources: { ...document.resources, 'api-check.home': { ...document.resources['api-check.home']!, protect: true } } };
  }

  it('unprotect lifts the recorded protection of one resource and nothing else', () => {
    const before = protectedState();
    const after = unprotectResource(before, 'api-check.home');
    expect(after.resources['api-check.home']).toEqual(state().resources['api-check.home']);
    expect(after.resources['api-check.cart']).toBe(before.resources['api-check.cart']);
  });

  it('unprotect refuses a resource that is not protected, and an unknown one', () => {
    expect(failure(() => unprotectResource(state(), 'api-check.home', { location: '.vigil/state.json' }))).toEqual({
      code: 'not-protected',
      message: 'api-check.home is not protected in .vigil/state.json; nothing to do',
    });
    expect(failure(() => unprotectResource(state(), 'api-check.hom')).code).toBe('address-unknown');
  });

  it.each([
    ['records protect: true of a construct', state(), [{ address: 'api-check.home', protect: true }], true],
    ['lifts it for protect: false', protectedState(), [{ address: 'api-check.home', protect: false }], undefined],
    ['keeps it for a resource no construct declares', protectedState(), [{ address: 'api-check.cart', protect: false }], true],
  ])('withProtection %s', (_, document, constructs, protect) => {
    expect(withProtection(document, constructs).resources['api-check.home']?.protect).toBe(protect);
  });

  it('withProtection returns the document itself when nothing differs', () => {
    const document = protectedState();
    expect(withProtection(document, [{ address: 'api-check.home', protect: true }, { address: 'api-check.new', protect: true }])).toBe(document);
  });
});
