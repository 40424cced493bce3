/**
 * `{{KEY}}` interpolation from a run's variables and the redaction of secret values. Secrets may come
 * back from anywhere a run reaches (an echoing target, a script's console, an error message), so the
 * runner redacts every string it puts into a result, not only the fields it filled from variables.
 */
import { secretMatcher } from './redaction.js';
import type { RunVariable } from './types.js';

export const REDACTED = '*****';

const PLACEHOLDER = /\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g;

/** First match wins; the caller decides the order (see RunContext.variables). */
export function variableLookup(variables: readonly RunVariable[]): Map<string, string> {
  const lookup = new Map<string, string>();
  for (const variable of variables) if (!lookup.has(variable.key)) lookup.set(variable.key, variable.value);
  return lookup;
}

/** Replaces each `{{KEY}}` with its value; an unknown key stays as written, as on the real service. */
export function interpolate(text: string, lookup: ReadonlyMap<string, string>): string {
  if (!text.includes('{{')) return text;
  return text.replace(PLACEHOLDER, (whole, key: string) => lookup.get(key) ?? whole);
}

/**
 * A function that replaces every secret value in a text with `*****`, in every spelling it may
 * have taken on its way out (./redaction.ts). Values of a character or two are still redacted:
 * leaking a short secret is worse than a garbled log.
 */
export type Redactor = (text: string, options?: { cut?: boolean }) => string;

/**
 * `cut: true` says the text was cut short (a body at its size cap): a secret the cut went through
 * leaves its first characters at the very end, so a tail that starts a secret (3 or more of its
 * characters) is redacted too.
 */
export function secretRedactor(variables: readonly RunVariable[]): Redactor {
  const matcher = secretMatcher(variables.filter((variable) => variable.secret === true).map((variable) => variable.value));
  if (matcher === undefined) return (text) => text;
  return (text, options) => {
    if (typeof text !== 'string' || text === '') return text;
    const redacted = matcher.replace(text, REDACTED);
    if (options?.cut !== true) return redacted;
    const tail = matcher.cutTail(redacted);
    return tail === -1 ? redacted : redacted.slice(0, tail) + REDACTED;
  };
}

/** Redacts every string inside a JSON-like value (a result), returning a copy. */
export function redactDeep<T>(value: T, redact: (text: string) => string): T {
  if (typeof value === 'string') return redact(value) as T;
  if (Array.isArray(value)) return value.map((item) => redactDeep(item, redact)) as T;
  if (value !== null && typeof value === 'object') {
    const copy: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) copy[redact(key)] = redactDeep(item, redact);
    return copy as T;
  }
  return value;
}
