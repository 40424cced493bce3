/**
 * Real loopback targets for the runner's tests: an HTTP server on port 0 with a route table, and the
 * same over HTTPS with the throwaway certificate beside this file. Every server tracks its sockets
 * so `close()` ends hanging and streaming responses at once.
 */
import { readFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo, Socket } from 'node:net';

export type Route = (request: http.IncomingMessage, response: http.ServerResponse, body: string) => void;

export interface Target {
  /** `http://127.0.0.1:PORT` (or https). */
  url: string;
  port: number;
  /** Requests seen, in order. */
  seen: { method: string; url: string; headers: http.IncomingHttpHeaders; body: string }[];
  close(): Promise<void>;
}

const here = new URL('.', import.meta.url);

export function loopbackTls(): { key: Buffer; cert: Buffer } {
  return { key: readFileSync(new URL('loopback-key.pem', here)), cert: readFileSync(new URL('loopback-cert.pem', here)) };
}

export async function startTarget(routes: Record<string, Route>, options: { tls?: boolean; host?: string } = {}): Promise<Target> {
  const seen: Target['seen'] = [];
  const handler = (request: http.IncomingMessage, response: http.ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      seen.push({ method: request.method ?? '', url: request.url ?? '', headers: request.headers, body });
      const path = new URL(request.url ?? '/', 'http://x').pathname;
      const route = routes[path];
      if (route === undefined) {
        response.writeHead(404, { 'content-type': 'text/plain' }).end(`no route ${path}`);
        return;
      }
      route(request, response, body);
    });
  };
  const server = options.tls === true ? https.createServer(loopbackTls(), handler) : http.createServer(handler);
  const sockets = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  // TLS servers report the raw TCP socket on 'connection' too, so the set covers both kinds.
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const port = (server.address() as AddressInfo).port;
  const shownHost = host.includes(':') ? `[${host}]` : host;
  return {
    url: `${options.tls === true ? 'https' : 'http'}://${shownHost}:${port}`,
    port,
    seen,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A port nothing listens on (bound, read, released). */
export async function closedPort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export const json = (status: number, value: unknown, headers: Record<string, string> = {}): Route => (_request, response) => {
  response.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(value));
};

export const text = (status: number, value: string, headers: Record<string, string> = {}): Route => (_request, response) => {
  response.writeHead(status, { 'content-type': 'text/plain', ...headers }).end(value);
};
