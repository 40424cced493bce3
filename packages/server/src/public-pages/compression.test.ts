import { Hono } from 'hono';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { acceptsGzip, gzipText } from './compression.js';

describe('acceptsGzip', () => {
  it('reads gzip, x-gzip and * with their q values', () => {
    expect(acceptsGzip(undefined)).toBe(false);
    expect(acceptsGzip('')).toBe(false);
    expect(acceptsGzip('gzip')).toBe(true);
    expect(acceptsGzip('deflate, GZIP;q=0.5')).toBe(true);
    expect(acceptsGzip('x-gzip')).toBe(true);
    expect(acceptsGzip('*')).toBe(true);
    expect(acceptsGzip('gzip;q=0')).toBe(false);
    expect(acceptsGzip('br, deflate')).toBe(false);
    expect(acceptsGzip('identity')).toBe(false);
  });
});

describe('gzipText', () => {
  const big = 'status '.repeat(1000);
  const app = new Hono();
  app.use('*', gzipText());
  app.get('/html', (c) => c.html(big, 200, { 'x-kept': 'yes' }));
  app.get('/small', (c) => c.html('<p>hi</p>'));
  app.get('/png', (c) => c.body(new Uint8Array(4096), 200, { 'content-type': 'image/png' }));
  app.get('/cookie', (c) => {
    c.header('set-cookie', 'a=1', { append: true });
    c.header('set-cookie', 'b=2', { append: true });
    return c.json({ text: big });
  });

  it('gzips text for a client that accepts it, keeping status and headers', async () => {
    const response = await app.request('/html', { headers: { 'accept-encoding': 'gzip' } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-encoding')).toBe('gzip');
    expect(response.headers.get('x-kept')).toBe('yes');
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    const body = Buffer.from(await response.arrayBuffer());
    expect(response.headers.get('content-length')).toBe(String(body.byteLength));
    expect(gunzipSync(body).toString()).toBe(big);
  });

  it('keeps every cookie of a compressed response', async () => {
    const response = await app.request('/cookie', { headers: { 'accept-encoding': 'gzip' } });
    expect(response.headers.get('content-encoding')).toBe('gzip');
    expect(response.headers.getSetCookie()).toEqual(['a=1', 'b=2']);
  });

  it('leaves alone clients without gzip, bodies under 1 KB and types that are not text', async () => {
    const plain = await app.request('/html');
    expect(plain.headers.get('content-encoding')).toBeNull();
    expect(plain.headers.get('vary')).toBe('accept-encoding');
    expect(await plain.text()).toBe(big);
    const small = await app.request('/small', { headers: { 'accept-encoding': 'gzip' } });
    expect(small.headers.get('content-encoding')).toBeNull();
    expect(await small.text()).toBe('<p>hi</p>');
    const png = await app.request('/png', { headers: { 'accept-encoding': 'gzip' } });
    expect(png.headers.get('content-encoding')).toBeNull();
    expect((await png.arrayBuffer()).byteLength).toBe(4096);
  });
});
