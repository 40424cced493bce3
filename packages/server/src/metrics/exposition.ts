/**
 * Writing the Prometheus text exposition format (version 0.0.4) directly, for the per-check series:
 * at 10,000 checks prom-client's label objects and hashing cost most of a scrape, while the text is
 * a few string pieces per line that can be kept from one scrape to the next. The output is the same
 * as prom-client's (families separated by a blank line, HELP then TYPE then samples), so the
 * service's own metrics, which prom-client still writes, follow it after one more blank line.
 */

export const CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

const NEEDS_ESCAPE = /[\\"\n]/;

/**
 * A label value as the format quotes it: backslash, double quote and line feed escaped. Label values
 * are user text (check names, group names, tags); an unescaped quote or newline would end the value
 * or the line and let a name forge samples.
 */
export function escapeLabelValue(value: string): string {
  if (!NEEDS_ESCAPE.test(value)) return value;
  return value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

/** A sample value: integers and decimals as JavaScript prints them, non-finite ones as the format names them. */
export function formatSampleValue(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Number.POSITIVE_INFINITY) return '+Inf';
  if (value === Number.NEGATIVE_INFINITY) return '-Inf';
  return String(value);
}

export interface Family {
  readonly name: string;
  /** Plain text without a backslash or newline (constants of ours), so it needs no escaping. */
  readonly help: string;
  readonly type: 'counter' | 'gauge' | 'histogram';
}

/** One or more complete sample lines, each ending in a newline, as UTF-8 (see `expositionBody`). */
export type Lines = Uint8Array;

export function linesOf(text: string): Lines {
  return Buffer.from(text);
}

/** A family and its samples. */
export interface FamilySamples {
  readonly family: Family;
  readonly samples: readonly Lines[];
}

const BLANK_LINE = Buffer.from('\n');

/**
 * The exposition of `families` in order: each family's HELP and TYPE lines, then its samples, and a
 * blank line between two families (as prom-client writes them), then `more` (prom-client's text of
 * further families) after one more blank line.
 *
 * Bytes, not a string: the samples are kept as UTF-8 between scrapes, so a scrape of 10,000 checks
 * (5 MiB) is one copy of each into the body, where joining strings took several times longer and
 * then had to be encoded for the response.
 */
export function expositionBody(families: readonly FamilySamples[], more?: string): Uint8Array<ArrayBuffer> {
  const chunks: Uint8Array[] = [];
  for (const [index, { family, samples }] of families.entries()) {
    chunks.push(Buffer.from(`${index === 0 ? '' : '\n'}# HELP ${family.name} ${family.help}\n# TYPE ${family.name} ${family.type}\n`));
    for (const sample of samples) chunks.push(sample);
  }
  if (more !== undefined) chunks.push(BLANK_LINE, Buffer.from(more));
  return Buffer.concat(chunks);
}
