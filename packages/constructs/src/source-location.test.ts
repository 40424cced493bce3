import { describe, expect, it } from 'vitest';
import { parseStackFrame } from './source-location.js';

describe('parseStackFrame', () => {
  it.each([
    ['a named frame with a file URL', '    at new ApiCheck (file:///repo/checks/api.monitor.ts:12:5)', { file: '/repo/checks/api.monitor.ts', line: 12, column: 5 }],
    ['an anonymous frame with a file URL', '    at file:///repo/checks/api.monitor.ts:3:1', { file: '/repo/checks/api.monitor.ts', line: 3, column: 1 }],
    ['a frame with a plain path', '    at Object.<anonymous> (/repo/checks/api.monitor.ts:7:9)', { file: '/repo/checks/api.monitor.ts', line: 7, column: 9 }],
    ['an async frame', '    at async load (/repo/vigil.config.ts:2:16)', { file: '/repo/vigil.config.ts', line: 2, column: 16 }],
    ['a path with spaces and parentheses', '    at fn (/my repo (copy)/a.monitor.ts:1:2)', { file: '/my repo (copy)/a.monitor.ts', line: 1, column: 2 }],
  ])('reads %s', (_name, line, expected) => {
    expect(parseStackFrame(line)).toEqual(expected);
  });

  it('ignores lines without a location', () => {
    expect(parseStackFrame('Error: boom')).toBeUndefined();
    expect(parseStackFrame('    at new Promise (<anonymous>)')).toBeUndefined();
  });
});
