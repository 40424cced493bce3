/**
 * Whether a JSON_BODY assertion's `property` is a JSONPath that parses. The runner evaluates paths
 * with jsonpath-plus, which reads almost any text as some path (`$.a[` is `$.a`), so a typo would
 * silently assert on the wrong value; this stricter reading of the same syntax lets `validate`
 * refuse it at the construct, and the runner refuse it at run time, with one message.
 *
 * Accepted: an optional `$` root (a path without one is read from the root, as jsonpath-plus does),
 * then segments: `.name`, `..name`, `.*`, `..*`, `[...]` and `..[...]`. Inside brackets: a union
 * (`,`) of quoted names, integers, slices (`1:3`, `::2`), `*` or bare names; or a filter `?(...)` /
 * script `(...)` whose parentheses, brackets and quotes balance. Names may end in jsonpath-plus'
 * `~` (property name) or be `^` (parent).
 */

/** The problem with `path`, or null when it parses. Empty means the whole document. */
export function jsonPathProblem(path: string): string | null {
  const text = path.trim();
  if (text === '' || text === '$') return null;
  let index = text.startsWith('$') ? 1 : 0;
  if (index === 0 && !text.startsWith('.') && !text.startsWith('[')) {
    const name = readName(text, 0);
    if (name === 0) return `unexpected "${text[0]}" at character 1`;
    index = name;
  }
  while (index < text.length) {
    const char = text[index]!;
    if (char === '[') {
      const end = readBracket(text, index);
      if (typeof end === 'string') return end;
      index = end;
      continue;
    }
    if (char !== '.') return `unexpected "${char}" at character ${index + 1}`;
    const recursive = text[index + 1] === '.';
    const start = index + (recursive ? 2 : 1);
    if (start >= text.length) return `the path ends with "${recursive ? '..' : '.'}": a name, "*" or "[" must follow`;
    if (text[start] === '[' && recursive) {
      index = start;
      continue;
    }
    if (text[start] === '*') {
      index = start + 1;
      continue;
    }
    const end = readName(text, start);
    if (end === start) return `a name, "*" or "[" must follow "${recursive ? '..' : '.'}" at character ${start}`;
    index = end;
  }
  return null;
}

const NAME_STOP = new Set(['.', '[', ']', '(', ')', "'", '"', ' ', ',']);

/** The index after a member name starting at `start` (== start when there is none). */
function readName(text: string, start: number): number {
  let index = start;
  while (index < text.length && !NAME_STOP.has(text[index]!)) index += 1;
  return index;
}

/** The index after the `]` closing the bracket at `open`, or the problem. */
function readBracket(text: string, open: number): number | string {
  const first = text[open + 1];
  if (first === undefined) return `unclosed "[" at character ${open + 1}`;
  if (first === '?' || first === '(') {
    const parenthesis = first === '?' ? open + 2 : open + 1;
    if (text[parenthesis] !== '(') return `a filter must be written "[?(...)]" (at character ${open + 1})`;
    const close = readBalanced(text, parenthesis);
    if (typeof close === 'string') return close;
    if (text[close] !== ']') return `unclosed "[" at character ${open + 1}`;
    return close + 1;
  }
  let index = open + 1;
  for (;;) {
    index = skipSpaces(text, index);
    const item = readItem(text, index);
    if (typeof item === 'string') return item;
    if (item === index) return text[index] === ']' ? `empty "[]" at character ${open + 1}` : `unexpected "${text[index] ?? 'end'}" at character ${index + 1}`;
    index = skipSpaces(text, item);
    if (text[index] === ',') {
      index += 1;
      continue;
    }
    if (text[index] === ']') return index + 1;
    return index >= text.length ? `unclosed "[" at character ${open + 1}` : `unexpected "${text[index]}" at character ${index + 1}`;
  }
}

/** One union member: a quoted name, `*`, a slice or an integer, or a bare name. */
function readItem(text: string, start: number): number | string {
  const char = text[start];
  if (char === "'" || char === '"') return readQuoted(text, start);
  if (char === '*') return start + 1;
  const slice = /^(-?\d+)?(:(-?\d+)?){0,2}/.exec(text.slice(start))![0];
  if (slice !== '') return start + slice.length;
  return readName(text, start);
}

function readQuoted(text: string, open: number): number | string {
  const quote = text[open];
  for (let index = open + 1; index < text.length; index += 1) {
    if (text[index] === '\\') index += 1;
    else if (text[index] === quote) return index + 1;
  }
  return `unclosed ${quote} at character ${open + 1}`;
}

/** The index after the `)` matching the `(` at `open`, skipping quoted text and nested brackets. */
function readBalanced(text: string, open: number): number | string {
  const stack: string[] = [];
  for (let index = open; index < text.length; index += 1) {
    const char = text[index]!;
    if (char === "'" || char === '"') {
      const end = readQuoted(text, index);
      if (typeof end === 'string') return end;
      index = end - 1;
    } else if (char === '(' || char === '[') stack.push(char === '(' ? ')' : ']');
    else if (char === ')' || char === ']') {
      if (stack.pop() !== char) return `unbalanced "${char}" at character ${index + 1}`;
      if (stack.length === 0) {
        if (index === open + 1) return `empty expression "()" at character ${open + 1}`;
        return index + 1;
      }
    }
  }
  return `unclosed "(" at character ${open + 1}`;
}

function skipSpaces(text: string, index: number): number {
  while (text[index] === ' ') index += 1;
  return index;
}
