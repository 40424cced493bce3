/**
 * Finding a secret value in outgoing text whatever spelling it took on the way: a value interpolated
 * into a URL comes back percent-encoded (encodeURIComponent's `%20` or a form's `+`, hex in either
 * case, or encoded twice when a URL travels inside another), lower-cased when it sits in a host
 * name (or as punycode when it is a non-ASCII label), JSON-escaped when a target echoes it in a
 * body (`\"`, `\/`, `\u00e9`), or as an HTML character reference on a page. Spellings may be mixed
 * within one value, as encoders differ in which characters they touch.
 *
 * The one place these spellings are known: the runner's redaction of results (./variables.ts), the
 * CLI's redaction of what a service echoes, and the service's masking of alert-channel credentials
 * all build on it, so a form added here is redacted everywhere. Not covered: other encodings
 * (base64, hashes, a value split across fields or reordered), and case-folding beyond ASCII and
 * simple Unicode case pairs.
 */
import { domainToASCII } from 'node:url';

export interface SecretMatcherOptions {
  /**
   * Secrets shorter than this are matched only as whole words (not inside a longer run of letters
   * and digits), so a short value does not mangle ordinary text. Default 0: anywhere.
   */
  wholeWordBelow?: number;
}

export interface SecretMatcher {
  /** `text` with every spelling of every secret replaced by `replacement`. */
  replace(text: string, replacement: string): string;
  /**
   * Where a tail of `text` begins that spells the start of a secret (3 or more of its characters,
   * perhaps ending in a cut escape), or -1. For text cut short: a cut through a secret leaves its
   * first characters at the very end.
   */
  cutTail(text: string): number;
}

const HTML_NAMED: Readonly<Record<string, readonly string[]>> = {
  '&': ['&amp;'],
  '<': ['&lt;'],
  '>': ['&gt;'],
  '"': ['&quot;'],
  "'": ['&apos;'],
};

const JSON_SHORT: Readonly<Record<string, string>> = {
  '"': '\\"',
  '\\': '\\\\',
  '/': '\\/',
  '\b': '\\b',
  '\f': '\\f',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
};

const utf8 = new TextEncoder();

function percentEncoded(text: string): string {
  return [...utf8.encode(text)].map((byte) => `%${byte.toString(16).toUpperCase().padStart(2, '0')}`).join('');
}

/** Every way one character (a code point) may be written in outgoing text; case is left to the matcher. */
export function spellingsOf(char: string): string[] {
  const codePoint = char.codePointAt(0) ?? 0;
  const percent = percentEncoded(char);
  const spellings = new Set<string>([
    char,
    percent,
    // Percent-encoded once more: a URL carried in another URL's query string.
    percent.replace(/%/g, '%25'),
    [...Array(char.length).keys()].map((index) => `\\u${char.charCodeAt(index).toString(16).padStart(4, '0')}`).join(''),
    `&#${codePoint};`,
    `&#x${codePoint.toString(16)};`,
  ]);
  if (char === ' ') spellings.add('+');
  const json = JSON_SHORT[char];
  if (json !== undefined) {
    spellings.add(json);
    // A JSON body sent as a form field or query parameter.
    spellings.add(percentEncoded(json));
  }
  for (const named of HTML_NAMED[char] ?? []) spellings.add(named);
  return [...spellings];
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

interface Prepared {
  /** Per character of the secret, its spellings in lower case, longest first. */
  chars: string[][];
  source: string;
  wholeWord: boolean;
}

function prepare(secret: string, wholeWord: boolean): Prepared {
  const chars = [...secret].map((char) => spellingsOf(char).map((spelling) => spelling.toLowerCase()).sort((a, b) => b.length - a.length));
  const body = chars.map((spellings) => `(?:${spellings.map(escapeRegExp).join('|')})`).join('');
  return { chars, source: wholeWord ? `(?<![\\p{L}\\p{N}])${body}(?![\\p{L}\\p{N}])` : body, wholeWord };
}

/** The secret as a host name label turns it: punycode for non-ASCII (its ASCII case is left to the matcher). */
function hostForm(secret: string): string | undefined {
  if (/^[\x00-\x7f]*$/.test(secret)) return undefined;
  const ascii = domainToASCII(secret);
  return ascii !== '' && ascii !== secret ? ascii : undefined;
}

/**
 * Matchers by their secrets: a scheduled check runs with the same secrets every time, and building
 * one (a pattern of every spelling of every character) costs more than most redactions it does.
 */
const built = new Map<string, SecretMatcher | undefined>();
const MAX_BUILT = 500;

/** Undefined when there is nothing to look for (no non-empty value). */
export function secretMatcher(values: Iterable<string>, options: SecretMatcherOptions = {}): SecretMatcher | undefined {
  const list = [...values];
  const key = JSON.stringify([options.wholeWordBelow ?? 0, ...list]);
  if (built.has(key)) return built.get(key);
  const matcher = buildMatcher(list, options);
  if (built.size >= MAX_BUILT) built.delete(built.keys().next().value!);
  built.set(key, matcher);
  return matcher;
}

function buildMatcher(values: readonly string[], options: SecretMatcherOptions): SecretMatcher | undefined {
  const secrets = new Set<string>();
  for (const value of values) {
    if (typeof value !== 'string' || value === '') continue;
    secrets.add(value);
    const host = hostForm(value);
    if (host !== undefined) secrets.add(host);
  }
  if (secrets.size === 0) return undefined;
  // Longer secrets first, so a secret that contains another is not half-revealed.
  const ordered = [...secrets].sort((a, b) => [...b].length - [...a].length);
  const prepared = ordered.map((secret) => prepare(secret, [...secret].length < (options.wholeWordBelow ?? 0)));
  const pattern = new RegExp(prepared.map((entry) => entry.source).join('|'), 'giu');
  const tails = prepared.filter((entry) => entry.chars.length >= 4 && !entry.wholeWord);
  return {
    replace: (text, replacement) => (text === '' ? text : text.replace(pattern, () => replacement)),
    cutTail: (text) => {
      const lowered = text.toLowerCase();
      // Lower-casing can change a text's length (a few non-ASCII letters), and with it every position:
      // such a text is searched as it is, where only lower-case spellings are found.
      const folded = lowered.length === text.length ? lowered : text;
      let best = -1;
      for (const entry of tails) {
        const longest = entry.chars.reduce((sum, spellings) => sum + spellings[0]!.length, 0);
        const end = best === -1 ? folded.length - 3 : best - 1;
        for (let start = Math.max(0, folded.length - longest); start <= end; start += 1) {
          if (spellsPrefix(folded, start, entry.chars)) {
            best = start;
            break;
          }
        }
      }
      return best;
    },
  };
}

/** Whether `text` (lower-cased) from `start` to its end spells 3 or more leading characters of a secret, the last perhaps cut mid-spelling. */
function spellsPrefix(text: string, start: number, chars: readonly string[][]): boolean {
  const walk = (position: number, index: number): boolean => {
    if (position === text.length) return index >= 3;
    if (index >= chars.length) return false;
    const rest = text.length - position;
    for (const spelling of chars[index]!) {
      if (spelling.length <= rest) {
        if (text.startsWith(spelling, position) && walk(position + spelling.length, index + 1)) return true;
      } else if (index >= 3 && spelling.startsWith(text.slice(position))) {
        return true;
      }
    }
    return false;
  };
  return walk(start, 0);
}
