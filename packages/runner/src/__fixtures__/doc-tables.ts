/**
 * Reads a rule table out of docs/testing.md, so the documented table and the unit tests are one
 * source: a row added to the doc is a new test case, and a case the code disagrees with fails.
 */
import { readFileSync } from 'node:fs';

const DOC = new URL('../../../../docs/testing.md', import.meta.url);

/** The rows between `<!-- NAME:start -->` and `<!-- NAME:end -->`, as objects keyed by the header cells. */
export function docTable(name: string): Record<string, string>[] {
  const text = readFileSync(DOC, 'utf8');
  const start = text.indexOf(`<!-- ${name}:start -->`);
  const end = text.indexOf(`<!-- ${name}:end -->`);
  if (start < 0 || end < start) throw new Error(`docs/testing.md has no table marked ${name}`);
  const lines = text.slice(start, end).split('\n').filter((line) => line.startsWith('|'));
  const [header, , ...rows] = lines.map(cells);
  if (header === undefined || rows.length === 0) throw new Error(`the table ${name} in docs/testing.md is empty`);
  return rows.map((row) => Object.fromEntries(header.map((column, index) => [column, row[index] ?? ''])));
}

function cells(line: string): string[] {
  return line
    .slice(1, line.endsWith('|') ? -1 : undefined)
    .split('|')
    .map((cell) => cell.trim().replace(/^`(.*)`$/, '$1'));
}
