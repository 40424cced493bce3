/**
 * The operator's scrape over a real socket (routes/metrics.ts writes it to the Node response
 * itself): a body of several MiB whose changed blocks are written while it is sent, a scraper that
 * goes away in the middle of one, and the scrape after it.
 */
import { mkdtempSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { serve } from '@hono/node-server';
import { afterEach, describe, expect, it } from 'vitest';
import { createApp, type SqliteServiceApp } from '../app.js';
import { writeCheckStatus } from '../store/sqlite/check-statuses-port.js';
import { StatusTable } from '../store/sqlite/statuses.js';

const TOKEN = 'operator-scrape-token';
const CHECKS = 3_000;

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function started(): Promise<{ service: SqliteServiceApp; port: number; checkIds: string[] }> {
  const service = createApp({ accounts: [{ apiKey: 'k', accountId: 'acme' }], metricsToken: TOKEN, dataDir: mkdtempSync(path.join(tmpdir(), 'vigil-operator-scrape-')) });
  cleanups.push(async () => service.close());
  const checkIds = service.store.transaction(() =>
    Array.from({ length: CHECKS }, (_, index) => String(service.store.checks.insert('acme', (id) => ({ id, name: `Check ${index}`, checkType: 'API', activated: true })).id)),
  );
  const server = await new Promise<http.Server>((resolve) => {
    const created = serve({ fetch: service.app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(created as http.Server)) as http.Server;
  });
  cleanups.push(() => new Promise((resolve) => server.close(() => resolve())));
  return { service, port: (server.address() as AddressInfo).port, checkIds };
}

function storeRound(service: SqliteServiceApp, checkIds: readonly string[], round: number): void {
  const stoppedAt = new Date(Date.UTC(2030, 0, 1) + round * 60_000).toISOString();
  // A status as the check-statuses port writes it, synchronously: the round is one transaction.
  const statuses = new StatusTable(service.store.db);
  service.store.transaction(() => {
    for (const checkId of checkIds) {
      writeCheckStatus(statuses, 'acme', { name: 'n', checkId, hasFailures: false, hasErrors: false, isDegraded: false, responseTime: 80, runLocation: 'eu-west-1', checkRunId: round, stoppedAt });
      service.metrics.runStored({ accountId: 'acme', checkId, location: 'eu-west-1', hasFailures: false, hasErrors: false, isDegraded: false, responseTime: 80 });
    }
  });
}

function scrape(port: number, options: { leaveAfterFirstChunk?: boolean } = {}): Promise<{ status: number; body: string; headers: http.IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    const request = http.get({ host: '127.0.0.1', port, path: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => {
        chunks.push(chunk);
        if (options.leaveAfterFirstChunk) {
          request.destroy();
          resolve({ status: response.statusCode ?? 0, body: '', headers: response.headers });
        }
      });
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8'), headers: response.headers }));
      response.on('error', (error) => (options.leaveAfterFirstChunk ? undefined : reject(error)));
    });
    request.on('error', (error) => (options.leaveAfterFirstChunk ? undefined : reject(error)));
  });
}

/** A scrape whose scraper stops reading after the first chunk (`started`) until `rest` reads the whole body. */
function slowScrape(port: number): { started: Promise<void>; rest: () => Promise<string> } {
  const chunks: Buffer[] = [];
  let paused!: () => void;
  let resume = () => {};
  const started = new Promise<void>((resolve) => (paused = resolve));
  const ended = new Promise<string>((resolve, reject) => {
    const request = http.get({ host: '127.0.0.1', port, path: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } }, (response) => {
      resume = () => response.resume();
      response.on('data', (chunk: Buffer) => {
        chunks.push(chunk);
        if (chunks.length === 1) {
          response.pause();
          paused();
        }
      });
      response.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
      response.on('error', reject);
    });
    request.on('error', reject);
  });
  return {
    started,
    rest: () => {
      resume();
      return ended;
    },
  };
}

