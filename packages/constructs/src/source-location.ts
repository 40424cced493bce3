import { findSourceMap, type SourceMap } from 'node:module';
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
 * `defineConfig(...)`) call. The loader enables source maps, so the frame is mapped to the user's
 * TypeScript; we take its path as given and let the loader relativise it.
 *
 * `above` is the function whose caller we want (a construct's `new.target`): V8 then drops every
 * frame down to it, so the first frame captured is almost always the user's, and one is all we ask
 * for. That matters: with ten thousand constructs, formatting full stacks dominated load time, and
 * capturing four frames instead of one still cost ~10% more evaluation time. When that frame is not
 * the user's (a construct made by a helper of a second copy of this package), a fuller capture
 * from here finds it.
 */
export function captureUserSource(above?: Function): SourceLocation {
  return (above && firstUserFrame(above, 1)) ?? firstUserFrame(captureUserSource, FULL_LIMIT) ?? unknownSource();
}

/** How deep the fuller search looks; the user's frame is within a few of the construct's. */
const FULL_LIMIT = 50;

function unknownSource(): SourceLocation {
  return { file: '<unknown>', line: 0, column: 0 };
}

/**
 * {@link captureUserSource} for a construct's `new.target`, deferred: the frames are captured now
 * (cheap: V8 keeps code offsets) but turned into file:line:col on first read of the location's
 * `file`, `line` or `column`, with the same result. Turning a frame into a position is most of the
 * cost (V8 walks the position table of the code around it, then the frame goes through the source
 * map), and a load that finds no problem reads no location: 10,000 constructs spent ~0.6 s of a
 * `vigil validate` of ~2 s on it.
 *
 * The returned object is a plain object whose three fields are accessors until the first read
 * replaces them with data; spreading it, JSON and equality checks all read through them. Enough
 * frames are kept now for the fuller search, since the stack is gone by the time it would run.
 * When someone else formats stacks (a test runner), locations come from their text, eagerly.
 */
export function deferUserSource(above: Function): SourceLocation {
  if (!usesNodeStackFormat()) return captureUserSource(above);
  const capture: PendingCapture = { sourceMaps: sourceMapsEnabled() };
  const previousLimit = Error.stackTraceLimit;
  Error.stackTraceLimit = FULL_LIMIT;
  Error.captureStackTrace(capture, above);
  Error.stackTraceLimit = previousLimit;
  return deferred(capture);
}

/**
 * `derive(location)`, deferred while `location` is: how the loader makes every spec's location
 * relative to the project root without working any of them out.
 */
export function deriveSourceLocation(location: SourceLocation, derive: (location: SourceLocation) => SourceLocation): SourceLocation {
  return isPendingSource(location) ? deferred({ base: location, derive }) : derive(location);
}

/** Whether `location` is deferred and not read yet (for tests of what stays unresolved). */
export function isPendingSource(location: SourceLocation): boolean {
  return Object.prototype.hasOwnProperty.call(location, PENDING);
}

/** Frames captured by {@link deferUserSource}; V8 adds `stack`, formatted only when first read. */
interface PendingCapture {
  /** Whether frames were source-mapped when captured (evaluation switches it on before user code). */
  sourceMaps: boolean;
  stack?: unknown;
}

interface PendingDerived {
  base: SourceLocation;
  derive: (location: SourceLocation) => SourceLocation;
}

/** Non-enumerable, so a deferred location compares and serialises as a plain location. */
const PENDING = Symbol('vigil.pendingSource');

type DeferredLocation = SourceLocation & { [PENDING]?: PendingCapture | PendingDerived };

function deferred(pending: PendingCapture | PendingDerived): SourceLocation {
  const location = Object.defineProperties({}, DEFERRED_FIELDS) as DeferredLocation;
  Object.defineProperty(location, PENDING, { value: pending, configurable: true });
  return location;
}

function deferredField<K extends keyof SourceLocation>(key: K): PropertyDescriptor {
  // One getter and setter per field, shared by every deferred location, so they all share a shape.
  return {
    get(this: DeferredLocation) {
      return resolveDeferred(this)[key];
    },
    set(this: DeferredLocation, value: SourceLocation[K]) {
      resolveDeferred(this);
      this[key] = value;
    },
    enumerable: true,
    configurable: true,
  };
}

const DEFERRED_FIELDS: PropertyDescriptorMap = { file: deferredField('file'), line: deferredField('line'), column: deferredField('column') };

/** Works the location out once and turns the fields into plain data. */
function resolveDeferred(location: DeferredLocation): SourceLocation {
  const pending = location[PENDING];
  if (pending === undefined) throw new Error('this is a bug in vigil: a deferred source location lost its frames');
  const resolved =
    'derive' in pending
      ? pending.derive(pending.base)
      : (firstUserCallSite(readCallSites(pending), pending.sourceMaps) ?? unknownSource());
  delete location[PENDING];
  Object.defineProperties(location, {
    file: { value: resolved.file, writable: true, enumerable: true, configurable: true },
    line: { value: resolved.line, writable: true, enumerable: true, configurable: true },
    column: { value: resolved.column, writable: true, enumerable: true, configurable: true },
  });
  return resolved;
}

function firstUserFrame(above: Function, limit: number): SourceLocation | undefined {
  if (!usesNodeStackFormat()) return firstUserFrameFromText(above, limit);
  return firstUserCallSite(callSites(above, limit), sourceMapsEnabled());
}

function firstUserCallSite(sites: readonly NodeJS.CallSite[], sourceMaps: boolean): SourceLocation | undefined {
  for (const site of sites) {
    const frame = locateCallSite(site, sourceMaps);
    if (frame && !isInternalFrame(frame.file)) return frame;
  }
  return undefined;
}

/**
 * Whether stack text would come from Node's own formatter, whose source-mapped locations
 * {@link locateCallSite} reproduces. A test runner or `source-map-support` installs its own, with
 * its own source maps, which only its text carries.
 */
function usesNodeStackFormat(): boolean {
  const prepare = Error.prepareStackTrace;
  return prepare === undefined || prepare.name === 'ErrorPrepareStackTrace';
}

/**
 * The structured frames, without formatting the stack as text: Node formats every captured frame
 * (source-mapping each, then we parse the text back), which cost over half of all evaluation time
 * of 10,000 constructs. Mapping just the frames we look at, straight from the call sites, does not.
 */
function callSites(above: Function, limit: number): NodeJS.CallSite[] {
  const previousLimit = Error.stackTraceLimit;
  const holder: { stack?: unknown } = {};
  Error.stackTraceLimit = limit;
  Error.captureStackTrace(holder, above);
  Error.stackTraceLimit = previousLimit;
  return readCallSites(holder);
}

const returnCallSites = (_error: Error, sites: NodeJS.CallSite[]): unknown => sites;

/** V8 formats a captured stack when it is first read, so read it while our hook is installed. */
function readCallSites(holder: { stack?: unknown }): NodeJS.CallSite[] {
  const previousPrepare = Error.prepareStackTrace;
  try {
    Error.prepareStackTrace = returnCallSites;
    const sites = holder.stack;
    return Array.isArray(sites) ? (sites as NodeJS.CallSite[]) : [];
  } finally {
    Error.prepareStackTrace = previousPrepare;
  }
}

/**
 * A call site's location as Node's formatter prints it: through the script's source map when
 * source maps are enabled and one is known, else the generated position.
 */
function locateCallSite(site: NodeJS.CallSite, sourceMaps: boolean): SourceLocation | undefined {
  const fileName = site.getFileName();
  const line = site.getLineNumber();
  const column = site.getColumnNumber();
  if (!fileName || line === null || column === null) return undefined;
  const map = sourceMaps ? sourceMapOf(fileName) : undefined;
  const entry = map?.findEntry(line - 1, column - 1) as Partial<NodeSourceMapping> | undefined;
  if (entry?.originalSource !== undefined && entry.originalLine !== undefined && entry.originalColumn !== undefined) {
    return { file: withoutFileScheme(entry.originalSource), line: entry.originalLine + 1, column: entry.originalColumn + 1 };
  }
  return { file: withoutFileScheme(fileName), line, column };
}

/** `findEntry`'s result in the Node versions we support (the typings name the fields differently). */
interface NodeSourceMapping {
  originalSource: string;
  originalLine: number;
  originalColumn: number;
}

function sourceMapsEnabled(): boolean {
  return (process as { sourceMapsEnabled?: boolean }).sourceMapsEnabled ?? false;
}

let lastMapped: { fileName: string; map: SourceMap | undefined } | undefined;

/** Consecutive constructs mostly come from one module, so the last look-up is kept. */
function sourceMapOf(fileName: string): SourceMap | undefined {
  if (lastMapped?.fileName !== fileName) lastMapped = { fileName, map: findSourceMap(fileName) };
  return lastMapped.map;
}

let lastPath: { source: string; file: string } | undefined;

/** Consecutive constructs mostly come from one source file, so its last conversion is kept. */
function withoutFileScheme(source: string): string {
  if (lastPath?.source !== source) lastPath = { source, file: source.startsWith('file://') ? fileURLToPath(source) : source };
  return lastPath.file;
}

/** The same search over the formatted stack text, for when someone else formats stacks. */
function firstUserFrameFromText(above: Function, limit: number): SourceLocation | undefined {
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
