import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { AttemptSignal } from './attempt-signal.js';

let server: Server | undefined;

afterEach(async () => {
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

/** A listener that sends headers and then nothing more, or nothing at all. */
async function stalling(sendHeaders: boolean): Promise<string> {
  server = createServer((_req, res) => {
    if (!sendHeaders) return;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write('[');
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
}

describe('AttemptSignal', () => {
  it('calls each abort listener once, with the signal as this, and keeps the first reason', () => {
    const signal = new AttemptSignal();
    const seen: unknown[] = [];
    const removed = () => seen.push('removed');
    signal.addEventListener('abort', function (this: AttemptSignal, event) {
      seen.push([this.reason, event.type]);
    });
    signal.addEventListener('abort', removed);
    signal.removeEventListener('abort', removed);
    signal.onabort = () => seen.push('onabort');
    signal.abort('first');
    signal.abort('second');
    expect(signal).toMatchObject({ aborted: true, reason: 'first' });
    expect(seen).toEqual(['onabort', ['first', 'abort']]);
    expect(() => signal.throwIfAborted()).toThrow('first');
  });

  it('aborts a fetch still waiting for the headers, with its reason as the error', async () => {
    const url = await stalling(false);
    const signal = new AttemptSignal();
    const pending = fetch(url, { signal: signal.asAbortSignal() });
    setTimeout(() => signal.abort(new DOMException('timed out', 'TimeoutError')), 50);
    await expect(pending).rejects.toMatchObject({ name: 'TimeoutError' });
  });

  it('aborts a fetch while its body is read', async () => {
    const url = await stalling(true);
    const signal = new AttemptSignal();
    const response = await fetch(url, { signal: signal.asAbortSignal() });
    setTimeout(() => signal.abort(new DOMException('timed out', 'TimeoutError')), 50);
    await expect(response.text()).rejects.toMatchObject({ name: 'TimeoutError' });
  });

  it('passes an abort that came before the fetch on to it', async () => {
    const url = await stalling(false);
    const signal = new AttemptSignal();
    signal.abort(new DOMException('timed out', 'TimeoutError'));
    await expect(fetch(url, { signal: signal.asAbortSignal() })).rejects.toMatchObject({ name: 'TimeoutError' });
  });
});
