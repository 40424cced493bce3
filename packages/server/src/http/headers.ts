import type { Context } from 'hono';
import type { AppEnv } from './types.js';

/**
 * A request header, as `c.req.header(name)` reads it (repeated headers joined with `, `), taken from
 * the Node request's raw header list when there is one. Under @hono/node-server the first
 * `c.req.header` call builds a web `Headers` object of every header (undici validating each), which
 * cost more than the rest of the authentication; `name` must be lower case.
 */
export function requestHeader(c: Context<AppEnv>, name: string): string | undefined {
  const incoming = c.env?.incoming;
  if (!incoming) return c.req.header(name);
  const raw = incoming.rawHeaders;
  let value: string | undefined;
  for (let index = 0; index < raw.length; index += 2) {
    const field = raw[index]!;
    if (field.length !== name.length || field.toLowerCase() !== name) continue;
    const next = raw[index + 1]!;
    value = value === undefined ? next : `${value}, ${next}`;
  }
  return value;
}