describe('the operator scrape over a socket', () => {
  it('sends several MiB whole, chunked, with the results stored before it; a scraper leaving mid-body leaves the next scrape whole and fresh', async () => {
    const { service, port, checkIds } = await started();
    storeRound(service, checkIds, 1);
    const first = await scrape(port);
    expect(first.status).toBe(200);
    expect(first.headers['transfer-encoding']).toBe('chunked');
    expect(first.body.length).toBeGreaterThan(4 * 1024 * 1024);
    expect(first.body.match(/^vigil_check_up\{/gm)).toHaveLength(CHECKS);
    expect(first.body).toMatch(/\nprocess_resident_memory_bytes \d+\n/);

    storeRound(service, checkIds, 2);
    const left = await scrape(port, { leaveAfterFirstChunk: true });
    expect(left.status).toBe(200);

    storeRound(service, checkIds.slice(0, 10), 3);
    const next = await scrape(port);
    expect(next.status).toBe(200);
    const last = checkIds.at(-1)!;
    expect(next.body).toContain(`\nvigil_check_last_run_timestamp_seconds{account="acme",check_id="${checkIds[0]}"} ${Date.UTC(2030, 0, 1, 0, 3) / 1000}\n`);
    expect(next.body).toContain(`\nvigil_check_last_run_timestamp_seconds{account="acme",check_id="${last}"} ${Date.UTC(2030, 0, 1, 0, 2) / 1000}\n`);
    expect(next.body).toContain(`\nvigil_check_response_time_seconds_count{account="acme",check_id="${last}",location="eu-west-1"} 2\n`);
    expect(next.body).toContain(`\nvigil_check_response_time_seconds_count{account="acme",check_id="${checkIds[0]}",location="eu-west-1"} 3\n`);
    expect(next.body.endsWith('\n')).toBe(true);
  }, 60_000);

  it("keeps the bytes of a scrape its scraper reads slowly, as they were, while later scrapes write the blocks' next pieces", async () => {
    const { service, port, checkIds } = await started();
    for (const round of [1, 2]) {
      storeRound(service, checkIds, round);
      await scrape(port);
    }
    // Nothing changed since: the slow scrape hands the socket every kept piece at once, and most
    // of them wait in the process while its scraper does not read.
    const slow = slowScrape(port);
    await slow.started;
    // Two scrapes in full while the slow one waits: each rewrites every block, the first into the
    // memory of the pieces before the ones the slow scrape sends, the second into new memory, as
    // the pieces before its own are the ones the slow scrape still sends.
    for (const round of [3, 4]) {
      storeRound(service, checkIds, round);
      const whole = await scrape(port);
      expect(whole.body).toContain(`\nvigil_check_response_time_seconds_count{account="acme",check_id="${checkIds[0]}",location="eu-west-1"} ${round}\n`);
    }
    const body = await slow.rest();
    const samples = body.split('\n').filter((line) => line !== '' && !line.startsWith('#'));
    expect(samples.filter((line) => !/^[a-zA-Z_:][a-zA-Z0-9_:]*(\{[^{}]*\})? (-?[0-9.]+(e[+-]?[0-9]+)?|NaN|[+-]Inf)$/.test(line))).toEqual([]);
    // Each family lists every check once, in the checks' order, and a histogram's +Inf bucket is its count.
    for (const family of ['vigil_check_up{', 'vigil_check_response_time_seconds_count{']) {
      expect(samples.filter((line) => line.startsWith(family)).map((line) => /check_id="([^"]+)"/.exec(line)![1])).toEqual(checkIds);
    }
    const counts = new Map(samples.filter((line) => line.startsWith('vigil_check_response_time_seconds_count{')).map((line) => [/check_id="([^"]+)"/.exec(line)![1], line.split(' ')[1]]));
    for (const line of samples.filter((sample) => sample.startsWith('vigil_check_response_time_seconds_bucket{le="+Inf"'))) {
      expect(line.split(' ')[1]).toBe(counts.get(/check_id="([^"]+)"/.exec(line)![1]!));
    }
    expect(new Set(counts.values())).toEqual(new Set(['2']));
  }, 60_000);
});
