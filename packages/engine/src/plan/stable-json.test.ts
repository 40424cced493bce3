import { describe, expect, it } from 'vitest';
import { stableStringify } from './stable-json.js';

describe('stableStringify', () => {
  it('sorts keys at every depth and otherwise writes what JSON.stringify writes', () => {
    const value = { b: [1, { d: 'x', c: null }, undefined], a: { z: true, y: undefined }, e: 'q"uote' };
    expect(stableStringify(value)).toBe('{"a":{"z":true},"b":[1,{"c":null,"d":"x"},null],"e":"q\\"uote"}');
    expect(JSON.parse(stableStringify(value))).toEqual(JSON.parse(JSON.stringify(value)));
  });
  it('writes equal values with different key order alike', () => {
    expect(stableStringify({ a: 1, b: { c: 2, d: 3 } })).toBe(stableStringify({ b: { d: 3, c: 2 }, a: 1 }));
  });
});
