import { describe, expect, it } from 'vitest';
import { formatDuration, parseLockTimeout } from './duration.js';

describe('--lock-timeout', () => {
  it.each([
    ['0', 0],
    ['0s', 0],
    ['500ms', 500],
    ['30s', 30_000],
    ['1.5s', 1_500],
    ['5m', 300_000],
    ['1h', 3_600_000],
  ])('reads %s as %i ms', (text, ms) => {
    expect(parseLockTimeout(text)).toBe(ms);
  });

  it.each(['30', 'abc', '-5s', '5 minutes', '', '10d'])('refuses %j with an example of what works', (text) => {
    expect(() => parseLockTimeout(text)).toThrow(`invalid --lock-timeout "${text}": use a duration like 0s, 500ms, 30s or 5m`);
  });

  it.each([
    [250, '250ms'],
    [30_000, '30s'],
    [1_500, '1.5s'],
    [120_000, '2m'],
    [90_000, '90s'],
  ])('prints %i ms as %s', (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
  });
});
