import { describe, expect, it } from 'vitest';
import { jsonPathProblem } from './jsonpath.js';

describe('jsonPathProblem', () => {
  it.each([
    '', '$', '$.a', '$.a.b[0]', '$..book[?(@.price < 10)]', '$.store.*', '$..*', "$['a b']", '$["x"]', '$.a[1:3]', '$.a[::2]',
    '$.a[-1:]', '$.a[0,1]', '$.items.length', 'a.b', '$.a~', '$.a.^', '$..[0]', '$[*].id', '$[(@.length-1)]',
    '$..[?(@.type=="x")].id', '$[?(@.name.match(/a(b)/))]', "$[?(@.tag == ']')]",
  ])('accepts %j', (path) => {
    expect(jsonPathProblem(path)).toBeNull();
  });

  it.each([
    ['$..[', 'unclosed "[" at character 4'],
    ['$.a[', 'unclosed "[" at character 4'],
    ['$.a.', 'the path ends with ".": a name, "*" or "[" must follow'],
    ['$.a..', 'the path ends with "..": a name, "*" or "[" must follow'],
    ["$['a]", "unclosed ' at character 3"],
    ['$.a]', 'unexpected "]" at character 4'],
    ['$[]', 'empty "[]" at character 2'],
    ['$.a[?(@.x > 1]', 'unbalanced "]" at character 14'],
    ['$.a[?@.x]', 'a filter must be written "[?(...)]" (at character 4)'],
    ['$[?()]', 'empty expression "()" at character 4'],
    ['$.a b', 'unexpected " " at character 4'],
    ['$[0 1]', 'unexpected "1" at character 5'],
  ])('refuses %j: %s', (path, problem) => {
    expect(jsonPathProblem(path)).toBe(problem);
  });
});
