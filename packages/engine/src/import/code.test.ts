import { describe, expect, it } from 'vitest';
import { commentText, printable, propertyKey, tsString } from './code.js';

describe('writing remote text into generated code', () => {
  it.each([
    ['plain', "'plain'"],
    ["it's", "'it\\'s'"],
    ['back\\slash', "'back\\\\slash'"],
    ['line\nbreak', "'line\\nbreak'"],
    ['carriage\rreturn', "'carriage\\rreturn'"],
    ['line\u2028separator', "'line\\u2028separator'"],
    ['paragraph\u2029separator', "'paragraph\\u2029separator'"],
    ['\u202eoverride', "'\\u202eoverride'"],
    ['lone \ud800 surrogate', "'lone \\ud800 surrogate'"],
    ['pair 😀', "'pair 😀'"],
  ])('writes %j as the string literal %s', (value, literal) => {
    expect(tsString(value)).toBe(literal);
    expect(new Function(`return ${literal};`)()).toBe(value);
  });

  it.each([
    ['evil\nrequire("fs")//', 'evil\\nrequire("fs")//'],
    ['evil\rx', 'evil\\rx'],
    ['evil\u2028x', 'evil\\u2028x'],
    ['evil\u2029x', 'evil\\u2029x'],
    ['end */ of block', 'end *\\/ of block'],
  ])('writes %j into a comment as %j, which cannot end it', (value, comment) => {
    expect(commentText(value)).toBe(comment);
  });

  it('writes __proto__ as a computed key, so the object holds it instead of changing its prototype', () => {
    const key = propertyKey('__proto__');
    expect(key).toBe("['__proto__']");
    expect(Object.keys(new Function(`return { ${key}: 1 };`)() as object)).toEqual(['__proto__']);
  });

  it('prints control characters as escapes, so a name cannot drive the terminal', () => {
    expect(printable('red\u001b[31m\nnext\u0007')).toBe('red\\u001b[31m\\nnext\\u0007');
  });
});
