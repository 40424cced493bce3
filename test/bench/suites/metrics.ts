/**
 * `GET /metrics` at 10,000 checks: the server time of one scrape by the operator's token (every
 * account's checks; the per-check gauges are read from the stored statuses on every scrape, so the
 * scrape is fresh), in process, with each check's last run stored and a run counted for half of them.
 */
import path from 'node:path';
import { createApp } from '../../../packages/server/src/app.js';
import { statusesOf } from '../../../packages/server/src/readside/statuses.js';
import { median, repeat, timeMs, type BenchContext, type BenchFigure, type BenchSuite } from '../harness.js';

const CHECKS = 10_000;
const SCRAPES_PER_RUN = 20;
const TOKEN = 'bench-metrics-token';

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

export const suite: BenchSuite = {
  name: 'metrics',
  async run(context: BenchContext): Promise<BenchFigure[]> {
    const p99s: number[] = [];
    let bytes = 0;
    const medians = await repeat(context.runs, async (run) => {
      const service = createApp({ accounts: [{ apiKey: 'k', accountId: 'acme' }], metricsToken: TOKEN, dataDir: path.join(context.tmpDir, `run-${run}`) });
      try {
        const statuses = statusesOf(service.store);
        const now = Date.now();
        service.store.transaction(() => {
          for (let index = 0; index < CHECKS; index += 1) {
            const check = service.store.checks.insert('acme', (id) => ({ id, name: `Check ${index}`, checkType: 'API', activated: true, tags: [`team-${index % 20}`, 'api'] }));
            statuses.record('acme', {
              name: String(check.name),
              checkId: String(check.id),
              hasFailures: index % 50 === 0,
              hasErrors: false,
              isDegraded: false,
              responseTime: 40 + (index % 100),
              runLocation: 'eu-west-1',
              checkRunId: Math.floor(now / 1000),
              stoppedAt: new Date(now).toISOString(),
            });
          }
        });
        const scrape = async () => {
          const response = await service.app.request('/metrics', { headers: { authorization: `Bearer ${TOKEN}` } });
          const text = await response.text();
          if (response.status !== 200) throw new Error(`metrics: scrape answered ${response.status}: ${text.slice(0, 200)}`);
          bytes = Buffer.byteLength(text);
        };
        await scrape(); // warm-up: prepared statements, process metrics' first collection
        const times: number[] = [];
        for (let index = 0; index < SCRAPES_PER_RUN; index += 1) times.push(await timeMs(scrape));
        p99s.push(percentile(times, 99));
        return median(times);
      } finally {
        service.close();
      }
    });
    context.log(`metrics: ${CHECKS} checks, ${SCRAPES_PER_RUN} scrapes per run, ${Math.round(bytes / 1024)} KiB per scrape`);
    const note = `${CHECKS} checks of one account with their last runs stored, operator's token, in process, ${SCRAPES_PER_RUN} scrapes per run after one warm-up; ${Math.round(bytes / 1024)} KiB each`;
    return [
      { id: 'metrics.scrape-median', label: 'GET /metrics server time, median scrape', unit: 'ms', better: 'lower', runs: medians, note },
      { id: 'metrics.scrape-p99', issue: 27, label: 'GET /metrics server time, p99 scrape', unit: 'ms', better: 'lower', runs: p99s, note, goal: { text: '≤ 50 ms at 10,000 checks', met: (ours) => ours <= 50 } },
    ];
  },
};
