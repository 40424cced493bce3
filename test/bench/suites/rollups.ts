/**
 * The cost of recording a result now that each FINAL one also updates its hourly and daily rollup
 * (one UPSERT each, in the result's transaction): results recorded per second through the SQLite
 * check-results port (`appendKept`, each under its own id), bounded first and their errors folded
 * into the error groups, as the read side's store recorded them before the ports, into an on-disk
 * database, 100 per unit of work as a busy scheduler's group commit batches them, for one check in
 * two locations over a day.
 *
 * No baseline: the rollups are part of recording and cannot be switched off; compare this figure
 * across commits.
 */
import path from 'node:path';
import { errorMessagesOf } from '../../../packages/server/src/readside/error-groups.js';
import { boundResult } from '../../../packages/server/src/readside/result-bounds.js';
import { Store } from '../../../packages/server/src/store/index.js';
import { sqlitePorts } from '../../../packages/server/src/store/sqlite/index.js';
import { repeat, timeMs, type BenchContext, type BenchFigure, type BenchSuite } from '../harness.js';
import { runnerLikeResult } from './analytics.js';

const PER_TRANSACTION = 100;
const EVERY_MS = 10_000;

export const suite: BenchSuite = {
  name: 'rollups',
  async run(context: BenchContext): Promise<BenchFigure[]> {
    const count = context.full ? 50_000 : 8_640;
    const rates = await repeat(context.runs, async (run) => {
      const store = new Store(path.join(context.tmpDir, `run-${run}`));
      try {
        const ports = sqlitePorts(store);
        const end = Date.now();
        const batch = Array.from({ length: count }, (_, index) => runnerLikeResult('check-1', end - index * EVERY_MS, index % 100 === 7));
        const elapsed = await timeMs(async () => {
          for (let start = 0; start < batch.length; start += PER_TRANSACTION) {
            await ports.transaction(async (tx) => {
              for (const result of batch.slice(start, start + PER_TRANSACTION).map(boundResult)) {
                if (!(await tx.checkResults.appendKept('local', result))) continue;
                const messages = errorMessagesOf(result as Parameters<typeof errorMessagesOf>[0]);
                const at = Date.parse(result.created_at);
                if (messages.length > 0) await tx.errorGroups.fold('local', messages.map((message) => ({ checkId: result.checkId, message, at })));
              }
            });
          }
        });
        return count / (elapsed / 1000);
      } finally {
        store.close();
      }
    });
    context.log(`rollups: ${count} results recorded per run`);
    return [
      {
        id: 'rollups.record-rate',
        label: 'recording FINAL results with their hourly and daily rollups',
        unit: 'results/s',
        better: 'higher',
        runs: rates,
        note: `${count} runner-shaped API results of one check (every 10 s, two locations, 1 % failing), ${PER_TRANSACTION} per unit of work, on-disk database`,
      },
    ];
  },
};
