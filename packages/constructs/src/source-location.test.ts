import { describe, expect, it } from 'vitest';
import { captureUserSource, deferUserSource, deriveSourceLocation, isPendingSource, parseStackFrame } from './source-location.js';
import type { SourceLocation } from './types.js';

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

/** Node's own stack formatting, as in the CLI: the test runner installs its own formatter. */
function withNodeStackFormat<T>(fn: () => T): T {
  const previous = Error.prepareStackTrace;
  (Error as { prepareStackTrace?: unknown }).prepareStackTrace = undefined;
  try {
    return fn();
  } finally {
    Error.prepareStackTrace = previous;
  }
}

class Made {
  readonly eager: SourceLocation;
  readonly deferred: SourceLocation;
  constructor() {
    this.eager = captureUserSource(new.target);
    this.deferred = deferUserSource(new.target);
  }
}

/** Every Made from here has the same location: this line's `new Made()`. */
const make = (): Made => withNodeStackFormat(() => new Made());

describe('deferUserSource', () => {
  it('works out the same location as captureUserSource, on first read', () => {
    const made = make();
    expect(isPendingSource(made.deferred)).toBe(true);
    expect(made.eager.file).toMatch(/source-location\.test\.ts$/);
    expect(made.deferred.line).toBe(made.eager.line);
    expect(isPendingSource(made.deferred)).toBe(false);
    expect({ ...made.deferred }).toEqual(made.eager);
  });

  it('reads as a plain location: spread, JSON, equality and assignment', () => {
    const made = make();
    const spread = { ...make().deferred };
    const json = JSON.parse(JSON.stringify(make().deferred)) as SourceLocation;
    expect(Object.keys(made.deferred)).toEqual(['file', 'line', 'column']);
    expect(made.deferred).toEqual(made.eager);
    expect(spread).toEqual(made.eager);
    expect(json).toEqual(made.eager);
    const assigned = make().deferred;
    assigned.file = 'elsewhere.ts';
    expect(assigned.file).toBe('elsewhere.ts');
    expect(assigned.line).toBeGreaterThan(0);
  });

  it('is worked out eagerly from the stack text when another formatter is installed', () => {
    const made = new Made();
    expect(isPendingSource(made.deferred)).toBe(false);
    expect(made.deferred).toEqual(made.eager);
  });
});

describe('deriveSourceLocation', () => {
  const upper = (location: SourceLocation) => ({ ...location, file: location.file.toUpperCase() });

  it('stays deferred while its base is, then derives from the worked-out base', () => {
    const made = make();
    const derived = deriveSourceLocation(made.deferred, upper);
    expect(isPendingSource(derived)).toBe(true);
    expect(isPendingSource(made.deferred)).toBe(true);
    expect(derived).toEqual(upper(made.eager));
    expect(isPendingSource(made.deferred)).toBe(false);
  });

  it('derives at once from a plain location', () => {
    const derived = deriveSourceLocation({ file: 'a.ts', line: 2, column: 3 }, upper);
    expect(isPendingSource(derived)).toBe(false);
    expect(derived).toEqual({ file: 'A.TS', line: 2, column: 3 });
  });
});
