/**
 * The engines the contract suite runs against, each on a fresh database per test: SQLite in a
 * temporary directory, and PostgreSQL on this test file's throwaway cluster. A "replica" is one more
 * instance of the ports on the same database (another `Store` on the same SQLite file, another pool on
 * the same PostgreSQL database), which is how replicas of `vigil server` will share state.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { Store } from '../index.js';
import type { StoragePorts } from '../ports.js';
import { openPostgresPorts } from '../postgres/index.js';
import { useTestPostgres } from '../postgres/test-database.js';
import { sqlitePorts } from '../sqlite/index.js';

export interface SharedDatabase {
  /** Opens one more instance of the ports on this database. */
  replica(): Promise<StoragePorts>;
  /** PostgreSQL's URL of the database, as its superuser (for tests that act as its administrator). */
  readonly connectionString?: string;
}

export interface EngineUnderTest {
  readonly name: string;
  freshDatabase(): Promise<SharedDatabase>;
}

/** Call at the top of a contract test file: registers the hooks that start and clean up both engines. */
export function enginesUnderTest(): EngineUnderTest[] {
  const postgres = useTestPostgres();
  let tempDir = '';
  let databases = 0;
  const open: StoragePorts[] = [];
  beforeAll(async () => {
    tempDir = await mkdtemp(path.join(os.tmpdir(), 'vigil-contract-'));
  });
  afterEach(async () => {
    await Promise.all(open.splice(0).map((ports) => ports.close()));
  });
  afterAll(async () => {
    if (tempDir) await rm(tempDir, { recursive: true, force: true });
  });
  const opened = (ports: StoragePorts): StoragePorts => {
    open.push(ports);
    return ports;
  };
  return [
    {
      name: 'sqlite',
      async freshDatabase() {
        databases += 1;
        const file = path.join(tempDir, `contract-${databases}.db`);
        return { replica: async () => opened(sqlitePorts(new Store({ file }))) };
      },
    },
    {
      name: 'postgres',
      async freshDatabase() {
        const connectionString = await postgres.freshDatabase();
        return { connectionString, replica: async () => opened(await openPostgresPorts({ connectionString })) };
      },
    },
  ];
}

/** Two replicas on one fresh database of `engine`. */
export async function twoReplicas(engine: EngineUnderTest): Promise<[StoragePorts, StoragePorts]> {
  const database = await engine.freshDatabase();
  return [await database.replica(), await database.replica()];
}
