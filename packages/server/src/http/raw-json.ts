/**
 * A response body that is already JSON text. Stored documents are JSON; a list handler can splice
 * the few response-only fields into that text instead of parsing and re-serialising every document,
 * which was most of the cost of a 100-item page.
 */
export class RawJson {
  readonly json: string;

  constructor(json: string) {
    this.json = json;
  }
}

/** `[a,b,...]` from items that are RawJson or plain values. */
export function serializeList(items: readonly unknown[]): RawJson {
  return new RawJson(`[${items.map((item) => (item instanceof RawJson ? item.json : JSON.stringify(item))).join(',')}]`);
}

/** The body as a JSON value (parses RawJson). For response checks and idempotency records. */
export function bodyValue(body: unknown): unknown {
  return body instanceof RawJson ? (JSON.parse(body.json) as unknown) : body;
}

export function bodyText(body: unknown): string {
  return body instanceof RawJson ? body.json : JSON.stringify(body ?? null);
}
