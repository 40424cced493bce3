import { describe, expect, it } from 'vitest';
import { FaultInjector, parseFaults } from './faults.js';

describe('parseFaults', () => {
  it.each([
    ['latency=50ms', { latencyMs: 50 }],
    ['latency=1s', { latencyMs: 1000 }],
    ['latency=20', { latencyMs: 20 }],
    ['error=0.1', { error: 0.1 }],
    ['429=0.2', { tooMany: 0.2 }],
    ['drop=0.05', { drop: 0.05 }],
    ['seed=42', { seed: 42 }],
    ['latency=50ms,error=0.1,429=0.2,drop=0.05,seed=42', { latencyMs: 50, error: 0.1, tooMany: 0.2, drop: 0.05, seed: 42 }],
    [' error = 1 , drop = 0 ', { error: 1, drop: 0 }],
  ])('reads "%s"', (spec, expected) => {
    expect(parseFaults(spec)).toMatchObject(expected);
  });

  it('treats an empty or missing spec as no faults', () => {
    expect(parseFaults(undefined)).toEqual({ latencyMs: 0, error: 0, tooMany: 0, drop: 0, seed: 1 });
    expect(parseFaults('')).toEqual(parseFaults(undefined));
  });

  it.each([
    ['error=1.5', 'invalid fault "error=1.5": expected a fraction between 0 and 1'],
    ['error=', 'invalid fault "error=": expected a fraction between 0 and 1'],
    ['429=abc', 'invalid fault "429=abc": expected a fraction between 0 and 1'],
    ['drop=-0.1', 'invalid fault "drop=-0.1": expected a fraction between 0 and 1'],
    ['latency=fast', 'invalid fault "latency=fast": expected a duration such as 50ms or 1s'],
    ['seed=1.5', 'invalid fault "seed=1.5": expected an integer seed'],
    ['error', 'invalid fault "error": expected name=value'],
    ['error=0.1,,drop=0.1', 'invalid fault "": expected name=value'],
    ['jitter=5ms', 'unknown fault "jitter" in "jitter=5ms" (known: latency, error, 429, drop, seed)'],
  ])('refuses "%s" naming the bad part', (spec, message) => {
    expect(() => parseFaults(spec)).toThrow(message);
  });
});

describe('FaultInjector', () => {
  const draw = (spec: string, count: number): string[] => {
    const injector = new FaultInjector(parseFaults(spec));
    return Array.from({ length: count }, () => injector.decide());
  };

  it('injects the same faults for the same seed', () => {
    expect(draw('error=0.3,429=0.3,drop=0.3,seed=7', 50)).toEqual(draw('error=0.3,429=0.3,drop=0.3,seed=7', 50));
  });

  it('injects different faults for a different seed', () => {
    expect(draw('error=0.5,seed=1', 50)).not.toEqual(draw('error=0.5,seed=2', 50));
  });

  it('injects roughly the configured fraction', () => {
    const errors = draw('error=0.2,seed=3', 5000).filter((decision) => decision === 'error').length;
    expect(errors / 5000).toBeGreaterThan(0.17);
    expect(errors / 5000).toBeLessThan(0.23);
  });

  it('always or never injects at fractions 1 and 0', () => {
    expect(new Set(draw('drop=1', 20))).toEqual(new Set(['drop']));
    expect(new Set(draw('error=0,429=0', 20))).toEqual(new Set(['none']));
  });
});
