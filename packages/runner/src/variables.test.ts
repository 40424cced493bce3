import { describe, expect, it } from 'vitest';
import { interpolate, redactDeep, secretRedactor, variableLookup } from './variables.js';

describe('{{KEY}} interpolation', () => {
  const lookup = variableLookup([{ key: 'HOST', value: 'first.example' }, { key: 'HOST', value: 'second.example' }, { key: 'PORT', value: '8080' }]);

  it.each([
    ['https://{{HOST}}:{{PORT}}/x', 'https://first.example:8080/x'],
    ['{{ HOST }}', 'first.example'],
    ['{{UNKNOWN}} stays', '{{UNKNOWN}} stays'],
    ['no placeholders', 'no placeholders'],
    ['{{HOST', '{{HOST'],
  ])('%s → %s (first variable with the key wins)', (text, expected) => {
    expect(interpolate(text, lookup)).toBe(expected);
  });
});

describe('secret redaction', () => {
  const redact = secretRedactor([
    { key: 'TOKEN', value: 'abc/def', secret: true },
    { key: 'LONGER', value: 'abc/def-long', secret: true },
    { key: 'PLAIN', value: 'visible' },
  ]);

  it.each([
    ['Bearer abc/def', 'Bearer *****'],
    ['abc/def-long', '*****'],
    ['?token=abc%2Fdef', '?token=*****'],
    ['?token=abc%2fdef (lower-case hex)', '?token=***** (lower-case hex)'],
    ['{"token":"abc\\/def"} (JSON-escaped)', '{"token":"*****"} (JSON-escaped)'],
    ['https://ABC/DEF (another case)', 'https://***** (another case)'],
    ['visible', 'visible'],
  ])('%s → %s', (text, expected) => {
    expect(redact(text)).toBe(expected);
  });

  it.each([
    ['body ends in abc/de', 'body ends in *****'],
    ['body ends in abc%2Fd', 'body ends in *****'],
    ['body ends in ab', 'body ends in ab'],
    ['ends with abc/def', 'ends with *****'],
  ])('on a text cut short, %j → %j (a tail starting a secret goes too)', (text, expected) => {
    expect(redact(text, { cut: true })).toBe(expected);
  });

  it('reaches every string of a result, keys included', () => {
    expect(redactDeep({ a: ['abc/def'], 'abc/def': 1, n: 2, nil: null }, redact)).toEqual({ a: ['*****'], '*****': 1, n: 2, nil: null });
  });

  it('leaves text alone when no variable is secret', () => {
    expect(secretRedactor([{ key: 'A', value: 'a' }])('a')).toBe('a');
  });
});
