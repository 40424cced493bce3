/**
 * A response body that is already JSON text. Stored documents are JSON; a list handler can splice
 * the few response-only fields into that text instead of parsing and re-serialising every document,
 * which was most of the cost of a 100-item page.
 *
 * The text may come in pieces (a stored document without its closing brace, then the spliced-in
 * tail), and `serializeList` writes the pieces of a page straight into one UTF-8 buffer: no string of
 * the whole page is built in the JavaScript heap only to be scanned for its length and encoded again
 * by the socket write. For a 100 KB page that string cost CPU and, with ten requests in flight,
 * young-generation garbage collections copying megabytes.
 */
export class RawJson {
  /** Joined, the JSON text. */
  readonly parts: readonly string[];

  constructor(...parts: string[]) {
    this.parts = parts;
  }

  get json(): string {
    return this.parts.length === 1 ? this.parts[0]! : this.parts.join('');
  }
}

/** JSON text already encoded as UTF-8 (a serialised list). */
export class JsonBytes {
  readonly bytes: Buffer;

  constructor(bytes: Buffer) {
    this.bytes = bytes;
  }

  get json(): string {
    return this.bytes.toString('utf8');
  }
}

/** A whole list page already serialised (e.g. by SQLite), with what the paging headers need. */
export class SerializedPage {
  readonly body: JsonBytes;
  /** Items on this page. */
  readonly count: number;
  readonly total: number;

  constructor(body: JsonBytes, count: number, total: number) {
    this.body = body;
    this.count = count;
    this.total = total;
  }
}

const OPEN = 0x5b; // [
const COMMA = 0x2c;
const CLOSE = 0x5d; // ]

/** `[a,b,...]` from items that are RawJson or plain values, encoded once into one buffer. */
export function serializeList(items: readonly unknown[]): JsonBytes {
  const parts: string[] = [];
  const ends: number[] = [];
  for (const item of items) {
    if (item instanceof RawJson) parts.push(...item.parts);
    else parts.push(JSON.stringify(item));
    ends.push(parts.length);
  }
  // Items of a page mostly share their spliced-in tail (the same string), so its length is taken once.
  let size = 2 + Math.max(items.length - 1, 0);
  let previous: string | undefined;
  let previousBytes = 0;
  for (const part of parts) {
    if (part !== previous) {
      previous = part;
      previousBytes = Buffer.byteLength(part);
    }
    size += previousBytes;
  }
  const bytes = Buffer.allocUnsafe(size);
  let at = 0;
  let next = 0;
  bytes[at++] = OPEN;
  for (let index = 0; index < ends.length; index += 1) {
    if (index > 0) bytes[at++] = COMMA;
    for (; next < ends[index]!; next += 1) at += bytes.write(parts[next]!, at);
  }
  bytes[at++] = CLOSE;
  return new JsonBytes(bytes);
}

/** The body as a JSON value (parses RawJson). For response checks and idempotency records. */
export function bodyValue(body: unknown): unknown {
  return body instanceof RawJson || body instanceof JsonBytes ? (JSON.parse(body.json) as unknown) : body;
}

export function bodyText(body: unknown): string {
  return body instanceof RawJson || body instanceof JsonBytes ? body.json : JSON.stringify(body ?? null);
}
