// Over 400 lines: the suites of CheckMetrics (its text, its freshness) share the store and scrape helpers below.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Store } from '../store/index.js';
import type { StatusBatch, StoragePorts } from '../store/ports.js';
import { sqlitePorts } from '../store/sqlite/index.js';
import { writeCheckStatus } from '../store/sqlite/check-statuses-port.js';
import { SqliteMetricsReads } from '../store/sqlite/metrics-reads.js';
import { StatusTable } from '../store/sqlite/statuses.js';
import { BLOCK_SIZE, CheckMetrics, type StoredRun } from './checks.js';
import { expositionBody, linesOfPiece } from './exposition.js';
import { DEFAULT_RESPONSE_TIME_BUCKETS } from './response-time-buckets.js';

const ACCOUNT = 'acme';
const ENDED = '2030-01-01T00:00:01.500Z';

const stores: Store[] = [];
afterEach(() => {
  vi.restoreAllMocks();
  for (const store of stores.splice(0)) store.close();
});

function memoryStore(): Store {
  const store = new Store(':memory:');
  stores.push(store);
  return store;
}

const portsByStore = new WeakMap<Store, StoragePorts>();
/** The store's storage ports, one engine per store as a service has. */
function portsOf(store: Store): StoragePorts {
  let ports = portsByStore.get(store);
  if (!ports) {
    ports = sqlitePorts(store);
    portsByStore.set(store, ports);
  }
  return ports;
}

/** A check created through the ports after a scrape (the metrics follow the documents' change feed). */
async function createCheck(store: Store, fields: Record<string, unknown>): Promise<string> {
  return String((await portsOf(store).documents.insert('checks', ACCOUNT, (id) => ({ id, name: 'Check', checkType: 'API', activated: true, ...fields }))).id);
}

/** Replaces fields of a stored check through the ports. */
async function editCheck(store: Store, checkId: string, fields: Record<string, unknown>): Promise<void> {
  const documents = portsOf(store).documents;
  await documents.replace('checks', ACCOUNT, { ...(await documents.get('checks', ACCOUNT, checkId))!, ...fields });
}

function addCheck(store: Store, fields: Record<string, unknown>): string {
  return String(store.checks.insert(ACCOUNT, (id) => ({ id, name: 'Check', checkType: 'API', activated: true, ...fields })).id);
}

/**
 * A FINAL result folded into the check's status as the check-statuses port folds it, but synchronously:
 * these tests write statuses inside transactions and savepoints they roll back, which an async port
 * call cannot run inside.
 */
function recordStatus(store: Store, checkId: string, outcome: { failed?: boolean; degraded?: boolean; at?: string; sslDays?: number } = {}): void {
  writeCheckStatus(new StatusTable(store.db), ACCOUNT, {
    name: 'ignored: labels come from the check',
    checkId,
    hasFailures: outcome.failed === true,
    hasErrors: false,
    isDegraded: outcome.degraded === true,
    responseTime: 100,
    runLocation: 'eu-west-1',
    checkRunId: 1,
    stoppedAt: outcome.at ?? ENDED,
    ...(outcome.sslDays === undefined ? {} : { sslDaysRemaining: outcome.sslDays }),
  });
}

function run(checkId: string, fields: Partial<StoredRun> = {}): StoredRun {
  return { accountId: ACCOUNT, checkId, location: 'eu-west-1', hasFailures: false, hasErrors: false, isDegraded: false, responseTime: 120, ...fields };
}

async function textOf(metrics: CheckMetrics): Promise<string> {
  return Buffer.from(expositionBody((await (await metrics.scrape({ accountIds: [ACCOUNT] }))).families)).toString('utf8');
}

/** The sample lines of a check (comments and other checks left out). */
function samplesOf(text: string, checkId: string): string[] {
  return text.split('\n').filter((line) => line.includes(`check_id="${checkId}"`));
}

function sampleLines(text: string): string[] {
  return text.split('\n').filter((line) => line !== '' && !line.startsWith('#'));
}

