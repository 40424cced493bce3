/**
 * What the storage ports replicas share cost on each engine, with two replicas on one database as
 * `vigil server` replicas would run: slots claimed (the scheduler's tick claims a batch at a time,
 * both replicas the same slots at once, each slot won once), notifications delivered through the
 * outbox (both replicas claiming with leases and settling until the backlog is empty), and alert
 * states moved by compare-and-set (both replicas moving the same checks at once, a lost race read
 * again and retried, each transition queuing one notification in its transaction), and checks kept
 * as documents (both replicas creating at once, each write entering the change feed under its lock on
 * PostgreSQL; then pages of 100 of 10,000 checks read, unfiltered and by tag).
 *
 * PostgreSQL is the embedded server from npm on loopback, durable (fsync on), in this run's temporary
 * own temporary directory; its figure sits beside SQLite's (same run), which is the single-process default. These
 * are the measured costs behind the choice of plain `INSERT … ON CONFLICT` claims and
 * `FOR UPDATE SKIP LOCKED` outbox claims over a job-queue library.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Store } from '../../../packages/server/src/store/index.js';
import type { SlotClaim, StoragePorts } from '../../../packages/server/src/store/ports.js';
import { startEmbeddedPostgres } from '../../../packages/server/src/store/postgres/embedded.js';
import { openPostgresPorts } from '../../../packages/server/src/store/postgres/index.js';
import { sqlitePorts } from '../../../packages/server/src/store/sqlite/index.js';
import { repeat, timeMs, type BenchContext, type BenchFigure, type BenchSuite } from '../harness.js';

const SLOT_BATCH = 100;
const CLAIMED_MS = Date.UTC(2026, 10, 1);

function slots(count: number): SlotClaim[] {
  return Array.from({ length: count }, (_, index) => {
    const checkId = `check-${index % 1000}`;
    const dueMs = CLAIMED_MS + Math.floor(index / 1000) * 60_000;
    return { accountId: 'acc', key: `${checkId}@${dueMs}@eu-west-1`, checkId, dueMs, location: 'eu-west-1' };
  });
}

/** Claims per second: both replicas claim every slot, batch by batch, at once. */
async function claimRate(replicas: readonly StoragePorts[], count: number): Promise<number> {
  const all = slots(count);
  let won = 0;
  const elapsed = await timeMs(async () => {
    for (let start = 0; start < all.length; start += SLOT_BATCH) {
      const batch = all.slice(start, start + SLOT_BATCH);
      const claimed = await Promise.all(replicas.map((replica) => replica.slotClaims.claim(batch, CLAIMED_MS)));
      won += claimed.reduce((sum, list) => sum + list.length, 0);
    }
  });
  if (won !== count) throw new Error(`store-ports: ${won} of ${count} slots were won, not each exactly once`);
  return count / (elapsed / 1000);
}

/** Notifications per second: enqueued, then drained by both replicas claiming 10 at a time. */
async function outboxRate(replicas: readonly StoragePorts[], count: number): Promise<number> {
  for (let index = 0; index < count; index += 1) {
    await replicas[0]!.outbox.enqueue({ id: `n-${index}`, accountId: 'acc', checkId: `check-${index % 50}`, alertChannelId: 1, channelType: 'WEBHOOK', alertType: 'ALERT_FAILURE', doc: '{"context":{}}' }, CLAIMED_MS);
  }
  let settled = 0;
  const elapsed = await timeMs(() =>
    Promise.all(
      replicas.map(async (replica, which) => {
        for (;;) {
          const claimed = await replica.outbox.claimDue(`replica-${which}`, CLAIMED_MS + 1, 60_000, 10);
          if (claimed.length === 0) return;
          for (const notification of claimed) {
            if (await replica.outbox.settle(`replica-${which}`, notification.id, { delivery: 'SENT', attempts: 1, error: null, result: '200' }, CLAIMED_MS + 2)) settled += 1;
          }
        }
      }),
    ),
  );
  if (settled !== count) throw new Error(`store-ports: ${settled} of ${count} notifications were settled, not each exactly once`);
  return count / (elapsed / 1000);
}

const ALERT_CHECKS_AT_ONCE = 10;

/**
 * Transitions per second: both replicas move each check `rounds` times (read, compute, compare-and-set
 * with one notification; read again after a lost race), ALERT_CHECKS_AT_ONCE checks at a time.
 */
