/**
 * The heartbeat side on PostgreSQL's ports alone (no SQLite store): the ping route's unit finds the
 * monitor by its token and records the ping, and the watch turns it into a passing result, then fails
 * the window that closes without a ping.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { StoragePorts } from '../store/ports.js';
import { openPostgresPorts } from '../store/postgres/index.js';
import { useTestPostgres } from '../store/postgres/test-database.js';
import { recordPing } from './pings.js';
import { HeartbeatWatch } from './watch.js';

const postgres = useTestPostgres();
const T0 = Date.UTC(2026, 10, 1, 12);
const opened: StoragePorts[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((ports) => ports.close()));
});

describe('heartbeat monitoring on PostgreSQL', () => {
  it('records a ping by its token, turns it into a passing result, and fails the window that closes after it', async () => {
    const ports = await openPostgresPorts({ connectionString: await postgres.freshDatabase() });
    opened.push(ports);
    const check = await ports.documents.insert('checks', 'acme', (id) => ({
      id,
      name: 'nightly',
      checkType: 'HEARTBEAT',
      activated: true,
      heartbeat: { period: 30, periodUnit: 'seconds', grace: 10, graceUnit: 'seconds', pingToken: 'token-nightly' },
      created_at: new Date(T0).toISOString(),
    }));
    const checkId = String(check.id);
    const watch = new HeartbeatWatch({ repositories: { ports, replicaId: 'replica-0' } });
    // The first tick starts monitoring on the database and tells the port about the heartbeat.
    expect(await watch.tick(T0 + 1_000)).toBe(0);

    const pingedMs = T0 + 2_000;
    const recorded = await ports.transaction((tx) => recordPing(tx, { token: 'token-nightly', failed: false, source: 'cron', userAgent: 'curl/8', atMs: pingedMs }));
    expect(recorded).toMatchObject({ event: { state: 'RECEIVED', source: 'cron' }, stored: true, deadlineMoved: true });
    expect(await ports.transaction((tx) => recordPing(tx, { token: 'token-unknown', failed: false, source: 'cron', userAgent: 'curl/8', atMs: pingedMs }))).toBeUndefined();
    expect(await ports.heartbeatPings.monitorOfToken('token-nightly')).toMatchObject({ accountId: 'acme', lastPingMs: pingedMs });

    expect(await watch.tick(T0 + 3_000)).toBe(1);
    expect(await ports.checkStatuses.find('acme', checkId)).toMatchObject({ hasFailures: false });
    // 30 s of period and 10 s of grace after the ping, the window closes without one.
    expect(await watch.tick(pingedMs + 40_000 - 1)).toBe(0);
    expect(await watch.tick(pingedMs + 40_000)).toBe(1);
    expect(await ports.checkStatuses.find('acme', checkId)).toMatchObject({ hasFailures: true });
    expect(await ports.heartbeatDeadlines.reported('acme', checkId)).toEqual({ dueMs: pingedMs + 40_000, owner: 'replica-0', leaseUntilMs: null });
  });
});
