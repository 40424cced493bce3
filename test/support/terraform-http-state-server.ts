/**
 * A small server speaking Terraform's http backend protocol on a loopback port, for tests of the
 * http state backend and e2e runs of the CLI against it. One state and one lock per path:
 *
 * - GET → 200 with the document, 404 when none;
 * - POST `?ID=<lock id>` → 200; 423 with the holder's lock info when locked by another ID; 409 when
 *   the document's lineage differs from the stored one or its serial is not newer;
 * - LOCK with lock info → 200, or 423 with the holder's lock info (the same ID again: 200);
 * - UNLOCK with lock info → 200 when its ID holds the lock (or nothing does), 409 otherwise;
 * - DELETE → 200, the document removed.
 *
 * `credentials` makes every request need that basic auth or bearer token (401 otherwise),
 * `failNext` answers the next requests with an error, so retries can be tested, and
 * `holdStateWrites` keeps document writes waiting, so a test can keep a writer inside its lock.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface TerraformStateServer {
  /** `http://127.0.0.1:<port>`; states live under any path below it. */
  readonly url: string;
  /** Every request: method, path with query, and the authorization header it carried. */
  readonly requests: Array<{ method: string; path: string; authorization: string | undefined }>;
  /** The stored document of `path` as text, or undefined. */
  document(path: string): string | undefined;
  /** The lock info JSON holding `path`, or undefined. */
  lock(path: string): string | undefined;
  /**
   * Answers the next `count` requests with `status` (default 500) before handling any; with
   * `echoAuthorization`, the answer quotes the request's authorization header, as careless servers do.
   */
  failNext(count: number, status?: number, options?: { echoAuthorization?: boolean }): void;
  /** Every document write (POST) waits until the returned function is called; locks are answered meanwhile. */
  holdStateWrites(): () => void;
  close(): Promise<void>;
}

export interface TerraformStateServerOptions {
  credentials?: { username: string; password: string } | { token: string };
}

interface Slot {
  document?: string;
  lock?: string;
}

function lockId(info: string | undefined): string | undefined {
  if (info === undefined) return undefined;
  try {
    const id = (JSON.parse(info) as { ID?: unknown }).ID;
    return typeof id === 'string' ? id : undefined;
  } catch {
    return undefined;
  }
}

function body(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (text += chunk));
    request.on('end', () => resolve(text));
    request.on('error', reject);
  });
}

export async function startTerraformStateServer(options: TerraformStateServerOptions = {}): Promise<TerraformStateServer> {
  const slots = new Map<string, Slot>();
  const requests: TerraformStateServer['requests'] = [];
  let failures: { count: number; status: number; echo: boolean } = { count: 0, status: 500, echo: false };
  let writesHeld: Promise<void> | undefined;
  const expected =
    options.credentials === undefined
      ? undefined
      : 'token' in options.credentials
        ? `Bearer ${options.credentials.token}`
        : `Basic ${Buffer.from(`${options.credentials.username}:${options.credentials.password}`).toString('base64')}`;

  const slot = (path: string): Slot => {
    let found = slots.get(path);
    if (!found) slots.set(path, (found = {}));
    return found;
  };

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    const method = request.method ?? 'GET';
    requests.push({ method, path: `${url.pathname}${url.search}`, authorization: request.headers.authorization });
    const text = await body(request);
    const reply = (status: number, content = '') => {
      response.writeHead(status, content === '' ? {} : { 'content-type': 'application/json' });
      response.end(content);
    };
    if (failures.count > 0) {
      failures = { ...failures, count: failures.count - 1 };
      return reply(failures.status, JSON.stringify({ error: 'injected failure', ...(failures.echo ? { authorization: request.headers.authorization } : {}) }));
    }
    if (expected !== undefined && request.headers.authorization !== expected) return reply(401, JSON.stringify({ error: 'unauthorized' }));
    const state = slot(url.pathname);
    switch (method) {
      case 'GET':
        return state.document === undefined ? reply(404) : reply(200, state.document);
      case 'LOCK': {
        if (state.lock !== undefined && lockId(state.lock) !== lockId(text)) return reply(423, state.lock);
        state.lock = text;
        return reply(200);
      }
      case 'UNLOCK': {
        if (state.lock !== undefined && lockId(state.lock) !== lockId(text)) return reply(409, state.lock);
        delete state.lock;
        return reply(200);
      }
      case 'POST': {
        if (writesHeld !== undefined) await writesHeld;
        const id = url.searchParams.get('ID') ?? undefined;
        if (state.lock !== undefined && lockId(state.lock) !== id) return reply(423, state.lock);
        if (state.document !== undefined) {
          const before = JSON.parse(state.document) as { lineage: string; serial: number };
          const after = JSON.parse(text) as { lineage: string; serial: number };
          if (before.lineage !== after.lineage) return reply(409, JSON.stringify({ error: `lineage ${after.lineage} differs from the stored ${before.lineage}` }));
          if (after.serial <= before.serial) return reply(409, JSON.stringify({ error: `serial ${after.serial} is not newer than the stored ${before.serial}` }));
        }
        state.document = text;
        return reply(200);
      }
      case 'DELETE': {
        const id = url.searchParams.get('ID') ?? undefined;
        if (state.lock !== undefined && lockId(state.lock) !== id) return reply(423, state.lock);
        delete state.document;
        return reply(200);
      }
      default:
        return reply(405);
    }
  }

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      response.writeHead(500);
      response.end(String(error));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    document: (path) => slots.get(path)?.document,
    lock: (path) => slots.get(path)?.lock,
    failNext(count, status = 500, failOptions = {}) {
      failures = { count, status, echo: failOptions.echoAuthorization === true };
    },
    holdStateWrites() {
      let release!: () => void;
      writesHeld = new Promise<void>((resolve) => (release = resolve));
      return () => {
        writesHeld = undefined;
        release();
      };
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