describe('CheckMetrics text', () => {
  it('writes the same samples prom-client writes for the same values, label values with quotes, backslashes and newlines included', async () => {
    const store = memoryStore();
    const group = store.checkGroups.insert(ACCOUNT, (id) => ({ id, name: 'Shop\\"front"\nEU' }));
    const name = 'Say "hi"\\n\nnow';
    const checkId = addCheck(store, { name, groupId: group.id, tags: ['b"2', 'a\\1', 'c\n3'] });
    recordStatus(store, checkId, { degraded: true, sslDays: 12.5 });
    const metrics = new CheckMetrics(portsOf(store));
    const runs = [
      run(checkId, { responseTime: 40 }),
      run(checkId, { responseTime: 480, hasFailures: true }),
      run(checkId, { responseTime: 61_000, hasErrors: true }),
      run(checkId, { location: 'us-"east"', responseTime: 100, isDegraded: true }),
      run(checkId, { location: 'us-"east"', responseTime: null }),
    ];
    for (const stored of runs) metrics.recordRun(stored);

    const expected = new Registry();
    const registers = [expected];
    const checkLabels = { account: ACCOUNT, check_id: checkId };
    const labelNames = Object.keys(checkLabels);
    const gauge = (metric: string, value: number, extra: Record<string, string> = {}) =>
      new Gauge({ name: metric, help: 'h', labelNames: [...labelNames, ...Object.keys(extra)], registers }).set({ ...checkLabels, ...extra }, value);
    gauge('vigil_check_up', 1);
    gauge('vigil_check_degraded', 1);
    gauge('vigil_check_last_run_timestamp_seconds', Date.parse(ENDED) / 1000);
    gauge('vigil_check_last_response_time_seconds', 0.1);
    gauge('vigil_check_ssl_days_remaining', 12.5);
    gauge('vigil_check_info', 1, { check_name: name, check_type: 'API', group: 'Shop\\"front"\nEU', tags: 'a\\1,b"2,c\n3' });
    const counter = new Counter({ name: 'vigil_check_runs_total', help: 'h', labelNames: [...labelNames, 'location', 'outcome'], registers });
    const histogram = new Histogram({ name: 'vigil_check_response_time_seconds', help: 'h', labelNames: [...labelNames, 'location'], buckets: [...DEFAULT_RESPONSE_TIME_BUCKETS], registers });
    for (const location of ['eu-west-1', 'us-"east"']) {
      for (const outcome of ['passed', 'failed', 'degraded', 'error']) counter.inc({ ...checkLabels, location, outcome }, 0);
    }
    for (const stored of runs) {
      const outcome = stored.hasErrors ? 'error' : stored.hasFailures ? 'failed' : stored.isDegraded ? 'degraded' : 'passed';
      counter.inc({ ...checkLabels, location: stored.location, outcome });
      if (stored.responseTime !== null) histogram.observe({ ...checkLabels, location: stored.location }, stored.responseTime / 1000);
    }

    const text = await textOf(metrics);
    expect(sampleLines(text)).toEqual(sampleLines(await expected.metrics()));
    // Spelled out once, so a change in prom-client cannot hide a change in ours.
    expect(samplesOf(text, checkId)[0]).toBe(`vigil_check_up{account="acme",check_id="${checkId}"} 1`);
    expect(text).toContain(`vigil_check_info{account="acme",check_id="${checkId}",check_name="Say \\"hi\\"\\\\n\\nnow",check_type="API",group="Shop\\\\\\"front\\"\\nEU",tags="a\\\\1,b\\"2,c\\n3"} 1`);
  });

  it('writes each family once, HELP and TYPE first, families apart by a blank line, every line ending in a newline', async () => {
    const store = memoryStore();
    const checkId = addCheck(store, { name: 'One' });
    recordStatus(store, checkId);
    const metrics = new CheckMetrics(portsOf(store));
    metrics.recordRun(run(checkId));
    const text = await textOf(metrics);
    const families = text.split('\n\n').map((family) => family.split('\n').slice(0, 2).join('\n'));
    expect(families).toEqual(
      [
        ['vigil_check_up', 'gauge'],
        ['vigil_check_degraded', 'gauge'],
        ['vigil_check_last_run_timestamp_seconds', 'gauge'],
        ['vigil_check_last_response_time_seconds', 'gauge'],
        ['vigil_check_ssl_days_remaining', 'gauge'],
        ['vigil_check_info', 'gauge'],
        ['vigil_check_runs_total', 'counter'],
        ['vigil_check_response_time_seconds', 'histogram'],
      ].map(([name, type]) => expect.stringMatching(new RegExp(`^# HELP ${name} [^\\n]+\\n# TYPE ${name} ${type}$`))),
    );
    expect(text).toMatch(/\n[^\n]+_count\{[^}]+\} 1\n$/);
  });
});

