import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Message } from 'esbuild';
import { deriveSourceLocation, type Diagnostic, type SourceLocation } from '@vigil/constructs';
import { CHECKLY_CONSTRUCT_NAMES } from './checkly-constructs.js';

/**
 * Turns failures in the user's code into diagnostics that point at the user's own line. Users get
 * `checks/api.monitor.ts:12:5  error  ...`, never a stack trace through vigil's internals.
 */

/** `file` relative to `root` with forward slashes when it lies inside it; absolute otherwise. */
export function displayPath(root: string, file: string): string {
  const absolute = file.startsWith('file://') ? fileURLToPath(file) : file;
  if (!path.isAbsolute(absolute)) return absolute.split(path.sep).join('/');
  const relative = path.relative(root, absolute);
  const inside = relative !== '' && !relative.startsWith('..') && !path.isAbsolute(relative);
  return (inside ? relative : absolute).split(path.sep).join('/');
}

/**
 * The same location with its file made relative to the project root; still deferred when `source`
 * is (a construct's location is worked out only when something reads it).
 */
export function relativeSource(root: string, source: SourceLocation): SourceLocation {
  return deriveSourceLocation(source, (location) => ({ ...location, file: displayPath(root, location.file) }));
}

/** esbuild's errors and warnings (syntax errors, unresolved imports) as diagnostics. */
export function esbuildMessagesToDiagnostics(
  root: string,
  messages: readonly Message[],
  severity: Diagnostic['severity'],
): Diagnostic[] {
  return messages.map((message) => {
    const unsupported = unsupportedImport(message.text);
    // Always an error: the name would be undefined at run time, where the failure reads far worse.
    const diagnostic: Diagnostic = { severity: unsupported ? 'error' : severity, message: unsupported?.message ?? message.text };
    const hint = unsupported?.hint ?? message.notes.map((note) => note.text).filter(Boolean).join(' ');
    if (hint) diagnostic.hint = hint;
    // Locations in vigil's own virtual modules would mean nothing to the user.
    const inUserFile = message.location && (message.location.namespace === 'file' || message.location.namespace === '');
    if (message.location && inUserFile) {
      diagnostic.source = {
        file: displayPath(root, path.resolve(root, message.location.file)),
        line: message.location.line,
        // esbuild counts columns from 0; editors and the rest of vigil count from 1.
        column: message.location.column + 1,
      };
    }
    return diagnostic;
  });
}

/** `import` of a vigil alias (bundle.ts): a module re-exporting each export of the aliased module by name. */
export const ALIAS_NAMESPACE = 'vigil-alias';

// esbuild's words for a name such a module does not export: an error for a named import, a warning
// for a property of a namespace import (`import * as c from 'checkly/constructs'; new c.IcmpMonitor()`).
const MISSING_ALIAS_EXPORT = new RegExp(`^No matching export in "${ALIAS_NAMESPACE}:([^"]+)" for import "([^"]+)"$`);
const UNDEFINED_ALIAS_IMPORT = new RegExp(`^Import "([^"]+)" will always be undefined because there is no matching export in "${ALIAS_NAMESPACE}:([^"]+)"$`);

/** An import of a name vigil's entry points lack: a Checkly construct not supported yet, or a typo. */
function unsupportedImport(text: string): { message: string; hint: string } | undefined {
  const named = MISSING_ALIAS_EXPORT.exec(text);
  const property = UNDEFINED_ALIAS_IMPORT.exec(text);
  if (!named && !property) return undefined;
  const [module, name] = named ? [named[1]!, named[2]!] : [property![2]!, property![1]!];
  if (CHECKLY_CONSTRUCT_NAMES.has(name)) {
    return {
      message: `"${name}" is not supported by vigil yet`,
      hint: `"${module}" in vigil has no ${name}; remove it from this file (or keep it in Checkly). docs/migrating-from-checkly.md lists what vigil supports.`,
    };
  }
  return { message: `"${module}" has no export named "${name}"`, hint: 'Check the spelling; docs/constructs.md lists every construct vigil exports.' };
}

const NOT_A_CONSTRUCTOR = /^(?:[A-Za-z_$][\w$]*\.)?([A-Za-z_$][\w$]*) is not a constructor$/;

// `at fn (file:///a/b.ts:12:5)`, `at file:///a/b.ts:12:5`, `at /a/b.ts:12:5`, `at async fn (...)`
const FRAME = /^\s*at (?:.*?\()?(.+?):(\d+):(\d+)\)?\s*$/;

/**
 * The first stack frame in the user's code: inside the project root, not in `node_modules`, not in
 * vigil's own packages. Stack frames are already source-mapped (the loader enables source maps
 * before evaluating), so the location is in the user's TypeScript.
 */
export function firstUserFrame(root: string, stack: string, isVigilFile: (file: string) => boolean): SourceLocation | undefined {
  for (const line of stack.split('\n')) {
    const match = FRAME.exec(line);
    if (!match) continue;
    let file = match[1]!;
    if (file.startsWith('file://')) file = fileURLToPath(file);
    if (!path.isAbsolute(file)) continue;
    const relative = path.relative(root, file);
    if (relative.startsWith('..') || path.isAbsolute(relative)) continue;
    if (relative.split(path.sep).includes('node_modules') || isVigilFile(file)) continue;
    return { file: displayPath(root, file), line: Number(match[2]), column: Number(match[3]) };
  }
  return undefined;
}

/** An exception thrown while evaluating the user's files, as one diagnostic at the throwing line. */
export function thrownErrorToDiagnostic(
  root: string,
  error: unknown,
  isVigilFile: (file: string) => boolean,
): Diagnostic {
  if (!(error instanceof Error)) {
    return { severity: 'error', message: `a monitor file threw a non-error value: ${String(error)}` };
  }
  const name = error.name && error.name !== 'Error' ? `${error.name}: ` : '';
  // `const { IcmpMonitor } = require('checkly/constructs')` gets undefined, found only at `new`.
  const unsupported = error instanceof TypeError ? NOT_A_CONSTRUCTOR.exec(error.message)?.[1] : undefined;
  const diagnostic: Diagnostic =
    unsupported !== undefined && CHECKLY_CONSTRUCT_NAMES.has(unsupported)
      ? {
          severity: 'error',
          message: `"${unsupported}" is not supported by vigil yet`,
          hint: `vigil has no ${unsupported} construct, so requiring it gave undefined; remove it from this file (or keep it in Checkly). docs/migrating-from-checkly.md lists what vigil supports.`,
        }
      : { severity: 'error', message: `${name}${error.message}` };
  const source = firstUserFrame(root, error.stack ?? '', isVigilFile);
  if (source) diagnostic.source = source;
  return diagnostic;
}
