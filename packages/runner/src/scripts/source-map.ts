/** Inline source maps of bundled check scripts: where a position in the bundle came from. */
import { SourceMap } from 'node:module';

/** The inline source map at the end of `code`, or null when it has none (code written inline). */
export function inlineSourceMap(code: string): SourceMap | null {
  const match = /\/\/# sourceMappingURL=data:application\/json;(?:charset=utf-8;)?base64,([A-Za-z0-9+/=]+)\s*$/.exec(code);
  if (!match?.[1]) return null;
  try {
    return new SourceMap(JSON.parse(Buffer.from(match[1], 'base64').toString('utf8')) as ConstructorParameters<typeof SourceMap>[0]);
  } catch {
    return null;
  }
}

/** `file:line:column` (1-based) in the user's sources for a 1-based position in the bundle, or null when unmapped. */
export function originalPosition(map: SourceMap, line: number, column: number): string | null {
  const entry = map.findEntry(line - 1, Math.max(0, column - 1)) as { originalSource?: string; originalLine?: number; originalColumn?: number };
  if (entry.originalSource === undefined || entry.originalLine === undefined || entry.originalColumn === undefined) return null;
  return `${entry.originalSource}:${entry.originalLine + 1}:${entry.originalColumn + 1}`;
}
