/**
 * What keeping `/metrics`' text as gzip members would cost (`npx tsx test/bench/suites/metrics/gzip-members.ts`):
 * the service's scrape at 10,000 checks that ran (in process, the metrics suite's checks and
 * results), then the CPU of compressing it at gzip's fastest level whole, and in members of 256,
 * 16, 4 and 1 checks per family (a scrape would be their concatenation, which any gzip reader,
 * Prometheus' too, reads as one stream), all families and only the ones a result changes (last
 * run, last response time, runs, histogram: what the work between two scrapes would compress
 * again), and the bytes each sends. Medians of 5 (1 for members of one check). It checks that the
 * concatenated members decode to the scrape's text. docs/local-service.md ("Compression") and
 * BENCHMARKS.md quote its figures.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { createApp } from '../../../../packages/server/src/app.js';
import { writeCheckStatus } from '../../../../packages/server/src/store/sqlite/check-statuses-port.js';
import { StatusTable } from '../../../../packages/server/src/store/sqlite/statuses.js';

const CHECKS = 10_000;
const TOKEN = 'gzip-members';
/** The families a stored result changes, by the metric name their lines start with. */
const CHANGED_BY_A_RESULT = new Set(['vigil_check_last_run_timestamp_seconds', 'vigil_check_last_response_time_seconds', 'vigil_check_runs_total', 'vigil_check_response_time_seconds']);

async function scrapeAtSize(): Promise<Buffer> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'vigil-gzip-members-'));
  const service = createApp({ accounts: [{ apiKey: 'k', accountId: 'acme' }], metricsToken: TOKEN, dataDir });
  try {
    const ids: string[] = [];
    service.store.transaction(() => {
      for (let index = 0; index < CHECKS; index++) ids.push(String(service.store.checks.insert('acme', (id) => ({ id, name: `Check ${index}`, checkType: 'API', activated: true, tags: [`team-${index % 20}`, 'api'] })).id));
    });
    const statuses = new StatusTable(service.store.db);
    for (let round = 0; round < 3; round++) {
      service.store.transaction(() => ids.forEach((checkId, index) => {
        const responseTime = 40 + ((index + round) % 100);
        writeCheckStatus(statuses, 'acme', { name: `Check ${index}`, checkId, hasFailures: false, hasErrors: false, isDegraded: false, responseTime, runLocation: 'eu-west-1', checkRunId: round, stoppedAt: new Date(Date.UTC(2030, 0, 1) + round * 60_000).toISOString() });
        service.metrics.runStored({ accountId: 'acme', checkId, location: 'eu-west-1', hasFailures: false, hasErrors: false, isDegraded: false, responseTime });
      }));
    }
    const response = await service.app.request('/metrics', { headers: { authorization: `Bearer ${TOKEN}` } });
    return Buffer.from(await response.arrayBuffer());
  } finally {
    await service.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** The per-check text cut into its checks' lines per family, in order; other lines are left out. */
function checkSegments(body: Buffer): Array<{ family: string; text: Buffer }> {
  const segments: Array<{ family: string; lines: string[] }> = [];
  let key: string | undefined;
  for (const line of body.toString('utf8').split('\n')) {
    const match = /^([a-z_]+?)(?:_bucket|_sum|_count)?\{.*check_id="([^"]+)"/.exec(line);
    if (!match) {
      key = undefined;
      continue;
    }
    const lineKey = `${match[1]} ${match[2]}`;
    if (lineKey !== key) segments.push({ family: match[1]!, lines: [] });
    key = lineKey;
    segments.at(-1)!.lines.push(line);
  }
  return segments.map(({ family, lines }) => ({ family, text: Buffer.from(`${lines.join('\n')}\n`) }));
}

/** The segments joined by `checks` of one family at a time. */
function members(segments: ReadonlyArray<{ family: string; text: Buffer }>, checks: number, onlyChangedByAResult: boolean): Buffer[] {
  const joined: Buffer[] = [];
  for (let at = 0; at < segments.length; ) {
    const family = segments[at]!.family;
    const group: Buffer[] = [];
    while (at < segments.length && segments[at]!.family === family && group.length < checks) group.push(segments[at++]!.text);
    if (!onlyChangedByAResult || CHANGED_BY_A_RESULT.has(family)) joined.push(Buffer.concat(group));
  }
  return joined;
}

/** The median CPU milliseconds of `times` calls of `work`, and what the last returned. */
function cpuOf<T>(times: number, work: () => T): { ms: number; result: T } {
  const spent: number[] = [];
  let result!: T;
  for (let time = 0; time < times; time++) {
    const before = process.cpuUsage();
    result = work();
    const used = process.cpuUsage(before);
    spent.push((used.user + used.system) / 1000);
  }
  return { ms: spent.sort((a, b) => a - b)[times >> 1]!, result };
}

const body = await scrapeAtSize();
const segments = checkSegments(body);
const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(2)} MiB`;
console.log(`scrape ${mib(body.length)}, ${segments.length} check-family segments; load ${readFileSync('/proc/loadavg', 'utf8').split(' ')[0]}`);
const whole = cpuOf(5, () => gzipSync(body, { level: 1 }).length);
console.log(`whole scrape: ${mib(whole.result)}, ${whole.ms.toFixed(1)} ms`);
for (const checks of [256, 16, 4, 1]) {
  const times = checks === 1 ? 1 : 5;
  const all = cpuOf(times, () => members(segments, checks, false).reduce((sum, text) => sum + gzipSync(text, { level: 1 }).length, 0));
  const changed = members(segments, checks, true);
  const again = cpuOf(times, () => changed.reduce((sum, text) => sum + gzipSync(text, { level: 1 }).length, 0));
  console.log(`members of ${checks} checks: all families ${mib(all.result)}, ${all.ms.toFixed(1)} ms; the families a result changes (${mib(changed.reduce((sum, text) => sum + text.length, 0))} of text) ${mib(again.result)}, ${again.ms.toFixed(1)} ms`);
}
const perBlock = members(segments, 256, false);
const decoded = gunzipSync(Buffer.concat(perBlock.map((text) => gzipSync(text, { level: 1 }))));
console.log(`concatenated members decode to the text: ${decoded.equals(Buffer.concat(perBlock))}`);
