import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openRepositories } from '../repositories.js';
import { Store } from '../store/index.js';
import type { AlertContext } from './channels.js';
import { NOTIFICATION_ID_HEADER } from './delivery.js';
import { Outbox, type NotificationDoc, type OutboxOptions, type OutboxStorage } from './outbox.js';

const cleanups: Array<() => void | Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function storeWithTables(file?: string): Store {
  const store = new Store(file ? { file } : ':memory:');
  cleanups.push(() => store.close());
  return store;
}

/** The outbox worker of one service process on `store`, with that process's replica id. */
function storageOf(store: Store): OutboxStorage {
  const repositories = openRepositories(store);
  return { outbox: repositories.ports.outbox, owner: repositories.replicaId };
}

/** Queues a webhook notification through the port, as alerting's transition does. */
async function enqueue(storage: OutboxStorage, id: string, url: string, nowMs = Date.now()): Promise<void> {
  const context = { notificationId: id, alertType: 'ALERT_FAILURE', checkId: 'c1', checkName: 'Shop' } as unknown as AlertContext;
  const doc: NotificationDoc = { context, alertConfig: { url }, checkAlertId: 'a1' };
  await storage.outbox.enqueue({ accountId: 'acct', id, checkId: 'c1', alertChannelId: 1, channelType: 'WEBHOOK', alertType: 'ALERT_FAILURE', doc: JSON.stringify(doc) }, nowMs);
}

function rows(store: Store) {
  return store.db.prepare('SELECT id, delivery, attempts, last_error FROM alert_notifications ORDER BY seq').all();
}