async function alertTransitionRate(replicas: readonly StoragePorts[], checks: number, rounds: number): Promise<{ rate: number; lostPerWon: number }> {
  let won = 0;
  let lost = 0;
  const move = async (replica: StoragePorts, which: number, checkId: string) => {
    for (let round = 0; round < rounds; round += 1) {
      for (let attempt = 0; ; attempt += 1) {
        const current = await replica.alertStates.read('acc', checkId);
        const next = JSON.stringify({ status: round % 2 === 0 ? 'failing' : 'passing', moves: (current?.version ?? 0) + 1 });
        const notification = { id: `${checkId}-${which}-${round}-${attempt}`, accountId: 'acc', checkId, alertChannelId: 1, channelType: 'WEBHOOK', alertType: 'ALERT_FAILURE', doc: '{"context":{}}' };
        if (await replica.alertStates.transition('acc', checkId, current?.version ?? 0, next, [notification], CLAIMED_MS)) break;
        lost += 1;
      }
      won += 1;
    }
  };
  const elapsed = await timeMs(async () => {
    for (let start = 0; start < checks; start += ALERT_CHECKS_AT_ONCE) {
      const ids = Array.from({ length: Math.min(ALERT_CHECKS_AT_ONCE, checks - start) }, (_, index) => `check-${start + index}`);
      await Promise.all(ids.flatMap((checkId) => replicas.map((replica, which) => move(replica, which, checkId))));
    }
  });
  const expected = checks * rounds * replicas.length;
  const queued = await replicas[0]!.outbox.claimDue('bench', CLAIMED_MS, 60_000, expected + 1);
  const last = await replicas[1]!.alertStates.read('acc', 'check-0');
  if (won !== expected || queued.length !== expected || last?.version !== rounds * replicas.length) {
    throw new Error(`store-ports: ${won} transitions won, ${queued.length} notifications queued, version ${last?.version}; expected ${expected}, one notification each`);
  }
  return { rate: expected / (elapsed / 1000), lostPerWon: lost / expected };
}

const DOCUMENT_WRITERS_PER_REPLICA = 10;
const PAGE_READS = 200;

/** Checks created per second: each replica runs DOCUMENT_WRITERS_PER_REPLICA creates at a time. */
async function documentInsertRate(replicas: readonly StoragePorts[], count: number): Promise<number> {
  let next = 0;
  const elapsed = await timeMs(() =>
    Promise.all(
      replicas.flatMap((replica) =>
        Array.from({ length: DOCUMENT_WRITERS_PER_REPLICA }, async () => {
          while (next < count) {
            const index = next++;
            await replica.documents.insert('checks', 'acc', (id) => ({
              id,
              name: `Check ${index}`,
              checkType: 'API',
              activated: true,
              frequency: 1,
              tags: index % 10 === 0 ? ['team-a', 'prod'] : ['prod'],
              request: { method: 'GET', url: `https://service-${index}.example/health`, assertions: [{ source: 'STATUS_CODE', comparison: 'EQUALS', target: '200' }] },
            }));
          }
        }),
      ),
    ),
  );
  const { total } = await replicas[0]!.documents.page('checks', 'acc', { limit: 1, page: 1 });
  if (total !== count) throw new Error(`store-ports: ${total} checks stored, not ${count}`);
  return count / (elapsed / 1000);
}

/** p99 of PAGE_READS reads of a page of 100 (pages spread over the list), unfiltered or by tag. */
async function documentPageP99(replicas: readonly StoragePorts[], count: number, tags?: string[]): Promise<number> {
  const pages = Math.max(1, Math.ceil((tags ? count / 10 : count) / 100));
  const times: number[] = [];
  for (let read = 0; read < PAGE_READS; read++) {
    const replica = replicas[read % replicas.length]!;
    const page = 1 + ((read * 7) % pages);
    const started = performance.now();
    const { items } = await replica.documents.page('checks', 'acc', { limit: 100, page, ...(tags ? { tags } : {}) });
    times.push(performance.now() - started);
    if (items.length === 0) throw new Error(`store-ports: page ${page} of the checks was empty`);
  }
  times.sort((a, b) => a - b);
  return times[Math.ceil(0.99 * times.length) - 1]!;
}