describe('CheckMetrics freshness', () => {
  it("shows a new result's status and run at the next scrape", async () => {
    const store = memoryStore();
    const checkId = addCheck(store, { name: 'Api' });
    recordStatus(store, checkId);
    const metrics = new CheckMetrics(portsOf(store));
    metrics.recordRun(run(checkId, { responseTime: 120 }));
    const labels = `account="acme",check_id="${checkId}"`;
    const before = samplesOf((await textOf(metrics)), checkId);
    expect(before).toContain(`vigil_check_up{${labels}} 1`);

    recordStatus(store, checkId, { failed: true, at: '2030-01-01T00:01:00.000Z' });
    metrics.recordRun(run(checkId, { responseTime: 700, hasFailures: true }));
    const after = samplesOf((await textOf(metrics)), checkId);
    expect(after).toEqual(
      expect.arrayContaining([
        `vigil_check_up{${labels}} 0`,
        `vigil_check_last_run_timestamp_seconds{${labels}} ${Date.parse('2030-01-01T00:01:00.000Z') / 1000}`,
        `vigil_check_last_response_time_seconds{${labels}} 0.7`,
        `vigil_check_runs_total{${labels},location="eu-west-1",outcome="passed"} 1`,
        `vigil_check_runs_total{${labels},location="eu-west-1",outcome="failed"} 1`,
        `vigil_check_response_time_seconds_bucket{le="0.5",${labels},location="eu-west-1"} 1`,
        `vigil_check_response_time_seconds_bucket{le="1",${labels},location="eu-west-1"} 2`,
        `vigil_check_response_time_seconds_count{${labels},location="eu-west-1"} 2`,
      ]),
    );
    expect(after).not.toContain(`vigil_check_up{${labels}} 1`);
  });

  it('shows a tag change and a group rename in the info line, and keeps the other series as they were', async () => {
    const store = memoryStore();
    const group = store.checkGroups.insert(ACCOUNT, (id) => ({ id, name: 'Old group' }));
    const checkId = addCheck(store, { name: 'Tagged', tags: ['web'], groupId: group.id });
    recordStatus(store, checkId);
    const metrics = new CheckMetrics(portsOf(store));
    const labels = `account="acme",check_id="${checkId}"`;
    expect(samplesOf((await textOf(metrics)), checkId)).toContain(`vigil_check_info{${labels},check_name="Tagged",check_type="API",group="Old group",tags="web"} 1`);

    await editCheck(store, checkId, { tags: ['web', 'payments'] });
    await portsOf(store).documents.replace('check_groups', ACCOUNT, { ...group, name: 'New group' });
    const after = samplesOf((await textOf(metrics)), checkId);
    expect(after.filter((line) => line.startsWith('vigil_check_info'))).toEqual([`vigil_check_info{${labels},check_name="Tagged",check_type="API",group="New group",tags="payments,web"} 1`]);
    expect(after).toContain(`vigil_check_up{${labels}} 1`);
  });

  it("drops a deleted check's series, its runs too, though its status row is left behind", async () => {
    const store = memoryStore();
    const kept = addCheck(store, { name: 'Kept' });
    const deleted = addCheck(store, { name: 'Deleted' });
    for (const checkId of [kept, deleted]) recordStatus(store, checkId);
    const metrics = new CheckMetrics(portsOf(store));
    metrics.recordRun(run(deleted));
    metrics.recordRun(run(kept));
    // up, degraded, last run, last response time, info (no certificate seen); 4 run counters; 9 histogram lines (6 bounds, +Inf, sum, count)
    expect(samplesOf((await textOf(metrics)), deleted)).toHaveLength(5 + 4 + 9);

    await portsOf(store).documents.remove('checks', ACCOUNT, deleted);
    const text = await textOf(metrics);
    expect(samplesOf(text, deleted)).toEqual([]);
    expect(samplesOf(text, kept)).toHaveLength(5 + 4 + 9);
    expect(await portsOf(store).checkStatuses.find(ACCOUNT, deleted)).toBeUndefined(); // the API no longer lists it either
  });

  it('renames a check on its info line only: its other series keep their labels and their counts', async () => {
    const store = memoryStore();
    const checkId = addCheck(store, { name: 'Before' });
    recordStatus(store, checkId);
    const metrics = new CheckMetrics(portsOf(store));
    metrics.recordRun(run(checkId));
    const before = samplesOf((await textOf(metrics)), checkId);

    await editCheck(store, checkId, { name: 'After' });
    const labels = `account="acme",check_id="${checkId}"`;
    const renamed = samplesOf((await textOf(metrics)), checkId);
    expect(renamed).toEqual(before.map((line) => (line.startsWith('vigil_check_info{') ? `vigil_check_info{${labels},check_name="After",check_type="API",group="",tags=""} 1` : line)));

    metrics.recordRun(run(checkId));
    expect(samplesOf((await textOf(metrics)), checkId)).toContain(`vigil_check_runs_total{${labels},location="eu-west-1",outcome="passed"} 2`);
  });

  it('sees checks written by another connection to the same database', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'vigil-metrics-'));
    const store = new Store(dir);
    stores.push(store);
    const first = addCheck(store, { name: 'First' });
    recordStatus(store, first);
    // Opened after the insert: a collection counts its rows' order from where the file was at opening.
    const other = new Store(dir);
    stores.push(other);
    const metrics = new CheckMetrics(portsOf(store));
    expect(sampleLines((await textOf(metrics))).filter((line) => line.startsWith('vigil_check_up'))).toHaveLength(1);

    const second = await createCheck(other, { name: 'Second' });
    recordStatus(other, second);
    await editCheck(other, first, { name: 'First renamed' });
    const infos = sampleLines((await textOf(metrics))).filter((line) => line.startsWith('vigil_check_info'));
    expect(infos).toEqual([
      `vigil_check_info{account="acme",check_id="${first}",check_name="First renamed",check_type="API",group="",tags=""} 1`,
      `vigil_check_info{account="acme",check_id="${second}",check_name="Second",check_type="API",group="",tags=""} 1`,
    ]);
  });

  it("shows a status another connection wrote at the next scrape, and a rolled-back write's row as it stayed", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'vigil-metrics-'));
    const store = new Store(dir);
    stores.push(store);
    const checkId = addCheck(store, { name: 'Shared' });
    recordStatus(store, checkId);
    const other = new Store(dir);
    stores.push(other);
    const metrics = new CheckMetrics(portsOf(store));
    const labels = `account="acme",check_id="${checkId}"`;
    expect(samplesOf((await textOf(metrics)), checkId)).toContain(`vigil_check_up{${labels}} 1`);

    recordStatus(other, checkId, { failed: true });
    expect(samplesOf((await textOf(metrics)), checkId)).toContain(`vigil_check_up{${labels}} 0`);

    expect(() =>
      store.transaction(() => {
        recordStatus(store, checkId, { at: '2030-01-01T00:09:00.000Z' });
        throw new Error('rolled back');
      }),
    ).toThrow('rolled back');
    const after = samplesOf((await textOf(metrics)), checkId);
    expect(after).toContain(`vigil_check_up{${labels}} 0`);
    expect(after).toContain(`vigil_check_last_run_timestamp_seconds{${labels}} ${Date.parse(ENDED) / 1000}`);
  });

  it('reads every status again after a group commit whose write it was told of failed and was rolled back', async () => {
    const store = memoryStore();
    const checkId = addCheck(store, { name: 'Batched' });
    recordStatus(store, checkId);
    const metrics = new CheckMetrics(portsOf(store));
    const up = async () => samplesOf((await textOf(metrics)), checkId).find((line) => line.startsWith('vigil_check_up'));
    expect(await up()).toBe(`vigil_check_up{account="acme",check_id="${checkId}"} 1`);

    // A scrape waits for the group commit to end (the documents feed reads committed writes only):
    // the write it was told of is rolled back before it reads.
    const { committed } = store.writeBatched(() => recordStatus(store, checkId, { failed: true }));
    store.db.exec('ROLLBACK'); // as a COMMIT that failed leaves it; the batch's own COMMIT then fails too
    await expect(committed).rejects.toThrow(/no transaction/);
    expect(await up()).toBe(`vigil_check_up{account="acme",check_id="${checkId}"} 1`);
  });

  it('takes the statuses written since the previous scrape from their writes without reading their rows, and reads every row after another connection wrote', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'vigil-metrics-'));
    const store = new Store(dir);
    stores.push(store);
    const ids = ['A', 'B', 'C'].map((name) => addCheck(store, { name }));
    for (const checkId of ids) recordStatus(store, checkId);
    const metrics = new CheckMetrics(portsOf(store));
    await textOf(metrics);
    const partial = vi.spyOn(SqliteMetricsReads.prototype, 'statusesOfChecks');
    const full = vi.spyOn(SqliteMetricsReads.prototype, 'statusesOf');
    await textOf(metrics);
    recordStatus(store, ids[1]!, { failed: true });
    await textOf(metrics);
    const other = new Store(dir);
    stores.push(other);
    recordStatus(other, ids[2]!, { failed: true });
    const text = await textOf(metrics);
    expect(partial.mock.calls).toEqual([]);
    expect(full.mock.calls).toEqual([[ACCOUNT]]);
    expect(sampleLines(text).filter((line) => line.startsWith('vigil_check_up')).map((line) => line.at(-1))).toEqual(['1', '0', '0']);
  });

  it('follows the statuses by reading every row at each call while the engine cannot be told of writes (its ports and follower made inside a transaction), then by what it is told', async () => {
    const store = memoryStore();
    const checkId = addCheck(store, { name: 'Opened inside' });
    recordStatus(store, checkId);
    const ports = store.transaction(() => sqlitePorts(store));
    const follower = store.transaction(() => ports.metricsReads.followStatuses(ACCOUNT));
    const upOf = (batch: StatusBatch) => batch.statuses.map(([id, status]) => [id, status?.hasFailures]);
    expect(await follower.next()).toMatchObject({ full: true });
    recordStatus(store, checkId, { failed: true });
    const untold = await follower.next();
    expect([untold.full, upOf(untold)]).toEqual([true, [[checkId, true]]]);
    // A follower made outside a transaction: writes are told from now on, and the first follower
    // reads every row once more (what came before was told to no one), then only what it is told.
    ports.metricsReads.followStatuses(ACCOUNT).close();
    recordStatus(store, checkId);
    const once = await follower.next();
    expect([once.full, upOf(once)]).toEqual([true, [[checkId, false]]]);
    recordStatus(store, checkId, { failed: true });
    const told = await follower.next();
    expect([told.full, upOf(told)]).toEqual([false, [[checkId, true]]]);
  });

  it("reads again the row of a write rolled back by its savepoint, and keeps what the writes that stood said", async () => {
    const store = memoryStore();
    const [kept, undone, twice, stood] = ['Kept', 'Undone', 'Twice', 'Stood'].map((name) => addCheck(store, { name }));
    for (const checkId of [kept!, undone!, twice!, stood!]) recordStatus(store, checkId);
    const metrics = new CheckMetrics(portsOf(store));
    await textOf(metrics);
    const partial = vi.spyOn(SqliteMetricsReads.prototype, 'statusesOfChecks');

    store.transaction(() => {
      recordStatus(store, stood!, { failed: true, at: '2030-01-01T00:03:00.000Z' });
      recordStatus(store, kept!, { failed: true });
      recordStatus(store, twice!, { failed: true, at: '2030-01-01T00:05:00.000Z' });
      expect(() =>
        store.transaction(() => {
          recordStatus(store, undone!, { failed: true });
          recordStatus(store, twice!, { at: '2030-01-01T00:09:00.000Z' });
          throw new Error('rolled back');
        }),
      ).toThrow('rolled back');
    });
    const { committed } = store.writeBatched(() => {
      expect(() =>
        store.writeBatched(() => {
          recordStatus(store, kept!, { at: '2030-01-01T00:07:00.000Z' });
          throw new Error('this request failed');
        }),
      ).toThrow('this request failed');
    });
    const text = await textOf(metrics);
    const line = (name: string, checkId: string) => samplesOf(text, checkId).find((sample) => sample.startsWith(`${name}{`));
    expect(line('vigil_check_up', kept!)).toBe(`vigil_check_up{account="acme",check_id="${kept}"} 0`);
    expect(line('vigil_check_last_run_timestamp_seconds', kept!)).toBe(`vigil_check_last_run_timestamp_seconds{account="acme",check_id="${kept}"} ${Date.parse(ENDED) / 1000}`);
    expect(line('vigil_check_last_run_timestamp_seconds', stood!)).toBe(`vigil_check_last_run_timestamp_seconds{account="acme",check_id="${stood}"} ${Date.parse('2030-01-01T00:03:00.000Z') / 1000}`);
    expect(line('vigil_check_up', undone!)).toBe(`vigil_check_up{account="acme",check_id="${undone}"} 1`);
    expect(line('vigil_check_up', twice!)).toBe(`vigil_check_up{account="acme",check_id="${twice}"} 0`);
    expect(line('vigil_check_last_run_timestamp_seconds', twice!)).toBe(`vigil_check_last_run_timestamp_seconds{account="acme",check_id="${twice}"} ${Date.parse('2030-01-01T00:05:00.000Z') / 1000}`);
    // Only the rows whose last write was rolled back were read: not Stood's.
    expect(partial.mock.calls.map(([, checkIds]) => [...checkIds].sort())).toEqual([[kept!, undone!, twice!].sort()]);
    await committed;
  });

  it('writes a changed block when the body reaches it, and a scrape started after a change shows it in every family, however the scrapes before it were read', async () => {
    const store = memoryStore();
    const [first, second] = ['First', 'Second'].map((name) => addCheck(store, { name }));
    for (const checkId of [first!, second!]) recordStatus(store, checkId);
    const metrics = new CheckMetrics(portsOf(store));
    metrics.recordRun(run(first!));
    await textOf(metrics);
    const labels = `account="acme",check_id="${first}"`;
    const line = (text: string, name: string) => samplesOf(text, first!).find((sample) => sample.startsWith(name));
    const bodyOf = (families: Awaited<ReturnType<CheckMetrics['scrape']>>['families']) => Buffer.from(expositionBody(families)).toString('utf8');

    // A scrape whose body is not read yet, then a result stored: the pieces still to be sent show it.
    metrics.recordRun(run(first!, { hasFailures: true }));
    const pending = (await metrics.scrape({ accountIds: [ACCOUNT] }));
    expect(pending.families[0]!.samples.some((piece) => typeof piece === 'function')).toBe(true);
    recordStatus(store, first!, { failed: true });
    metrics.recordRun(run(first!, { hasErrors: true }));
    // Another scrape in between, read whole: the status it read again and the runs since.
    const between = bodyOf((await metrics.scrape({ accountIds: [ACCOUNT] })).families);
    expect(line(between, 'vigil_check_up{')).toBe(`vigil_check_up{${labels}} 0`);
    expect(samplesOf(between, first!).filter((sample) => sample.startsWith('vigil_check_runs_total{'))).toEqual([
      `vigil_check_runs_total{${labels},location="eu-west-1",outcome="passed"} 1`,
      `vigil_check_runs_total{${labels},location="eu-west-1",outcome="failed"} 1`,
      `vigil_check_runs_total{${labels},location="eu-west-1",outcome="degraded"} 0`,
      `vigil_check_runs_total{${labels},location="eu-west-1",outcome="error"} 1`,
    ]);
    // The first scrape, read now, is at least as fresh as when it began.
    const late = bodyOf(pending.families);
    expect(samplesOf(late, first!).filter((sample) => sample.startsWith('vigil_check_runs_total{')).map((sample) => sample.at(-1))).toEqual(['1', '1', '0', '1']);

    metrics.recordRun(run(first!, { isDegraded: true }));
    const after = await textOf(metrics);
    expect(line(after, 'vigil_check_up{')).toBe(`vigil_check_up{${labels}} 0`);
    expect(samplesOf(after, first!).filter((sample) => sample.startsWith('vigil_check_runs_total{')).map((sample) => sample.at(-1))).toEqual(['1', '1', '1', '1']);
    expect(line(after, 'vigil_check_response_time_seconds_count{')).toBe(`vigil_check_response_time_seconds_count{${labels},location="eu-west-1"} 4`);
    // Nothing changed since: every piece is the kept one, none left for later.
    expect((await metrics.scrape({ accountIds: [ACCOUNT] })).families.every(({ samples }) => samples.every((piece) => typeof piece !== 'function'))).toBe(true);
  });

  it('writes the histogram with the bounds it is given, and with none only its +Inf bucket, sum and count', async () => {
    const store = memoryStore();
    const checkId = addCheck(store, { name: 'Timed' });
    recordStatus(store, checkId);
    const labels = `account="acme",check_id="${checkId}",location="eu-west-1"`;
    const histogramOf = (text: string) => samplesOf(text, checkId).filter((line) => line.startsWith('vigil_check_response_time_seconds'));

    const custom = new CheckMetrics(portsOf(store), { responseTimeBuckets: [0.2, 3] });
    custom.recordRun(run(checkId, { responseTime: 150 }));
    custom.recordRun(run(checkId, { responseTime: 2500 }));
    expect(histogramOf((await textOf(custom)))).toEqual([
      `vigil_check_response_time_seconds_bucket{le="0.2",${labels}} 1`,
      `vigil_check_response_time_seconds_bucket{le="3",${labels}} 2`,
      `vigil_check_response_time_seconds_bucket{le="+Inf",${labels}} 2`,
      `vigil_check_response_time_seconds_sum{${labels}} 2.65`,
      `vigil_check_response_time_seconds_count{${labels}} 2`,
    ]);

    const bare = new CheckMetrics(portsOf(store), { responseTimeBuckets: [] });
    bare.recordRun(run(checkId, { responseTime: 150 }));
    expect(histogramOf((await textOf(bare)))).toEqual([
      `vigil_check_response_time_seconds_bucket{le="+Inf",${labels}} 1`,
      `vigil_check_response_time_seconds_sum{${labels}} 0.15`,
      `vigil_check_response_time_seconds_count{${labels}} 1`,
    ]);
  });

  it('keeps more checks than a block holds in their order through results, edits, deletes and the maxChecks cut', async () => {
    const store = memoryStore();
    const count = BLOCK_SIZE + 44;
    const ids = store.transaction(() => Array.from({ length: count }, (_, index) => addCheck(store, { name: `C${index}` })));
    store.transaction(() => ids.forEach((checkId) => recordStatus(store, checkId)));
    const metrics = new CheckMetrics(portsOf(store));
    const upLines = async () => sampleLines((await textOf(metrics))).filter((line) => line.startsWith('vigil_check_up{'));
    expect(await upLines()).toEqual(ids.map((checkId) => `vigil_check_up{account="acme",check_id="${checkId}"} 1`));

    const [first, late, removed] = [ids[3]!, ids[BLOCK_SIZE + 10]!, ids[BLOCK_SIZE - 1]!];
    recordStatus(store, late, { failed: true });
    metrics.recordRun(run(first, { responseTime: 300 }));
    let text = await textOf(metrics);
    expect(samplesOf(text, late)).toContain(`vigil_check_up{account="acme",check_id="${late}"} 0`);
    expect(samplesOf(text, first)).toContain(`vigil_check_last_response_time_seconds{account="acme",check_id="${first}"} 0.3`);

    await portsOf(store).documents.remove('checks', ACCOUNT, removed);
    const added = await createCheck(store, { name: 'Added' });
    recordStatus(store, added);
    await editCheck(store, first, { name: 'First renamed' });
    text = await textOf(metrics);
    const expectedOrder = [...ids.filter((checkId) => checkId !== removed), added];
    expect(sampleLines(text).filter((line) => line.startsWith('vigil_check_up{')).map((line) => /check_id="([^"]+)"/.exec(line)?.[1])).toEqual(expectedOrder);
    expect(samplesOf(text, first)).toContain(`vigil_check_info{account="acme",check_id="${first}",check_name="First renamed",check_type="API",group="",tags=""} 1`);
    expect(samplesOf(text, late)).toContain(`vigil_check_up{account="acme",check_id="${late}"} 0`);

    const limited = new CheckMetrics(portsOf(store), { maxChecks: BLOCK_SIZE + 5 });
    for (let scrape = 0; scrape < 2; scrape++) {
      const { families, omitted } = (await limited.scrape({ accountIds: [ACCOUNT] }));
      const shown = sampleLines(Buffer.from(expositionBody(families)).toString('utf8')).filter((line) => line.startsWith('vigil_check_up{'));
      expect(shown).toHaveLength(BLOCK_SIZE + 5);
      expect(shown.at(-1)).toContain(expectedOrder[BLOCK_SIZE + 4]!);
      expect(omitted).toBe(expectedOrder.length - BLOCK_SIZE - 5);
    }
  });

  it('reads a bulk change in reads of the changed checks only, a thousand at a time, and lists new checks in the order they were created', async () => {
    const store = memoryStore();
    const [edited, removed] = ['Edited', 'Removed'].map((name) => addCheck(store, { name }));
    const metrics = new CheckMetrics(portsOf(store));
    await textOf(metrics);

    const documents = portsOf(store).documents;
    const added: string[] = [];
    for (let index = 0; index < 1005; index++) added.push(await createCheck(store, { name: `Bulk ${index}` }));
    await editCheck(store, edited!, { name: 'Edited again' });
    await documents.remove('checks', ACCOUNT, removed!);
    store.transaction(() => [edited!, ...added].forEach((checkId) => recordStatus(store, checkId)));
    const many = vi.spyOn(documents, 'getMany');
    const paged = vi.spyOn(documents, 'pageAfter');
    const text = await textOf(metrics);

    expect(many.mock.calls.map(([kind, accountId, ids]) => [kind, accountId, ids.length])).toEqual([['checks', ACCOUNT, 1000], ['checks', ACCOUNT, 1005 + 2 - 1000]]);
    expect(paged).not.toHaveBeenCalled();
    const info = sampleLines(text).filter((line) => line.startsWith('vigil_check_info{'));
    expect(info.map((line) => /check_name="([^"]+)"/.exec(line)?.[1])).toEqual(['Edited again', ...added.map((_, index) => `Bulk ${index}`)]);
  });

  it('exports at most maxChecks checks, in the order they were created, and counts the rest', async () => {
    const store = memoryStore();
    const ids = ['A', 'B', 'C'].map((name) => addCheck(store, { name }));
    for (const checkId of [...ids].reverse()) recordStatus(store, checkId);
    const metrics = new CheckMetrics(portsOf(store), { maxChecks: 2 });
    const { families, omitted } = (await metrics.scrape({ accountIds: [ACCOUNT] }));
    const text = Buffer.from(expositionBody(families)).toString('utf8');
    expect(sampleLines(text).filter((line) => line.startsWith('vigil_check_info')).map((line) => /check_name="(\w)"/.exec(line)?.[1])).toEqual(['A', 'B']);
    expect(omitted).toBe(1);
  });
});