describe('Outbox.stop', () => {
  it('aborts a delivery still going at the deadline and gives its row back PENDING, as it was, due at once for the next start', async () => {
    // A receiver that takes the request and never answers.
    const receiver: Server = createServer(() => undefined);
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => {
      receiver.closeAllConnections();
      return new Promise<void>((resolve) => receiver.close(() => resolve()));
    });
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    const dir = mkdtempSync(path.join(tmpdir(), 'vigil-outbox-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const file = path.join(dir, 'vigil.db');
    const store = storeWithTables(file);
    const storage = storageOf(store);
    const outbox = new Outbox(storage, { pollMs: 60_000, timeoutMs: 60_000, denyNetworks: [] });
    await enqueue(storage, 'n1', url);
    const reached = new Promise<void>((resolve) => receiver.once('request', () => resolve()));
    outbox.start();
    await reached;
    await outbox.stop(20);
    // Closed right after the stop, as the service does.
    store.close();
    // Not counted as an attempt: the receiver did nothing wrong, the service went away.
    const reopened = storeWithTables(file);
    expect(rows(reopened)).toEqual([{ id: 'n1', delivery: 'PENDING', attempts: 0, last_error: null }]);
    const next = storageOf(reopened);
    expect(await next.outbox.claimDue(next.owner, Date.now(), 60_000, 10)).toEqual([expect.objectContaining({ id: 'n1', attempts: 0 })]);
  });

  it('records an attempt that ends within the deadline', async () => {
    const store = storeWithTables();
    let answer!: () => void;
    let reached!: () => void;
    const inFlight = new Promise<void>((resolve) => (reached = resolve));
    const storage = storageOf(store);
    const outbox = new Outbox(storage, {
      pollMs: 60_000,
      send: () =>
        new Promise((resolve) => {
          answer = () => resolve({ kind: 'sent', result: '204' });
          reached();
        }),
    });
    await enqueue(storage, 'n1', 'http://127.0.0.1:1/hook');
    outbox.start();
    await inFlight;
    const stopped = outbox.stop(60_000);
    answer();
    await stopped;
    expect(rows(store)).toEqual([{ id: 'n1', delivery: 'SENT', attempts: 1, last_error: null }]);
  });

  it('starts no attempt after the stop and leaves the rows enqueued meanwhile PENDING', async () => {
    const store = storeWithTables();
    const sent: string[] = [];
    const storage = storageOf(store);
    const outbox = new Outbox(storage, { pollMs: 60_000, send: async (_type, _config, context) => (sent.push(context.notificationId), { kind: 'sent', result: '204' }) });
    outbox.start();
    await outbox.stop(60_000);
    await enqueue(storage, 'n1', 'http://127.0.0.1:1/hook');
    outbox.pump();
    expect(sent).toEqual([]);
    expect(rows(store)).toEqual([{ id: 'n1', delivery: 'PENDING', attempts: 0, last_error: null }]);
  });
});

/** A loopback webhook receiver that answers 204 and counts the notification ids it is sent. */
async function countingReceiver(): Promise<{ url: string; received: Map<string, number> }> {
  const received = new Map<string, number>();
  const receiver = createServer((request, response) => {
    const id = String(request.headers[NOTIFICATION_ID_HEADER]);
    received.set(id, (received.get(id) ?? 0) + 1);
    request.resume();
    request.on('end', () => response.writeHead(204).end());
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => {
    receiver.closeAllConnections();
    return new Promise<void>((resolve) => receiver.close(() => resolve()));
  });
  return { url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`, received };
}

/** Two service processes' worth of storage: two Stores on one database file, as replicas share one. */
function twoProcesses(): [Store, Store] {
  const dir = mkdtempSync(path.join(tmpdir(), 'vigil-outbox-leases-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'vigil.db');
  return [storeWithTables(file), storeWithTables(file)];
}

describe('Outbox leases across processes on one database', () => {
  const T0 = Date.UTC(2030, 0, 1);

  it('delivers each notification exactly once when two processes deliver the same backlog at once', async () => {
    const { url, received } = await countingReceiver();
    const [first, second] = twoProcesses();
    const deliveredBy = { first: [] as string[], second: [] as string[] };
    const worker = (store: Store, log: string[]) =>
      new Outbox(storageOf(store), { pollMs: 60_000, concurrency: 4, denyNetworks: [], onDelivery: (event) => log.push(event.notificationId) });
    const a = worker(first, deliveredBy.first);
    const b = worker(second, deliveredBy.second);
    const ids = Array.from({ length: 40 }, (_, index) => `n${index}`);
    const queue = storageOf(first);
    for (const id of ids) await enqueue(queue, id, url);
    a.start();
    b.start();
    await Promise.all([a.idle(), b.idle()]);
    // Both took part (each claims its first four at start), and no id reached the receiver twice.
    expect(deliveredBy.first.length).toBeGreaterThan(0);
    expect(deliveredBy.second.length).toBeGreaterThan(0);
    expect([...deliveredBy.first, ...deliveredBy.second].sort()).toEqual([...ids].sort());
    expect([...received.entries()].sort()).toEqual(ids.map((id) => [id, 1]).sort());
    const settled = rows(first) as Array<{ delivery: string; attempts: number }>;
    expect(settled.filter((row) => row.delivery !== 'SENT' || row.attempts !== 1)).toEqual([]);
    await Promise.all([a.stop(), b.stop()]);
  });

  it('leaves a notification its claimer died delivering to the other process once the lease runs out, and drops the late outcome', async () => {
    const { url, received } = await countingReceiver();
    const [first, second] = twoProcesses();
    let now = T0;
    const clock = () => now;
    // The first process claims n1 and then hangs mid-delivery: it never settles until the test lets it fail.
    let failLate!: (error: Error) => void;
    let reached!: () => void;
    const claimedByFirst = new Promise<void>((resolve) => (reached = resolve));
    const firstLog: string[] = [];
    const firstEvents: string[] = [];
    const firstStorage = storageOf(first);
    const dying = new Outbox(firstStorage, {
      pollMs: 60_000,
      leaseMs: 30_000,
      now: clock,
      log: (line) => firstLog.push(line),
      onDelivery: (event) => firstEvents.push(event.outcome),
      send: () =>
        new Promise((_resolve, reject) => {
          failLate = reject;
          reached();
        }),
    });
    const other = new Outbox(storageOf(second), { pollMs: 60_000, leaseMs: 30_000, now: clock, denyNetworks: [] });
    await enqueue(firstStorage, 'n1', url, now);
    dying.pump();
    await claimedByFirst;

    // Within the lease the other process finds nothing to claim.
    now = T0 + 29_999;
    await other.idle();
    expect(received.size).toBe(0);
    expect(rows(second)).toEqual([{ id: 'n1', delivery: 'PENDING', attempts: 0, last_error: null }]);

    // At the lease's end it claims and delivers it.
    now = T0 + 30_000;
    await other.idle();
    expect([...received.entries()]).toEqual([['n1', 1]]);
    expect(rows(second)).toEqual([{ id: 'n1', delivery: 'SENT', attempts: 1, last_error: null }]);

    // The first process's attempt ends late, failing: the port refuses its retry, which is dropped, not retried.
    failLate(new Error('connection reset'));
    await dying.idle();
    expect(firstLog).toEqual([
      'vigil server: notification n1 was taken over by another process while this one delivered it; this attempt\'s outcome (retrying) is dropped',
    ]);
    expect(firstEvents).toEqual([]);
    now = T0 + 60 * 60_000;
    dying.pump();
    await dying.idle();
    expect(rows(first)).toEqual([{ id: 'n1', delivery: 'SENT', attempts: 1, last_error: null }]);
    expect([...received.entries()]).toEqual([['n1', 1]]);
  });
});
