import { describe, expect, it } from 'vitest';
import { CheckGroupV2 } from './check-group-v2.js';
import { externalRef, isExternalRef, isRef } from './ref.js';

describe('isRef', () => {
  it.each([
    ['a $ref placeholder', { $ref: 'check-group.api' }, true],
    ['a $ref that is not a string', { $ref: 1 }, false],
    ['an object with more than $ref', { $ref: 'check-group.api', id: 1 }, false],
    ['null', null, false],
    ['a literal id', 42, false],
  ])('%s → %s', (_name, value, expected) => {
    expect(isRef(value)).toBe(expected);
  });
});

describe('fromId references', () => {
  it('are frozen, branded values carrying the kind and the remote id', () => {
    const ref = CheckGroupV2.fromId(7);
    expect(isExternalRef(ref)).toBe(true);
    expect(Object.isFrozen(ref)).toBe(true);
    expect([ref.kind, ref.remoteId]).toEqual(['check-group', 7]);
    expect(ref).toEqual(externalRef('check-group', 7));
  });

  it('need no project load, unlike constructs', () => {
    expect(() => CheckGroupV2.fromId(7)).not.toThrow();
  });

  it('are told apart from look-alike objects', () => {
    expect(isExternalRef({ kind: 'check-group', remoteId: 7 })).toBe(false);
  });
});