describe('CheckMetrics memory', () => {
  /** A metrics of one check that has a status, and scrapes of it after a run, its body read. */
  function oneCheck() {
    const store = memoryStore();
    const checkId = addCheck(store, { name: 'Reused' });
    recordStatus(store, checkId);
    const metrics = new CheckMetrics(portsOf(store));
    /** A result stored (its response time in ms), then a scrape with its body read: its pieces by family, and its text. */
    const scrapeAfterRun = async (responseTime: number) => {
      metrics.recordRun(run(checkId, { responseTime }));
      const scraped = await metrics.scrape({ accountIds: [ACCOUNT] });
      const pieces = scraped.families.map(({ samples }) => samples.map(linesOfPiece));
      return { done: scraped.done, pieces, text: Buffer.concat(pieces.flat()).toString('utf8') };
    };
    const memoryOf = (pieces: Uint8Array[][]) => pieces.flat().map((piece) => [piece.buffer, piece.byteOffset]);
    /** Per family, whether its piece is in the same memory in both scrapes. */
    const sameMemory = (one: Uint8Array[][], other: Uint8Array[][]) => memoryOf(one).map(([buffer, offset], index) => buffer === memoryOf(other)[index]![0] && offset === memoryOf(other)[index]![1]);
    const line = (text: string, head: string) => samplesOf(text, checkId).find((sample) => sample.startsWith(head));
    return { store, checkId, metrics, scrapeAfterRun, sameMemory, line };
  }
  const FAMILIES = 8;
  /** The families whose lines a run of 10 s after runs of 1 s makes longer: the last response time and the histogram (its sum). */
  const LONGER = [3, 7];

  it("writes a changed check's lines over its old ones when they keep their length and no scrape in flight sent them; else the block's piece anew", async () => {
    const { store, checkId, scrapeAfterRun, sameMemory, line } = oneCheck();
    const first = await scrapeAfterRun(1000);
    first.done();
    // 1 s again: every value keeps its length (counts 1 -> 2, sum 1 -> 2), so every piece is written where it was.
    const second = await scrapeAfterRun(1000);
    expect(sameMemory(second.pieces, first.pieces)).toEqual(Array(FAMILIES).fill(true));
    expect(line(second.text, 'vigil_check_response_time_seconds_sum{')).toMatch(/ 2$/);
    // The second is still being sent: the third is written in new memory, and the second's bytes stay as sent.
    const third = await scrapeAfterRun(1000);
    expect(sameMemory(third.pieces, second.pieces)).toEqual(Array(FAMILIES).fill(false));
    expect(line(Buffer.concat(second.pieces.flat()).toString('utf8'), 'vigil_check_response_time_seconds_count{')).toMatch(/ 2$/);
    second.done();
    third.done();
    // 10 s: the families whose lines grow are written anew, into the memory the second (done) sent; the others where they were.
    const fourth = await scrapeAfterRun(10_000);
    expect(sameMemory(fourth.pieces, second.pieces)).toEqual(Array.from({ length: FAMILIES }, (_, family) => LONGER.includes(family)));
    expect(sameMemory(fourth.pieces, third.pieces)).toEqual(Array.from({ length: FAMILIES }, (_, family) => !LONGER.includes(family)));
    expect(line(fourth.text, 'vigil_check_response_time_seconds_sum{')).toMatch(/ 13$/);
    expect(line(fourth.text, 'vigil_check_last_response_time_seconds{')).toMatch(/ 10$/);
    // As written from nothing by a metrics that counted the same runs.
    const fresh = new CheckMetrics(portsOf(store));
    for (const responseTime of [1000, 1000, 1000, 10_000]) fresh.recordRun(run(checkId, { responseTime }));
    expect(sampleLines(fourth.text)).toEqual(sampleLines(await textOf(fresh)));
  });

  it('makes each piece a spare once the first scrape is sent, off any request, so that the first piece written anew takes no new memory', async () => {
    const { checkId, metrics, scrapeAfterRun, sameMemory, line } = oneCheck();
    const first = await scrapeAfterRun(1000);
    first.done();
    // The spares are made one block per turn of the event loop: here one block, then the turn that finds no more.
    for (let turn = 0; turn < 2; turn++) await new Promise((resolve) => setImmediate(resolve));
    // 10 s after 1 s: the last response time and the histogram's sum grow, so those families are written anew.
    metrics.recordRun(run(checkId, { responseTime: 10_000 }));
    const allocations = vi.spyOn(Buffer, 'allocUnsafe');
    let pieces: Uint8Array[][];
    try {
      const scraped = await metrics.scrape({ accountIds: [ACCOUNT] });
      pieces = scraped.families.map(({ samples }) => samples.map(linesOfPiece));
      expect(allocations.mock.calls).toEqual([]);
    } finally {
      allocations.mockRestore();
    }
    expect(sameMemory(pieces, first.pieces)).toEqual(Array.from({ length: FAMILIES }, (_, family) => !LONGER.includes(family)));
    expect(line(Buffer.concat(pieces.flat()).toString('utf8'), 'vigil_check_response_time_seconds_sum{')).toMatch(/ 11$/);
  });

  it("writes a changed block's piece into the memory of the piece before the last once every scrape that sent that one is done, never while one may still send it", async () => {
    const { metrics, scrapeAfterRun, sameMemory, line } = oneCheck();
    // Each run 10 times longer than the one before (1 s, 10 s, ...): the sum (1, 11, 111, ...) and the
    // last response time grow a digit each time, so their pieces are never written over where they are.
    const first = await scrapeAfterRun(1000);
    first.done();
    const second = await scrapeAfterRun(10_000);
    const third = await scrapeAfterRun(100_000);
    // The first is done: the third's growing families are written where the first's were.
    expect(sameMemory(third.pieces, first.pieces).filter((_, family) => LONGER.includes(family))).toEqual([true, true]);
    // The second is not done: the fourth is written in new memory, and the second's bytes stay as sent.
    const fourth = await scrapeAfterRun(1_000_000);
    expect(sameMemory(fourth.pieces, second.pieces)).toEqual(Array(FAMILIES).fill(false));
    expect(line(Buffer.concat(second.pieces.flat()).toString('utf8'), 'vigil_check_response_time_seconds_count{')).toMatch(/ 2$/);
    for (const scrape of [second, third, fourth]) scrape.done();
    const fifth = await scrapeAfterRun(10_000_000);
    expect(sameMemory(fifth.pieces, third.pieces).filter((_, family) => LONGER.includes(family))).toEqual([true, true]);
    expect(line(fifth.text, 'vigil_check_response_time_seconds_count{')).toMatch(/ 5$/);
    expect(sampleLines(fifth.text)).toEqual(sampleLines(await textOf(metrics)));
  });
});
