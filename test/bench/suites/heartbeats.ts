/**
 * What heartbeat monitors cost the service now that their deadlines live in the database (the
 * HeartbeatDeadlines port), on an on-disk database:
 *
 * - A ping as the ping route records it: its monitor looked up by token, the event, and the check's
 *   deadline moved (`recordPing`), in one unit of work, 16 pings in flight at once as 16 requests
 *   would be. Baseline, in the same run and the same process, alternating round by round: the look-up
 *   and the event alone, which is all a ping wrote before the port. CPU per ping, not wall time, so a
 *   busy machine moves both sides alike.
 * - The heartbeat watch at 10,000 monitors: its first refresh (it tells the port about each, one
 *   transaction per heartbeat on SQLite), a refresh with nothing changed, and a tick between
 *   refreshes with no deadline due. No baseline: the in-memory watch these replace is gone.
 * - A tick that fails a missed window of every one of 10,000 monitors (the service was down past their
 *   deadline): claims as leases, results, and the confirms that end the leases. Baseline, in the same
 *   run on a database of its own, alternating: the same tick with the confirms answered without
 *   touching the database, which is what the tick cost before a claim was a lease (the claim's own
 *   look-up of run-out leases stays in both).
 * - Turning pings into results: a tick that finds a backlog of pings over 200 monitors and stores
 *   each one's result and status (no alerting, no refresh, no deadline due in the tick). CPU per ping,
 *   so the figure is the watch's share of a ping's cost beside the route's share above. No baseline
 *   in the same run: compare it with the same suite on the commit before a change to how pings are
 *   read and handed out.
 */
import path from 'node:path';
import { createApp, type SqliteServiceApp } from '../../../packages/server/src/app.js';
import { recordPing } from '../../../packages/server/src/heartbeats/pings.js';
import { HeartbeatWatch } from '../../../packages/server/src/heartbeats/watch.js';
import type { Repositories } from '../../../packages/server/src/repositories.js';
import { HeartbeatEventTable } from '../../../packages/server/src/store/sqlite/heartbeats.js';
import { median, repeat, timeMs, type BenchContext, type BenchFigure, type BenchSuite } from '../harness.js';
import { withReportedMissed } from '../../../packages/server/src/heartbeats/port-overrides.js';

const PINGS_PER_COMMIT = 16;
const PING_MONITORS = 200;

function openService(dataDir: string): SqliteServiceApp {
  return createApp({ dataDir, accounts: [{ apiKey: 'bench', accountId: 'acme' }] });
}

/** Inserts `count` heartbeat monitors created at `createdMs`; returns their ping tokens. */
function heartbeats(service: SqliteServiceApp, count: number, createdMs: number): string[] {
  const tokens = Array.from({ length: count }, (_, index) => `token-${index}`);
  service.store.transaction(() => {
    for (const [index, pingToken] of tokens.entries()) {
      service.store.checks.insert('acme', (id) => ({
        id,
        name: `job ${index}`,
        checkType: 'HEARTBEAT',
        activated: true,
        heartbeat: { period: 1, periodUnit: 'hours', grace: 0, graceUnit: 'seconds', pingToken },
        created_at: new Date(createdMs).toISOString(),
      }));
    }
  });
  return tokens;
}

/** A ping as the ping route records it: its monitor looked up, its event and its deadline's move, in one unit. */
function recordAsRoute(repositories: Repositories, token: string, atMs: number): Promise<unknown> {
  return repositories.ports.transaction((tx) => recordPing(tx, { token, failed: false, source: 'HTTP GET', userAgent: 'bench', atMs }));
}

