import type { IncomingMessage } from 'node:http';
import type { Context } from 'hono';
import { describe, expect, it } from 'vitest';
import { requestHeader } from './headers.js';
import type { AppEnv } from './types.js';

/** A context as @hono/node-server builds it, with `rawHeaders` as Node keeps them. */
function contextWith(rawHeaders: string[]): Context<AppEnv> {
  const headers = new Headers();
  for (let index = 0; index < rawHeaders.length; index += 2) headers.append(rawHeaders[index]!, rawHeaders[index + 1]!);
  return { env: { incoming: { rawHeaders } as unknown as IncomingMessage }, req: { header: (name: string) => headers.get(name) ?? undefined } } as unknown as Context<AppEnv>;
}

describe('requestHeader', () => {
  it('reads what c.req.header reads: any case, repeats joined, missing as undefined', () => {
    const c = contextWith(['Authorization', 'Bearer a', 'X-Service-Account', 'acme', 'authorization', 'Bearer b', 'Host', 'x']);
    for (const name of ['authorization', 'x-service-account', 'idempotency-key', 'host']) {
      expect(requestHeader(c, name)).toBe(c.req.header(name));
    }
    expect(requestHeader(c, 'authorization')).toBe('Bearer a, Bearer b');
  });

  it('falls back to c.req.header without a Node request (app.request in tests)', () => {
    const c = { env: undefined, req: { header: (name: string) => (name === 'authorization' ? 'Bearer k' : undefined) } } as unknown as Context<AppEnv>;
    expect(requestHeader(c, 'authorization')).toBe('Bearer k');
  });
});
