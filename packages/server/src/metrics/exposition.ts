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

/**
 * Lines, or how to get them when the body reaches them: a block of checks whose lines changed
 * is written then (checks.ts), so that work overlaps sending what comes before it.
 */
export type Piece = Lines | (() => Lines);

/** The lines of a piece, written now if they were left for later. */
export function linesOfPiece(piece: Piece): Lines {
  return typeof piece === 'function' ? piece() : piece;
}

/** A family and its samples. */
export interface FamilySamples {
  readonly family: Family;
  readonly samples: readonly Piece[];
}

const BLANK_LINE = Buffer.from('\n');

/**
 * The exposition of `families` in order, as the pieces to send one after the other: each family's
 * HELP and TYPE lines, then its samples, and a blank line between two families (as prom-client
 * writes them), then `more` (prom-client's text of further families) after one more blank line.
 *
 * The pieces are the samples' own bytes, kept as UTF-8 between scrapes and never changed once
 * written (a check's new data gets new pieces), so a scrape refers to them instead of copying them:
 * at 10,000 checks that have all run it is 27 MiB, which one body would copy whole before the first
 * byte could leave.
 */
export function expositionChunks(families: readonly FamilySamples[], more?: string): Piece[] {
  const chunks: Piece[] = [];
  for (const [index, { family, samples }] of families.entries()) {
    chunks.push(Buffer.from(`${index === 0 ? '' : '\n'}# HELP ${family.name} ${family.help}\n# TYPE ${family.name} ${family.type}\n`));
    for (const sample of samples) chunks.push(sample);
  }
  if (more !== undefined) chunks.push(BLANK_LINE, Buffer.from(more));
  return chunks;
}

/** The exposition as one body (`expositionChunks` joined). */
export function expositionBody(families: readonly FamilySamples[], more?: string): Uint8Array<ArrayBuffer> {
  return Buffer.concat(expositionChunks(families, more).map(linesOfPiece));
}

/**
 * About how many bytes the stream hands the socket at a time. Measured at 10,000 checks (27 MiB):
 * 64 KiB and 256 KiB batches cost more CPU per scrape than 1 MiB, whose copy ahead of the client
 * is still small.
 */
export const STREAM_BATCH_BYTES = 1024 * 1024;

/** A chunk this large is written by itself (see `expositionStream`). */
export const STREAM_ALONE_BYTES = 64 * 1024;

/**
 * `chunks` as a byte stream, small ones joined into batches of about `batchBytes`: a few dozen
 * writes for a large scrape instead of one per check (each a promise and a socket write), and no
 * more than a batch copied ahead of what the client has read, as the stream is pulled only when
 * the socket has room. A chunk of `aloneBytes` or more (a block of checks' lines, checks.ts) is
 * written as it is: copying it into a batch would only add a copy and its garbage.
 */
export function expositionStream(pieces: readonly Piece[], batchBytes = STREAM_BATCH_BYTES, aloneBytes = STREAM_ALONE_BYTES): ReadableStream<Uint8Array> {
  // Each piece's lines as the stream reaches it (a piece left for later is written then).
  const chunks: Lines[] = [];
  const chunkAt = (index: number) => (chunks[index] ??= linesOfPiece(pieces[index]!));
  let next = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      const start = next;
      let size = 0;
      while (next < pieces.length && (size < batchBytes || next === start)) {
        const length = chunkAt(next).length;
        if (length >= aloneBytes && next > start) break;
        size += length;
        next++;
        if (length >= aloneBytes) break;
      }
      if (next > start) controller.enqueue(next - start === 1 ? chunks[start]! : Buffer.concat(chunks.slice(start, next), size));
      if (next >= pieces.length) controller.close();
    },
  }, { highWaterMark: 0 });
}
