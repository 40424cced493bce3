import type { IncomingMessage } from 'node:http';
import { HttpError, badRequest } from './errors.js';

/**
 * Request bodies above this are refused with 413 before they are parsed. Twice the
 * longest script (`SCRIPT_MAX_LENGTH`, 1 MiB), so a check at that limit still fits with its other
 * fields and is refused by validation, naming `script`, rather than by size.
 */
export const MAX_BODY_BYTES = 2 * 1024 * 1024;

export interface RawBody {
  /** The bytes as text ('' when the request had no body). */
  readonly text: string;
  /** The parsed JSON, or undefined for an empty body. */
  readonly json: unknown;
}

/**
 * Reads the body with a byte budget: a declared `content-length` over the limit is refused without
 * reading; a chunked body is counted while it streams and refused as soon as it passes the limit.
 *
 * Under @hono/node-server the Node request (`incoming`) is read directly: touching the web
 * `Request.body` makes the adapter build a full undici Request with a web stream, which cost more
 * CPU than the rest of a create call together. `maxBytes` is larger only where the contract stores
 * documents bigger than any resource (a project's state).
 */
export async function readJsonBody(request: Request, incoming?: IncomingMessage, maxBytes = MAX_BODY_BYTES): Promise<RawBody> {
  const declared = Number((incoming ? incoming.headers['content-length'] : request.headers.get('content-length')) ?? Number.NaN);
  if (declared > maxBytes) throw tooLarge(maxBytes);
  const chunks: Uint8Array[] = [];
  let size = 0;
  const take = (chunk: Uint8Array): void => {
    size += chunk.byteLength;
    if (size > maxBytes) throw tooLarge(maxBytes);
    chunks.push(chunk);
  };
  if (incoming) {
    await new Promise<void>((resolve, reject) => {
      const onData = (chunk: Buffer): void => {
        try {
          take(chunk);
        } catch (error) {
          // Stop collecting but let the rest of the body drain, so the 413 can still be written on
          // this connection (abandoning the stream would destroy the socket).
          incoming.off('data', onData);
          incoming.resume();
          reject(error as Error);
        }
      };
      incoming.on('data', onData);
      incoming.once('end', () => resolve());
      incoming.once('error', reject);
    });
  } else if (request.body) {
    const reader = request.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      try {
        take(value);
      } catch (error) {
        await reader.cancel();
        throw error;
      }
    }
  }
  const text = chunks.length === 1 ? Buffer.from(chunks[0]!).toString('utf8') : Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') return { text, json: undefined };
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw badRequest(`Invalid request payload JSON format: ${(error as Error).message}`);
  }
  const deep = pathPastDepth(json, MAX_BODY_DEPTH);
  if (deep !== undefined) {
    const field = deep.length > 0 ? String(deep[0]) : '';
    throw badRequest(`"${field || 'value'}" must not be nested deeper than ${MAX_BODY_DEPTH} levels`, { source: 'payload', keys: [field] });
  }
  return { text, json };
}

/**
 * JSON nested deeper than this is refused with 400. Nothing in the contract nests past a handful of
 * levels, while code that walks a value recursively (JSON.stringify, zod) overflows the stack
 * somewhere past 10,000: a 50,000-deep value in an "any type" field answered 500 (test/hardening/fuzz).
 */
export const MAX_BODY_DEPTH = 64;

/**
 * The path to the first value nested deeper than `limit`, or undefined. Iterative on purpose. Each
 * entry links to its parent instead of carrying its own path copy, so a normal body costs one small
 * object per value and a path is only built for the refusal.
 */
function pathPastDepth(json: unknown, limit: number): PropertyKey[] | undefined {
  interface Entry {
    readonly value: unknown;
    readonly depth: number;
    readonly key: PropertyKey;
    readonly parent: Entry | undefined;
  }
  const stack: Entry[] = [{ value: json, depth: 0, key: '', parent: undefined }];
  while (stack.length > 0) {
    const entry = stack.pop()!;
    const { value } = entry;
    if (value === null || typeof value !== 'object') continue;
    if (entry.depth >= limit) {
      const path: PropertyKey[] = [];
      for (let at: Entry | undefined = entry; at?.parent !== undefined; at = at.parent) path.push(at.key);
      return path.reverse();
    }
    for (const key of Object.keys(value)) {
      const child = (value as Record<string, unknown>)[key];
      if (child !== null && typeof child === 'object') stack.push({ value: child, depth: entry.depth + 1, key, parent: entry });
    }
  }
  return undefined;
}

function tooLarge(maxBytes: number): HttpError {
  return new HttpError(413, `Payload content length greater than maximum allowed: ${maxBytes}`);
}
