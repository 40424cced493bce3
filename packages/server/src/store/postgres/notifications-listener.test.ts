/** The LISTEN connection's own behaviour where no database answers; with one, see agents/replicas.test.ts. */
import { describe, expect, it } from 'vitest';
import { PostgresNotificationListener } from './notifications-listener.js';

// Port 1 on the loopback: nothing listens there, so every connection attempt is refused at once.
const NOBODY = 'postgres://vigil:s3cret-Pa55@127.0.0.1:1/vigil';

/** Looks again every 10 ms until `found` holds; only a broken build waits out the limit. */
async function until(what: string, found: () => boolean): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!found()) {
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

function listenerTo(connectionString: string, warnings: string[]): PostgresNotificationListener {
  return new PostgresNotificationListener({ connectionString, target: '127.0.0.1:1/vigil', channel: 'vigil_test', warn: (message) => warnings.push(message), connectionTimeoutMs: 5000 });
}

describe('PostgreSQL notification listener', () => {
  it('warns once that it cannot listen, without the password, and tells its subscriber nothing until it listens', async () => {
    const warnings: string[] = [];
    const listener = listenerTo(NOBODY, warnings);
    const told: unknown[] = [];
    listener.subscribe((event) => told.push(event));
    await until('the warning that listening failed', () => warnings.length > 0);
    expect(warnings).toEqual([
      "the PostgreSQL connection listening for notifications on 127.0.0.1:1/vigil failed (connect ECONNREFUSED 127.0.0.1:1); reconnecting, and agents' runs reach them at the next sweep meanwhile",
    ]);
    await listener.close();
    expect(told).toEqual([]);
  });

  it('refuses a channel it could not write into LISTEN as it is', () => {
    expect(() => new PostgresNotificationListener({ connectionString: NOBODY, target: '127.0.0.1:1/vigil', channel: 'agent-runs; NOTIFY x', warn: () => {}, connectionTimeoutMs: 5000 })).toThrow(
      'a notification channel is lower-case letters, digits and underscores, not "agent-runs; NOTIFY x"',
    );
  });
});
