/**
 * What `vigil import` decides to write, as data: a tiny expression tree the CLI renders to
 * TypeScript. Keeping the decisions (which props, which builders, which references) apart from the
 * rendering lets them be tested without generating files, and keeps ts-morph out of the engine.
 */
import { assertNever } from '../plan/types.js';
import type { Address } from '../state/index.js';

/** A TypeScript expression in a generated monitor file. */
export type Code =
  | { readonly type: 'literal'; readonly value: string | number | boolean | null }
  | { readonly type: 'array'; readonly items: readonly Code[] }
  | { readonly type: 'object'; readonly entries: ReadonlyArray<readonly [string, Code]> }
  /** Source text calling names imported from `vigil/constructs` (`uses`), e.g. `Frequency.EVERY_5M`. */
  | { readonly type: 'call'; readonly text: string; readonly uses: readonly string[] }
  /** The variable of another imported resource. */
  | { readonly type: 'ref'; readonly address: Address }
  /** `process.env.NAME`: a secret the generated code must not hold. */
  | { readonly type: 'env'; readonly name: string };

export type ObjectCode = Extract<Code, { type: 'object' }>;

export const literal = (value: string | number | boolean | null): Code => ({ type: 'literal', value });
export const call = (text: string, ...uses: string[]): Code => ({ type: 'call', text, uses });

/** Plain data (JSON values) as code, leaving out `undefined` entries. */
export function fromValue(value: unknown): Code {
  if (Array.isArray(value)) return { type: 'array', items: value.map(fromValue) };
  if (value !== null && typeof value === 'object') {
    return { type: 'object', entries: Object.entries(value).filter(([, inner]) => inner !== undefined).map(([key, inner]) => [key, fromValue(inner)] as const) };
  }
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' || value === null) return literal(value);
  throw new Error(`this is a bug in vigil: cannot write ${typeof value} as code`);
}

/** Builds an object expression in insertion order; `set` with `undefined` leaves the key out. */
export class ObjectBuilder {
  readonly #entries: Array<readonly [string, Code]> = [];

  set(key: string, value: Code | undefined): this {
    if (value !== undefined) this.#entries.push([key, value]);
    return this;
  }

  get size(): number {
    return this.#entries.length;
  }

  build(): ObjectCode {
    return { type: 'object', entries: [...this.#entries] };
  }
}

/** Every `vigil/constructs` name and resource address an expression uses. */
export function usesOf(code: Code, names: Set<string>, refs: Set<Address>): void {
  switch (code.type) {
    case 'literal':
    case 'env':
      return;
    case 'array':
      for (const item of code.items) usesOf(item, names, refs);
      return;
    case 'object':
      for (const [, value] of code.entries) usesOf(value, names, refs);
      return;
    case 'call':
      for (const name of code.uses) names.add(name);
      return;
    case 'ref':
      refs.add(code.address);
      return;
    default:
      assertNever(code);
  }
}

/**
 * Characters that are invisible, reorder what a reader sees, or end a line for a parser: C0 and C1
 * controls, DEL, the line and paragraph separators (which end a `//` comment and, in older
 * parsers, a string), bidirectional overrides ("Trojan Source"), the BOM, and lone surrogates
 * (which a UTF-8 file cannot hold: they would be written as U+FFFD and the value would change).
 */
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufeff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
const SHORT_ESCAPES: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** `text` with every {@link UNSAFE} character except those in `keep` written as a JavaScript escape (`\n`, `\u2028`). */
export function escapeUnsafe(text: string, keep = ''): string {
  return text.replace(UNSAFE, (char) => (keep.includes(char) ? char : (SHORT_ESCAPES[char] ?? `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`)));
}

/**
 * Remote text shown on one line of a terminal or log: control characters (terminal escape
 * sequences), line breaks and bidirectional overrides escaped, so a name cannot move the cursor,
 * forge lines of output or hide what it says.
 */
export function printable(text: string): string {
  return escapeUnsafe(text);
}

/**
 * Remote text inside a generated `//` or `/* *\/` comment: nothing in it can end the comment (line
 * breaks and U+2028/U+2029 are escaped, `*\/` is broken up), so a resource's name stays a comment.
 */
export function commentText(text: string): string {
  return escapeUnsafe(text).replace(/\*\//g, '*\\/');
}

/** A single-quoted TypeScript string literal holding exactly `value`, on one line. */
export function tsString(value: string): string {
  let escaped = '';
  for (const char of value) {
    if (char === '\\') escaped += '\\\\';
    else if (char === "'") escaped += "\\'";
    else escaped += char;
  }
  return `'${escapeUnsafe(escaped)}'`;
}

/** Source text of a literal or plain-data argument inside a `call`. */
export function valueText(value: unknown): string {
  if (typeof value === 'string') return tsString(value);
  if (Array.isArray(value)) return `[${value.map(valueText).join(', ')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value).filter(([, inner]) => inner !== undefined);
    return `{ ${entries.map(([key, inner]) => `${propertyKey(key)}: ${valueText(inner)}`).join(', ')} }`;
  }
  return String(value);
}

/**
 * An object key as written: bare when it is an identifier. `__proto__` is computed: written bare or
 * quoted, an object literal would set its prototype instead of holding the key.
 */
export function propertyKey(key: string): string {
  if (key === '__proto__') return `[${tsString(key)}]`;
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(key) ? key : tsString(key);
}
