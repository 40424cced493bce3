/**
 * Helpers for the server's own tests: a real server on port 0 and a thin `fetch` wrapper. Tests talk
 * plain HTTP on purpose (never through @vigil/client), so a bug shared by client and server cannot
 * hide itself.
 */
import { startServer, type RunningServer, type ServerOptions } from './start.js';

export interface Reply {
  readonly status: number;
  readonly headers: Headers;
  /** Parsed JSON body, or undefined when the body was empty. */
  readonly body: any;
}

export interface CallOptions {
  readonly body?: unknown;
  /** Sent as-is instead of `JSON.stringify(body)`. */
  readonly rawBody?: string;
  /** Merged over the default headers; `null` removes a default one. */
  readonly headers?: Record<string, string | null>;
}

export interface TestApi {
  readonly server: RunningServer;
  call(method: string, path: string, options?: CallOptions): Promise<Reply>;
  get(path: string, options?: CallOptions): Promise<Reply>;
  post(path: string, body: unknown, options?: CallOptions): Promise<Reply>;
  put(path: string, body: unknown, options?: CallOptions): Promise<Reply>;
  delete(path: string, options?: CallOptions): Promise<Reply>;
  close(): Promise<void>;
}

export const TEST_API_KEY = 'test-key';
export const TEST_ACCOUNT = 'acme';
export const OTHER_API_KEY = 'other-key';
export const OTHER_ACCOUNT = 'globex';

/** Two tenants with one key each, unless `options.accounts` says otherwise. */
export async function startTestServer(options: ServerOptions = {}, apiKey = TEST_API_KEY): Promise<TestApi> {
  const server = await startServer({
    accounts: [
      { apiKey: TEST_API_KEY, accountId: TEST_ACCOUNT },
      { apiKey: OTHER_API_KEY, accountId: OTHER_ACCOUNT },
    ],
    checkResponses: true,
    ...options,
  });
  return apiFor(server, apiKey);
}

/** A client view of `server` authenticating with `apiKey`. */
export function apiFor(server: RunningServer, apiKey = TEST_API_KEY): TestApi {
  const call = async (method: string, path: string, options: CallOptions = {}): Promise<Reply> => {
    const headers: Record<string, string> = { authorization: `Bearer ${apiKey}` };
    const payload = options.rawBody ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
    if (payload !== undefined) headers['content-type'] = 'application/json';
    for (const [name, value] of Object.entries(options.headers ?? {})) {
      if (value === null) delete headers[name];
      else headers[name] = value;
    }
    const response = await fetch(`${server.url}${path}`, { method, headers, ...(payload !== undefined ? { body: payload } : {}) });
    const text = await response.text();
    return { status: response.status, headers: response.headers, body: text === '' ? undefined : JSON.parse(text) };
  };
  return {
    server,
    call,
    get: (path, options) => call('GET', path, options),
    post: (path, body, options) => call('POST', path, { ...options, body }),
    put: (path, body, options) => call('PUT', path, { ...options, body }),
    delete: (path, options) => call('DELETE', path, options),
    close: () => server.close(),
  };
}

/** A minimal valid API check body. */
export function apiCheckBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { name: 'Homepage', request: { url: 'https://example.com' }, ...overrides };
}

/** A minimal valid multi-step check body. */
export function multiStepCheckBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { name: 'Checkout flow', script: 'export default async () => {}', ...overrides };
}
