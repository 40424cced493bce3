/**
 * PostgreSQL packs a check's results of a five-minute block into one row once the check's appends
 * move on to a later block (postgres/packed-results.ts): every read answers as before the packing,
 * a late result and its id still find their place, and pruning cuts a block at the millisecond.
 */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import type { CheckResultDocument, StoragePorts } from '../ports.js';
import { PACK_BLOCK_MS } from './packed-results.js';
import { usePortsWithClient, useTestPostgres } from './test-database.js';

const postgres = useTestPostgres();
const DAY = 86_400_000;
const BLOCK0 = Date.UTC(2026, 10, 1, 6);
const database = usePortsWithClient(postgres);

function result(at: number, options: { failing?: boolean; type?: 'FINAL' | 'ATTEMPT'; location?: string } = {}): CheckResultDocument {
  const failing = options.failing ?? false;
  return {
    id: randomUUID(),
    checkId: 'chk',
    created_at: new Date(at).toISOString(),
    runLocation: options.location ?? 'eu-west-1',
    hasFailures: failing,
    hasErrors: false,
    isDegraded: false,
    resultType: options.type ?? 'FINAL',
    attempts: options.type === 'ATTEMPT' ? 1 : 0,
    responseTime: 40 + (at % 7),
    apiCheckResult: { response: { status: failing ? 503 : 200, body: failing ? 'down' : '{"ok":true}', headers: {}, timingPhases: { wait: 1.5, dns: 0, tcp: 2.25, firstByte: 30, download: 1, total: 41.25 } } },
  } as unknown as CheckResultDocument;
}

async function counts(client: pg.Client): Promise<{ unpacked: number; blocks: number; packed: number }> {
  const { rows } = await client.query<{ unpacked: number; blocks: number; packed: number }>(
    `SELECT (SELECT count(*) FROM check_results)::int AS unpacked, (SELECT count(*) FROM check_results_packed)::int AS blocks,
            (SELECT coalesce(sum(cardinality(offset_ms)), 0) FROM check_results_packed)::int AS packed`,
  );
  return rows[0]!;
}

/** Every read of the port over the check's results of the first block. */
async function reads(ports: StoragePorts) {
  const results = ports.checkResults;
  const all = await results.newestFirst('acct', 'chk', { limit: 100, toMs: BLOCK0 + PACK_BLOCK_MS });
  return {
    all,
    page: await results.newestFirst('acct', 'chk', { limit: 2, offset: 1, fromMs: BLOCK0 + 1, toMs: BLOCK0 + PACK_BLOCK_MS }),
    failing: await results.oldestFirst('acct', 'chk', { page: 1, limit: 10, hasFailures: true, fromMs: BLOCK0, toMs: BLOCK0 + PACK_BLOCK_MS }),
    attempts: await results.oldestFirst('acct', 'chk', { page: 2, limit: 1, resultType: 'ATTEMPT', fromMs: BLOCK0, toMs: BLOCK0 + PACK_BLOCK_MS }),
    elsewhere: await results.oldestFirst('acct', 'chk', { page: 1, limit: 10, location: 'us-east-1', fromMs: BLOCK0, toMs: BLOCK0 + PACK_BLOCK_MS }),
    facts: await results.facts('acct', 'chk', BLOCK0, BLOCK0 + PACK_BLOCK_MS),
    found: await Promise.all(all.map((document) => results.find('acct', 'chk', document.id))),
  };
}

describe('packed results on PostgreSQL', () => {
  it('packs a block once the check appends in a later one, every read answering as before', async () => {
    const { ports, client } = await database();
    await ports.checkResults.appendRun('acct', [result(BLOCK0)]);
    // Two tries at one instant (the FINAL one takes discriminator 1), one failing, one elsewhere.
    await ports.checkResults.appendRun('acct', [result(BLOCK0 + 20_000, { type: 'ATTEMPT', failing: true }), result(BLOCK0 + 20_000)]);
    await ports.checkResults.appendRun('acct', [result(BLOCK0 + 40_000, { type: 'ATTEMPT', failing: true }), result(BLOCK0 + 45_000, { failing: true })]);
    await ports.checkResults.appendRun('acct', [result(BLOCK0 + 60_000, { location: 'us-east-1' })]);
    const before = await reads(ports);
    expect(before.all).toHaveLength(6);
    expect(await counts(client)).toEqual({ unpacked: 6, blocks: 0, packed: 0 });

    const later = await ports.checkResults.appendRun('acct', [result(BLOCK0 + PACK_BLOCK_MS + 5)]);
    expect(await counts(client)).toEqual({ unpacked: 1, blocks: 1, packed: 6 });
    expect(await reads(ports)).toEqual(before);
    expect((await ports.checkResults.newestFirst('acct', 'chk', { limit: 1 }))[0]).toEqual(later[0]);
  });

  it('stores a late result of a packed block, at an instant a packed result has, under the next free id', async () => {
    const { ports, client } = await database();
    const [first] = await ports.checkResults.appendRun('acct', [result(BLOCK0 + 1000)]);
    await ports.checkResults.appendRun('acct', [result(BLOCK0 + PACK_BLOCK_MS)]);
    const [late] = await ports.checkResults.appendRun('acct', [result(BLOCK0 + 1000)]);
    expect(late!.id).not.toBe(first!.id);
    // Packed at the check's next append in a block of its own: two rows for the first block.
    await ports.checkResults.appendRun('acct', [result(BLOCK0 + 2 * PACK_BLOCK_MS)]);
    expect(await counts(client)).toEqual({ unpacked: 1, blocks: 3, packed: 3 });
    const ids = (await ports.checkResults.oldestFirst('acct', 'chk', { page: 1, limit: 10, fromMs: BLOCK0, toMs: BLOCK0 + DAY })).items.map((document) => document.id);
    expect(ids.slice(0, 2).sort()).toEqual([first!.id, late!.id].sort());
    expect(ids).toHaveLength(4);
    expect(await ports.checkResults.find('acct', 'chk', late!.id)).toEqual(late);
  });

  it('prunes packed results to the millisecond: a block the cutoff falls in keeps its results at and after it', async () => {
    const { ports, client } = await database();
    for (const at of [BLOCK0, BLOCK0 + PACK_BLOCK_MS + 1000, BLOCK0 + PACK_BLOCK_MS + 2000, BLOCK0 + PACK_BLOCK_MS + 3000, BLOCK0 + 3 * PACK_BLOCK_MS]) {
      await ports.checkResults.appendRun('acct', [result(at)]);
    }
    expect(await counts(client)).toEqual({ unpacked: 1, blocks: 2, packed: 4 });
    const cutoff = BLOCK0 + PACK_BLOCK_MS + 2000;
    await ports.checkResults.prune(cutoff + DAY, { rawMs: DAY, hourlyMs: 30 * DAY, dailyMs: 400 * DAY });
    expect(await counts(client)).toEqual({ unpacked: 1, blocks: 1, packed: 2 });
    expect((await ports.checkResults.newestFirst('acct', 'chk', { limit: 10 })).map((document) => Date.parse(document.created_at))).toEqual([
      BLOCK0 + 3 * PACK_BLOCK_MS,
      BLOCK0 + PACK_BLOCK_MS + 3000,
      cutoff,
    ]);
  });
});