/** CPU microseconds per ping over `pings` pings, `PINGS_PER_COMMIT` in flight at once as requests would be. */
async function pingCpuUs(service: SqliteServiceApp, tokens: readonly string[], pings: number, withDeadline: boolean): Promise<number> {
  const { store, repositories } = service;
  const events = new HeartbeatEventTable(store.db);
  const started = process.cpuUsage();
  for (let done = 0; done < pings; done += PINGS_PER_COMMIT) {
    const waits: Array<Promise<unknown>> = [];
    for (let index = done; index < done + PINGS_PER_COMMIT; index += 1) {
      const token = tokens[index % tokens.length]!;
      const atMs = Date.now();
      if (withDeadline) {
        waits.push(recordAsRoute(repositories, token, atMs));
        continue;
      }
      // What a ping wrote before the port: the event only (the SQLite engine's own insert), in the group commit of its turn.
      waits.push(
        repositories.ports.heartbeatPings.monitorOfToken(token).then((target) => {
          const event = { id: crypto.randomUUID(), state: 'RECEIVED' as const, timestamp: new Date(atMs).toISOString(), source: 'HTTP GET', userAgent: 'bench' };
          return store.writeBatched(() => events.add(target!.accountId, event.id, String(target!.check.id), atMs, JSON.stringify(event))).committed;
        }),
      );
    }
    await Promise.all(waits);
  }
  const used = process.cpuUsage(started);
  return (used.user + used.system) / pings;
}

/** CPU microseconds per ping of the tick that turns a backlog of `pings` pings into results. */
async function processPingsCpuUs(service: SqliteServiceApp, watch: HeartbeatWatch, tokens: readonly string[], pings: number): Promise<number> {
  const { repositories } = service;
  for (let done = 0; done < pings; done += PINGS_PER_COMMIT) {
    const waits: Array<Promise<unknown>> = [];
    for (let index = done; index < Math.min(done + PINGS_PER_COMMIT, pings); index += 1) waits.push(recordAsRoute(repositories, tokens[index % tokens.length]!, Date.now()));
    await Promise.all(waits);
  }
  const started = process.cpuUsage();
  const stored = await watch.tick(Date.now());
  const used = process.cpuUsage(started);
  if (stored !== pings) throw new Error(`the tick stored ${stored} results, not ${pings}`);
  return (used.user + used.system) / pings;
}

/** The port with confirms that write nothing: the watch as it was before a claim was a lease. */
function withoutConfirms(repositories: Repositories): Repositories {
  return withReportedMissed(repositories, async (windows) => windows.map(() => true));
}

/** Wall time of the tick that fails one missed window of each of `monitors` heartbeats, on a fresh database. */
async function failAllMs(dataDir: string, monitors: number, confirm: boolean): Promise<number> {
  const service = openService(dataDir);
  try {
    const createdMs = Date.now();
    heartbeats(service, monitors, createdMs);
    const repositories = confirm ? service.repositories : withoutConfirms(service.repositories);
    // No refresh in the measured tick: it would re-read every monitor, which is not what is measured.
    const watch = new HeartbeatWatch({ repositories, refreshMs: 86_400_000 });
    await watch.tick(createdMs + 1_000);
    let failed = 0;
    const ms = await timeMs(async () => {
      failed = await watch.tick(createdMs + 3_600_000);
    });
    if (failed !== monitors) throw new Error(`the tick failed ${failed} windows, not ${monitors}`);
    return ms;
  } finally {
    service.close();
  }
}

