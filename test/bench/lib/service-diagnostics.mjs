/**
 * Loaded into a `vigil server` process with `node --import` (startServiceProcess's `diagnostics`):
 * what a request's time goes to inside the service besides its own work, measured in the process.
 *
 * - The event loop's delay (perf_hooks.monitorEventLoopDelay): how late a callback runs behind its
 *   moment, which every await of a request pays again.
 * - Each PostgreSQL pool checkout's wait, told apart for units of work and single statements (the
 *   guarded pool publishes them on the diagnostics channel below; store/postgres/guarded-pool.ts),
 *   and how many checkouts opened a new connection (none was idle) and the longest such wait.
 *
 * Each SIGUSR2 writes what was measured since the previous one (or since start) to
 * `$VIGIL_BENCH_DIAGNOSTICS_DIR/<pid>-<n>.json` (n counts from 0) and starts again: a suite signals at
 * its window's start and end, and reads file 1. Plain JavaScript, as `--import` loads it before tsx.
 */
import diagnostics from 'node:diagnostics_channel';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { createHistogram, monitorEventLoopDelay } from 'node:perf_hooks';

/** Kept equal to POOL_CHECKOUT_CHANNEL in packages/server/src/store/postgres/guarded-pool.ts. */
const POOL_CHECKOUT_CHANNEL = 'vigil:postgres:pool-checkout';

const dir = process.env.VIGIL_BENCH_DIAGNOSTICS_DIR;
if (!dir) throw new Error('service-diagnostics.mjs needs VIGIL_BENCH_DIAGNOSTICS_DIR');

const loop = monitorEventLoopDelay({ resolution: 5 });
loop.enable();
// Microseconds: a histogram records integers.
let unitWaits = createHistogram();
let statementWaits = createHistogram();
let openingWaits = createHistogram();
diagnostics.subscribe(POOL_CHECKOUT_CHANNEL, (message) => {
  const { waitedMs, unit, opened } = /** @type {{ waitedMs: number; unit: boolean; opened: boolean }} */ (message);
  const micros = Math.max(1, Math.round(waitedMs * 1000));
  (unit ? unitWaits : statementWaits).record(micros);
  if (opened) openingWaits.record(micros);
});

/** A histogram's figures in ms; `scale` from its unit to ms. */
function figures(histogram, scale) {
  const count = histogram.count;
  const at = (percentile) => (count === 0 ? 0 : histogram.percentile(percentile) * scale);
  return { count, p50: at(50), p99: at(99), max: count === 0 ? 0 : histogram.max * scale };
}

let written = 0;
process.on('SIGUSR2', () => {
  const snapshot = {
    eventLoopDelayMs: figures(loop, 1e-6),
    unitWaitMs: figures(unitWaits, 1e-3),
    statementWaitMs: figures(statementWaits, 1e-3),
    openingWaitMs: figures(openingWaits, 1e-3),
  };
  loop.reset();
  unitWaits = createHistogram();
  statementWaits = createHistogram();
  openingWaits = createHistogram();
  writeFileSync(path.join(dir, `${process.pid}-${written}.json`), JSON.stringify(snapshot));
  written += 1;
});