export const suite: BenchSuite = {
  name: 'store-ports',
  async run(context: BenchContext): Promise<BenchFigure[]> {
    const slotCount = context.full ? 100_000 : 10_000;
    const notificationCount = context.full ? 10_000 : 2_000;
    const alertChecks = context.full ? 1_000 : 100;
    const alertRounds = 5;
    // A directory of its own: as root, PostgreSQL's own user must be able to pass through it.
    const pgDir = await mkdtemp(path.join(os.tmpdir(), 'vigil-bench-pg-'));
    const postgres = await startEmbeddedPostgres({ dir: pgDir, port: 0, durable: true });
    let databases = 0;
    const onSqlite = async <T>(measure: (replicas: StoragePorts[]) => Promise<T>): Promise<T> => {
      const file = path.join(context.tmpDir, `sqlite-${++databases}.db`);
      const replicas = [sqlitePorts(new Store({ file })), sqlitePorts(new Store({ file }))];
      try {
        return await measure(replicas);
      } finally {
        await Promise.all(replicas.map((replica) => replica.close()));
      }
    };
    const onPostgres = async <T>(measure: (replicas: StoragePorts[]) => Promise<T>): Promise<T> => {
      const connectionString = await postgres.createDatabase(`bench_${++databases}`);
      const replicas = [await openPostgresPorts({ connectionString }), await openPostgresPorts({ connectionString })];
      try {
        return await measure(replicas);
      } finally {
        await Promise.all(replicas.map((replica) => replica.close()));
      }
    };
    try {
      const claimsSqlite = await repeat(context.runs, () => onSqlite((replicas) => claimRate(replicas, slotCount)));
      const claimsPostgres = await repeat(context.runs, () => onPostgres((replicas) => claimRate(replicas, slotCount)));
      const outboxSqlite = await repeat(context.runs, () => onSqlite((replicas) => outboxRate(replicas, notificationCount)));
      const outboxPostgres = await repeat(context.runs, () => onPostgres((replicas) => outboxRate(replicas, notificationCount)));
      const lostRaces: number[] = [];
      const transitionsOn = (open: typeof onSqlite) => () =>
        open(async (replicas) => {
          const { rate, lostPerWon } = await alertTransitionRate(replicas, alertChecks, alertRounds);
          lostRaces.push(lostPerWon);
          return rate;
        });
      const alertSqlite = await repeat(context.runs, transitionsOn(onSqlite));
      const lostSqlite = lostRaces.splice(0);
      const alertPostgres = await repeat(context.runs, transitionsOn(onPostgres));
      const lostPostgres = lostRaces.splice(0);
      const lostShown = (list: number[]) => list.map((value) => value.toFixed(2)).join(', ');
      const documentCount = 10_000;
      const pageTimes = { sqlite: { all: [] as number[], tagged: [] as number[] }, postgres: { all: [] as number[], tagged: [] as number[] } };
      const documentsOn = (open: typeof onSqlite, times: { all: number[]; tagged: number[] }) => () =>
        open(async (replicas) => {
          const rate = await documentInsertRate(replicas, documentCount);
          times.all.push(await documentPageP99(replicas, documentCount));
          times.tagged.push(await documentPageP99(replicas, documentCount, ['team-a']));
          return rate;
        });
      const documentsSqlite = await repeat(context.runs, documentsOn(onSqlite, pageTimes.sqlite));
      const documentsPostgres = await repeat(context.runs, documentsOn(onPostgres, pageTimes.postgres));
      const documentNote = `${documentCount.toLocaleString('en-US')} API checks, ${DOCUMENT_WRITERS_PER_REPLICA} creates at a time per replica`;
      return [
        {
          id: 'store-ports.slot-claims',
          label: 'slot claims on PostgreSQL, two replicas claiming the same slots at once',
          unit: 'slots/s',
          better: 'higher',
          runs: claimsPostgres,
          baseline: { label: 'the same on SQLite, two connections to one file', runs: claimsSqlite },
          note: `${slotCount} slots in batches of ${SLOT_BATCH}, each won by exactly one replica; embedded PostgreSQL on loopback, fsync on`,
        },
        {
          id: 'store-ports.outbox',
          label: 'notifications claimed with a lease and settled on PostgreSQL, two replicas draining one backlog',
          unit: 'notifications/s',
          better: 'higher',
          runs: outboxPostgres,
          baseline: { label: 'the same on SQLite, two connections to one file', runs: outboxSqlite },
          note: `${notificationCount} notifications, claims of 10, each settled exactly once (no delivery: the storage cost only)`,
        },
        {
          id: 'store-ports.alert-transitions',
          label: 'alert-state transitions (compare-and-set + one queued notification) on PostgreSQL, two replicas moving the same checks at once',
          unit: 'transitions/s',
          better: 'higher',
          runs: alertPostgres,
          baseline: { label: 'the same on SQLite, two connections to one file', runs: alertSqlite },
          note: `${alertChecks} checks, ${ALERT_CHECKS_AT_ONCE} at a time, each moved ${alertRounds} times by each replica; lost races per transition: PostgreSQL ${lostShown(lostPostgres)}, SQLite ${lostShown(lostSqlite)}`,
        },
        {
          id: 'store-ports.document-inserts',
          label: 'checks created through the documents port on PostgreSQL, two replicas at once (each create also enters the change feed)',
          unit: 'checks/s',
          better: 'higher',
          runs: documentsPostgres,
          baseline: { label: 'the same on SQLite, two connections to one file', runs: documentsSqlite },
          note: documentNote,
        },
        {
          id: 'store-ports.document-page-p99',
          label: 'a page of 100 of 10,000 checks through the documents port on PostgreSQL, p99',
          unit: 'ms',
          better: 'lower',
          runs: pageTimes.postgres.all,
          baseline: { label: 'the same on SQLite', runs: pageTimes.sqlite.all },
          note: `${documentNote}; ${PAGE_READS} reads of pages spread over the list, alternating replicas`,
          goal: { text: 'p99 ≤ 50 ms', met: (value) => value <= 50 },
        },
        {
          id: 'store-ports.document-tagged-page-p99',
          label: 'a page of 100 of the 1,000 checks with a tag (of 10,000) through the documents port on PostgreSQL, p99',
          unit: 'ms',
          better: 'lower',
          runs: pageTimes.postgres.tagged,
          baseline: { label: 'the same on SQLite', runs: pageTimes.sqlite.tagged },
          note: `${documentNote}; ${PAGE_READS} reads, alternating replicas`,
          goal: { text: 'p99 ≤ 50 ms', met: (value) => value <= 50 },
        },
      ];
    } finally {
      await postgres.stop();
      await rm(pgDir, { recursive: true, force: true });
    }
  },
};
