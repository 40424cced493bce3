/**
 * `GET /healthz` over the PostgreSQL ports' health, at the level the service can be built on them
 * today (the route over the ports): 200 while the database answers, 503 with a reason naming it as
 * host:port/database (never the password) once it is stopped, and 200 again once it is back. One
 * cluster of this file's own, stopped and started on its port, as connection-resilience.test.ts does.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppEnv } from '../http/types.js';
import { freePort, startEmbeddedPostgres, type RunningPostgres } from '../store/postgres/embedded.js';
import { openPostgresPorts, type PostgresPorts } from '../store/postgres/index.js';
import { portsDatabaseHealth, registerHealth } from './health.js';

let dir = '';
let port = 0;
let server: RunningPostgres | undefined;
let ports: PostgresPorts | undefined;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'vigil-pg-healthz-'));
  port = await freePort();
});
afterAll(async () => {
  try {
    await ports?.close();
    await server?.stop();
  } finally {
    if (dir) await rm(dir, { recursive: true, force: true });
  }
});

async function probe(app: Hono<AppEnv>): Promise<{ status: number; cacheControl: string | null; body: unknown; text: string }> {
  const response = await app.request('/healthz');
  const text = await response.text();
  return { status: response.status, cacheControl: response.headers.get('cache-control'), body: JSON.parse(text), text };
}

describe('GET /healthz on PostgreSQL', () => {
  it('answers 200 while the database answers, 503 with its reason (no password) while it is stopped, and 200 once it is back', async () => {
    server = await startEmbeddedPostgres({ dir, port, durable: false });
    const url = server.url();
    const password = decodeURIComponent(new URL(url).password);
    expect(password).not.toBe('');
    // No reuse of an answer, so each probe below sees the database as it is at that moment.
    ports = await openPostgresPorts({ connectionString: url, health: { cacheMs: 0 }, warn: () => {} });
    const app = new Hono<AppEnv>();
    registerHealth(app, portsDatabaseHealth(ports));

    expect(await probe(app)).toMatchObject({ status: 200, cacheControl: 'no-store', body: { status: 'UP', database: { status: 'UP', engine: 'postgres' } } });

    const running = server;
    server = undefined;
    await running.stop();
    const down = await probe(app);
    expect(down.status).toBe(503);
    expect(down.cacheControl).toBe('no-store');
    expect(down.body).toEqual({
      status: 'DOWN',
      database: {
        status: 'DOWN',
        engine: 'postgres',
        reason: `PostgreSQL at 127.0.0.1:${port}/postgres is unavailable: connect ECONNREFUSED 127.0.0.1:${port}`,
        since: expect.stringMatching(/^\d{4}-\d\d-\d\dT[\d:.]+Z$/),
      },
    });
    expect(down.text).not.toContain(password);

    server = await startEmbeddedPostgres({ dir, port, durable: false });
    expect(await probe(app)).toMatchObject({ status: 200, body: { status: 'UP', database: { status: 'UP', engine: 'postgres' } } });
  });
});
