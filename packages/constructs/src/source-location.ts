import { fileURLToPath } from 'node:url';
import path from 'node:path';
import type { SourceLocation } from './types.js';

/** This package's own source directory: frames inside it are ours, not the user's. */
const PACKAGE_DIR = path.dirname(fileURLToPath(import.meta.url));

const PACKAGE_PREFIX = PACKAGE_DIR.split(path.sep).join('/') + '/';

/**
 * Frames that are never the user's call site: this package (also a second, bundled copy, whose
 * source-mapped frames point into `@vigil/constructs` or `packages/constructs/src`) and Node's
 * internals. This package's own tests and fixtures play the user, so they count as user frames.
 */
function isInternalFrame(file: string): boolean {
  if (file.startsWith('node:') || file.startsWith('internal/')) return true;
  const normalised = file.split(path.sep).join('/');
  if (/\.test\.[cm]?[jt]s$/.test(normalised) || normalised.includes('/__fixtures__/')) return false;
  if (normalised.startsWith(PACKAGE_PREFIX)) return true;
  return /\/(@vigil\/constructs|packages\/constructs\/src)\//.test(normalised);
}

// `at fn (file:///a/b.ts:12:5)`, `at file:///a/b.ts:12:5`, `at /a/b.ts:12:5`, `at async fn (...)`
const FRAME = /^\s*at (?:.*?\()?(.+?):(\d+):(\d+)\)?\s*$/;

/** Parses one line of a V8 stack trace; `undefined` for lines that carry no location. */
export function parseStackFrame(line: string): SourceLocation | undefined {
  const match = FRAME.exec(line);
  if (!match) return undefined;
  let file = match[1]!;
  if (file.startsWith('file://')) file = fileURLToPath(file);
  return { file, line: Number(match[2]), column: Number(match[3]) };
}

/**
 * The location of the first stack frame outside this package: the user's `new ApiCheck(...)` (or
 * `defineConfig(...)`) call. The loader enables source maps, so the frame already points into the
 * user's TypeScript; we take its path as given and let the loader relativise it.
 *
 * `above` is the function whose caller we want (a construct's `new.target`): V8 then drops every
 * frame down to it, so only a handful of frames are captured and source-mapped. That matters: with
 * ten thousand constructs, formatting full stacks dominated load time.
 */
export function captureUserSource(above?: Function): SourceLocation {
  return (above && firstUserFrame(above, 4)) ?? firstUserFrame(captureUserSource, 50) ?? { file: '<unknown>', line: 0, column: 0 };
}

function firstUserFrame(above: Function, limit: number): SourceLocation | undefined {
  const holder: { stack?: string } = {};
  const previousLimit = Error.stackTraceLimit;
  Error.stackTraceLimit = limit;
  Error.captureStackTrace(holder, above);
  Error.stackTraceLimit = previousLimit;
  for (const line of (holder.stack ?? '').split('\n').slice(1)) {
    const frame = parseStackFrame(line);
    if (frame && !isInternalFrame(frame.file)) return frame;
  }
  return undefined;
}
