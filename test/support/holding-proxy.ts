/**
 * A loopback proxy that forwards every request to `target` as it came (any method, LOCK included)
 * and answers with what the target answered, except that while held, requests `holds` picks wait
 * before they are forwarded. Tests use it to keep a process inside a step of its work (a state
 * write on `vigil server`) without changing the server.
 */
import { createServer, request as forward, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface HoldingProxy {
  /** `http://127.0.0.1:<port>`. */
  readonly url: string;
  /** Holds the requests `holds` picks until the returned function is called. */
  hold(): () => void;
  /** How many requests wait now. */
  waiting(): number;
  close(): Promise<void>;
}

export async function startHoldingProxy(target: string, holds: (request: IncomingMessage, url: URL) => boolean): Promise<HoldingProxy> {
  const targetUrl = new URL(target);
  let held: Promise<void> | undefined;
  let waiting = 0;
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', targetUrl);
    const send = () => {
      const outgoing = forward(url, { method: request.method, headers: { ...request.headers, host: targetUrl.host } }, (answer) => {
        response.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(response);
      });
      outgoing.on('error', (error) => {
        response.writeHead(502, { 'content-type': 'text/plain' });
        response.end(String(error));
      });
      request.pipe(outgoing);
    };
    const waitFor = held !== undefined && holds(request, url) ? held : undefined;
    if (waitFor === undefined) send();
    else {
      // The body stays buffered until send() pipes it on.
      request.pause();
      waiting += 1;
      void waitFor.then(() => {
        waiting -= 1;
        send();
      });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    hold() {
      let release!: () => void;
      held = new Promise<void>((resolve) => (release = resolve));
      return () => {
        held = undefined;
        release();
      };
    },
    waiting: () => waiting,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
