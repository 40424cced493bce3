import { describe, expect, it } from 'vitest';
import { BoundedMap } from './bounded-map.js';

describe('BoundedMap', () => {
  it('never holds more than its bound, however many distinct keys arrive', () => {
    const map = new BoundedMap<string, number>(16);
    for (let i = 0; i < 10_000; i++) map.set(`key-${i}`, i);
    expect(map.size).toBe(16);
    expect([...map.entries()].map(([, value]) => value)).toEqual(Array.from({ length: 16 }, (_, i) => 10_000 - 16 + i));
  });

  it('forgets the least recently used entry first: a read keeps an entry', () => {
    const map = new BoundedMap<string, number>(2);
    map.set('a', 1).set('b', 2);
    expect(map.get('a')).toBe(1);
    map.set('c', 3);
    expect(map.get('b')).toBeUndefined();
    expect(map.get('a')).toBe(1);
    expect(map.get('c')).toBe(3);
  });

  it('replacing a key does not evict another one', () => {
    const map = new BoundedMap<string, number>(2);
    map.set('a', 1).set('b', 2).set('a', 3);
    expect([...map.entries()]).toEqual([['b', 2], ['a', 3]]);
  });

  it('refuses a bound below 1 as a bug', () => {
    expect(() => new BoundedMap(0)).toThrow('BoundedMap needs a positive size, got 0; this is a bug in vigil');
  });
});
