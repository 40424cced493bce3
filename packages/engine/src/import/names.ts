/**
 * Names of imported resources: logical ids slugified from the service's names (`Home page` →
 * `home-page`), de-duplicated against each other and the project (`home`, `home-2`), and the
 * TypeScript variable names the generated files give the resources others refer to.
 */

/** `Payments API (EU)` → `payments-api-eu`; `fallback` when nothing usable is left. */
export function slugify(name: string, fallback: string): string {
  const slug = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 64)
    .replace(/-+$/, '');
  return slug === '' ? fallback : slug;
}

/** Hands out unique names: the first `home`, then `home-2`, `home-3`, skipping taken ones. */
export class UniqueNames {
  readonly #taken: Set<string>;
  readonly #separator: string;

  constructor(taken: Iterable<string>, separator = '-') {
    this.#taken = new Set(taken);
    this.#separator = separator;
  }

  claim(wanted: string): string {
    let candidate = wanted;
    for (let suffix = 2; this.#taken.has(candidate); suffix += 1) candidate = `${wanted}${this.#separator}${suffix}`;
    this.#taken.add(candidate);
    return candidate;
  }
}

const RESERVED = new Set(
  (
    'break case catch class const continue debugger default delete do else enum export extends false finally for function if ' +
    'import in instanceof new null return super switch this throw true try typeof var void while with yield let static ' +
    'implements interface package private protected public await arguments eval undefined process ' +
    // Globals the generated code or the bundle it is loaded from relies on.
    'require module exports globalThis global console NaN Infinity Symbol Object'
  ).split(' '),
);

/** `payments-api` + `Group` → `paymentsApiGroup`: a valid identifier that is no keyword. */
export function variableName(logicalId: string, suffix: string): string {
  const words = logicalId.split(/[^A-Za-z0-9]+/).filter((word) => word !== '');
  const camel = words.map((word, index) => (index === 0 ? word.toLowerCase() : word[0]!.toUpperCase() + word.slice(1).toLowerCase())).join('');
  let name = camel === '' ? suffix.toLowerCase() : camel;
  if (suffix !== '' && !name.toLowerCase().endsWith(suffix.toLowerCase())) name += suffix;
  if (/^[0-9]/.test(name)) name = `_${name}`;
  return RESERVED.has(name) ? `${name}_` : name;
}

/** Device names Windows reserves whatever follows the first dot (`con.monitor.ts` cannot be created). */
const WINDOWS_RESERVED = /^(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³])$/i;

/** A file stem (the part before `.monitor.ts`) that every file system accepts: `con` → `con-checks`. */
export function fileStem(slug: string): string {
  return WINDOWS_RESERVED.test(slug) ? `${slug}-checks` : slug;
}

/** An environment variable name that is also an identifier (`process.env.NAME`): never starts with a digit. */
export function environmentName(text: string): string {
  const name = text.replace(/[^A-Za-z0-9_]+/g, '_');
  return /^[0-9]/.test(name) || name === '' ? `_${name}` : name;
}
