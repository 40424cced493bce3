import { HttpError, badRequest } from './errors.js';

/** Request bodies above this are refused with 413 before they are parsed (DESIGN §3.3). */
export const MAX_BODY_BYTES = 1024 * 1024;

export interface RawBody {
  /** The bytes as text ('' when the request had no body). */
  readonly text: string;
  /** The parsed JSON, or undefined for an empty body. */
  readonly json: unknown;
}

/**
 * Reads the body with a byte budget: a declared `content-length` over the limit is refused without
 * reading; a chunked body is counted while it streams and refused as soon as it passes the limit.
 */
export async function readJsonBody(request: Request): Promise<RawBody> {
  const declared = Number(request.headers.get('content-length') ?? Number.NaN);
  if (declared > MAX_BODY_BYTES) throw tooLarge();
  if (!request.body) return { text: '', json: undefined };
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_BODY_BYTES) {
      await reader.cancel();
      throw tooLarge();
    }
    chunks.push(value);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') return { text, json: undefined };
  try {
    return { text, json: JSON.parse(text) };
  } catch (error) {
    throw badRequest(`Invalid request payload JSON format: ${(error as Error).message}`);
  }
}

function tooLarge(): HttpError {
  return new HttpError(413, `Payload content length greater than maximum allowed: ${MAX_BODY_BYTES}`);
}
