/**
 * The requests of the http state backend: credentials from the caller (never from the config file),
 * retries of what a flaky network or a restarting server causes, and errors that name the address
 * and the method but never a credential.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { StateError } from './errors.js';

/** Basic auth (`username` and `password`) or a bearer token; at most one of the two is used. */
export interface HttpStateCredentials {
  username?: string | undefined;
  password?: string | undefined;
  token?: string | undefined;
}

export interface HttpTransportOptions {
  credentials: HttpStateCredentials;
  /** Retries after the first attempt of a request that failed on the network or with a 5xx/429. */
  retryMax: number;
  retryWaitMinMs: number;
  retryWaitMaxMs: number;
  /** Extra headers sent with every request (e.g. the account a service key acts on). */
  headers?: Record<string, string>;
  userAgent?: string;
}

export interface HttpReply {
  status: number;
  statusText: string;
  text: string;
}

export interface HttpTransport {
  /** Sends one request, retried as configured; network failures after the last retry throw a `state-io` error. */
  request(method: string, url: URL, body?: string): Promise<HttpReply>;
  /** `text` with every credential this transport knows replaced, for any message that quotes a server or a URL. */
  redact(text: string): string;
}

/** `https://host/path`: what messages show of an address, never its user info or query (which may carry a token). */
export function displayAddress(address: string | URL): string {
  const url = typeof address === 'string' ? new URL(address) : address;
  return `${url.protocol}//${url.host}${url.pathname}`;
}

/** 5xx (except 501, which will not change) and 429: what Terraform's http backend retries too. */
function retryable(status: number): boolean {
  return status === 429 || (status >= 500 && status !== 501);
}

export function createHttpTransport(options: HttpTransportOptions): HttpTransport {
  const { credentials } = options;
  const secrets: string[] = [];
  let authorization: string | undefined;
  if (credentials.token) {
    authorization = `Bearer ${credentials.token}`;
    secrets.push(credentials.token);
  } else if (credentials.username !== undefined || credentials.password !== undefined) {
    const basic = Buffer.from(`${credentials.username ?? ''}:${credentials.password ?? ''}`, 'utf8').toString('base64');
    authorization = `Basic ${basic}`;
    secrets.push(basic);
    if (credentials.password) secrets.push(credentials.password);
  }
  // Longest first, so a secret containing another is replaced whole.
  secrets.sort((a, b) => b.length - a.length);

  function redact(text: string): string {
    let result = text;
    for (const secret of secrets) result = result.split(secret).join('(redacted)');
    return result
      .replace(/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]+/g, '$1 (redacted)')
      .replace(/\/\/[^/\s@]*@/g, '//(redacted)@');
  }

  function waitMs(attempt: number): number {
    const exponential = options.retryWaitMinMs * 2 ** attempt;
    return Math.min(options.retryWaitMaxMs, exponential);
  }

  async function request(method: string, url: URL, body?: string): Promise<HttpReply> {
    const headers: Record<string, string> = { ...options.headers, ...(options.userAgent ? { 'user-agent': options.userAgent } : {}) };
    if (authorization) headers['authorization'] = authorization;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const shown = `${method} ${displayAddress(url)}`;
    for (let attempt = 0; ; attempt += 1) {
      const last = attempt >= options.retryMax;
      let reply: HttpReply;
      try {
        const response = await fetch(url, { method, headers, ...(body === undefined ? {} : { body }), redirect: 'error' });
        reply = { status: response.status, statusText: response.statusText, text: await response.text() };
      } catch (error) {
        if (last) {
          const cause = error instanceof Error ? ((error.cause as Error | undefined)?.message ?? error.message) : String(error);
          const tries = attempt + 1;
          throw new StateError('state-io', redact(`cannot reach the state server: ${shown} failed (${cause})${tries > 1 ? ` ${tries} times` : ''}`), { cause: error });
        }
        await sleep(waitMs(attempt));
        continue;
      }
      if (last || !retryable(reply.status)) return reply;
      await sleep(waitMs(attempt));
    }
  }

  return { request, redact };
}

/** `500 Internal Server Error: <the server's first 300 characters>`, redacted and on one line. */
export function describeReply(reply: HttpReply, redact: (text: string) => string): string {
  const oneLine = reply.text.trim().replace(/\s+/g, ' ');
  // A server's text must not move the user's cursor or colour their terminal.
  const excerpt = Array.from(oneLine, (char) => {
    const code = char.codePointAt(0)!;
    return code < 32 || (code >= 127 && code < 160) ? '?' : char;
  })
    .join('')
    .slice(0, 300);
  return redact(`${reply.status}${reply.statusText ? ` ${reply.statusText}` : ''}${excerpt === '' ? '' : `: ${excerpt}`}`);
}
