/**
 * The contract suites' service: the real `@vigil/server`, in process, on a loopback port 0, and a
 * client pointed at it. Each suite starts its own server so suites never share data or limits.
 */
import { createClient, type ClientOptions, type VigilClient } from '@vigil/client';
import { startServer, type RunningServer, type ServerOptions } from '@vigil/server';

export const LOCAL_KEY = 'vigil-local';

export interface Service {
  server: RunningServer;
  /** A client for the default key; `overrides` change any option (pacing is off unless given). */
  client(overrides?: Partial<ClientOptions>): VigilClient;
  close(): Promise<void>;
}

export async function startService(options: ServerOptions = {}): Promise<Service> {
  const server = await startServer({ port: 0, dataDir: ':memory:', ...options });
  return {
    server,
    client: (overrides = {}) =>
      createClient({
        baseUrl: server.url,
        apiKey: LOCAL_KEY,
        pacing: false,
        // Small delays keep the suites fast; the production defaults are unit-tested.
        retry: { attempts: 4, baseDelayMs: 5, maxDelayMs: 50, maxTotalMs: 10_000 },
        ...overrides,
      }),
    close: () => server.close(),
  };
}

/** Resolves to what `promise` rejects with; fails the test if it resolves. */
export async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to fail, but it succeeded');
}

/** A minimal valid API check body; `overrides` replace top-level fields. */
export function apiCheckBody(name: string, overrides: Record<string, unknown> = {}) {
  return { name, request: { url: `https://example.test/${encodeURIComponent(name)}` }, ...overrides };
}

/** Collects an async iterable into an array. */
export async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const item of items) all.push(item);
  return all;
}