export const suite: BenchSuite = {
  name: 'heartbeats',
  async run(context: BenchContext): Promise<BenchFigure[]> {
    const pings = context.full ? 32_000 : 6_400;
    const monitors = context.full ? 20_000 : 10_000;

    const pingService = openService(path.join(context.tmpDir, 'pings'));
    const withPort: number[] = [];
    const eventOnly: number[] = [];
    try {
      const tokens = heartbeats(pingService, PING_MONITORS, Date.now());
      // Deadlines in the database for every monitor, as the running watch keeps them.
      await new HeartbeatWatch({ repositories: pingService.repositories }).tick(Date.now());
      await pingCpuUs(pingService, tokens, pings / 4, true);
      await pingCpuUs(pingService, tokens, pings / 4, false);
      for (let run = 0; run < context.runs; run += 1) {
        eventOnly.push(await pingCpuUs(pingService, tokens, pings, false));
        withPort.push(await pingCpuUs(pingService, tokens, pings, true));
      }
    } finally {
      pingService.close();
    }

    const processed: number[] = [];
    const processService = openService(path.join(context.tmpDir, 'processed'));
    try {
      const tokens = heartbeats(processService, PING_MONITORS, Date.now());
      // Refreshed once, here, so the measured ticks neither re-read the monitors nor find a deadline due.
      const watch = new HeartbeatWatch({ repositories: processService.repositories, refreshMs: 86_400_000 });
      await watch.tick(Date.now());
      await processPingsCpuUs(processService, watch, tokens, pings / 4);
      for (let run = 0; run < context.runs; run += 1) processed.push(await processPingsCpuUs(processService, watch, tokens, pings));
    } finally {
      processService.close();
    }

    const first: number[] = [];
    const unchanged: number[] = [];
    const between = await repeat(context.runs, async (run) => {
      const service = openService(path.join(context.tmpDir, `watch-${run}`));
      try {
        const createdMs = Date.now();
        heartbeats(service, monitors, createdMs);
        const watch = new HeartbeatWatch({ repositories: service.repositories });
        first.push(await timeMs(() => watch.tick(createdMs + 1_000)));
        unchanged.push(await timeMs(() => watch.tick(createdMs + 7_000)));
        const ticks: number[] = [];
        for (let tick = 1; tick <= 20; tick += 1) ticks.push(await timeMs(() => watch.tick(createdMs + 7_000 + tick * 200)));
        return median(ticks);
      } finally {
        service.close();
      }
    });
    const confirmed: number[] = [];
    const unconfirmed: number[] = [];
    for (let run = 0; run < context.runs; run += 1) {
      // Alternating which goes first, so neither always runs on the warmer process.
      const order = run % 2 === 0 ? [true, false] : [false, true];
      for (const confirm of order) {
        const ms = await failAllMs(path.join(context.tmpDir, `fail-${run}-${confirm}`), monitors, confirm);
        (confirm ? confirmed : unconfirmed).push(ms);
      }
    }
    context.log(`heartbeats: ${pings} pings per round over ${PING_MONITORS} monitors; watch at ${monitors} monitors`);
    return [
      {
        id: 'heartbeats.ping-cpu',
        label: 'CPU per ping recorded: the event and the deadline moved through the port',
        unit: 'µs',
        better: 'lower',
        runs: withPort,
        baseline: { label: 'the event alone, as before the port; same process, alternating', runs: eventOnly },
        note: `${pings} pings per run over ${PING_MONITORS} monitors, ${PINGS_PER_COMMIT} in flight at once, on-disk database, in-process (no HTTP)`,
      },
      {
        id: 'heartbeats.ping-processed-cpu',
        label: 'CPU per ping turned into a result by the watch: read, result and status stored',
        unit: 'µs',
        better: 'lower',
        runs: processed,
        note: `a tick over a backlog of ${pings} pings over ${PING_MONITORS} monitors, 500 per batch; no alerting, no refresh, no deadline due; on-disk database`,
      },
      {
        id: 'heartbeats.first-refresh',
        label: `the watch's first tick at ${monitors.toLocaleString('en-US')} heartbeat monitors (every one told to the port)`,
        unit: 'ms',
        better: 'lower',
        runs: first,
        note: 'wall time; the event loop gets a turn every 500 heartbeats',
      },
      {
        id: 'heartbeats.refresh-unchanged',
        label: `a refresh with nothing changed at ${monitors.toLocaleString('en-US')} heartbeat monitors`,
        unit: 'ms',
        better: 'lower',
        runs: unchanged,
        note: 'every monitor read, its last ping looked up, nothing told to the port; one claim that finds nothing',
      },
      {
        id: 'heartbeats.tick-between-refreshes',
        label: `a tick between refreshes with no deadline due at ${monitors.toLocaleString('en-US')} heartbeat monitors`,
        unit: 'ms',
        better: 'lower',
        runs: between,
        note: 'median of 20 ticks 200 ms apart per run: no query to the port',
      },
      {
        id: 'heartbeats.fail-all-missed',
        label: `a tick failing a missed window of each of ${monitors.toLocaleString('en-US')} heartbeat monitors: claimed as leases, results stored, leases confirmed`,
        unit: 'ms',
        better: 'lower',
        runs: confirmed,
        baseline: { label: 'the same tick with confirms that write nothing (as before claims were leases); own database, alternating', runs: unconfirmed },
        note: 'wall time; 500 windows per claim, one results transaction and one confirm per claim; no alerting, no refresh in the tick',
      },
    ];
  },
};
