import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Store } from '../store/index.js';
import type { AlertContext } from './channels.js';
import { Outbox, type NotificationDoc } from './outbox.js';

const cleanups: Array<() => void | Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function storeWithTables(file?: string): Store {
  const store = new Store(file ? { file } : ':memory:');
  cleanups.push(() => store.close());
  return store;
}

function enqueue(outbox: Outbox, id: string, url: string): void {
  const context = { notificationId: id, alertType: 'ALERT_FAILURE', checkId: 'c1', checkName: 'Shop' } as unknown as AlertContext;
  const doc: NotificationDoc = { context, alertConfig: { url }, checkAlertId: 'a1' };
  outbox.enqueue('acct', { id, checkId: 'c1', alertChannelId: 1, channelType: 'WEBHOOK', alertType: 'ALERT_FAILURE', doc });
}

function rows(store: Store) {
  return store.db.prepare('SELECT id, delivery, attempts, last_error FROM alert_notifications ORDER BY seq').all();
}

describe('Outbox.stop', () => {
  it('aborts a delivery still going at the deadline and leaves its row PENDING, untouched, for the next start', async () => {
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
    const outbox = new Outbox(store, { pollMs: 60_000, timeoutMs: 60_000, denyNetworks: [] });
    enqueue(outbox, 'n1', url);
    const reached = new Promise<void>((resolve) => receiver.once('request', () => resolve()));
    outbox.start();
    await reached;
    await outbox.stop(20);
    // Closed right after the stop, as the service does.
    store.close();
    // Not counted as an attempt: the receiver did nothing wrong, the service went away.
    expect(rows(storeWithTables(file))).toEqual([{ id: 'n1', delivery: 'PENDING', attempts: 0, last_error: null }]);
  });

  it('records an attempt that ends within the deadline', async () => {
    const store = storeWithTables();
    let answer!: () => void;
    const outbox = new Outbox(store, {
      pollMs: 60_000,
      send: () => new Promise((resolve) => (answer = () => resolve({ kind: 'sent', result: '204' }))),
    });
    enqueue(outbox, 'n1', 'http://127.0.0.1:1/hook');
    outbox.start();
    const stopped = outbox.stop(60_000);
    answer();
    await stopped;
    expect(rows(store)).toEqual([{ id: 'n1', delivery: 'SENT', attempts: 1, last_error: null }]);
  });

  it('starts no attempt after the stop and leaves the rows enqueued meanwhile PENDING', async () => {
    const store = storeWithTables();
    const sent: string[] = [];
    const outbox = new Outbox(store, { pollMs: 60_000, send: async (_type, _config, context) => (sent.push(context.notificationId), { kind: 'sent', result: '204' }) });
    outbox.start();
    await outbox.stop(60_000);
    enqueue(outbox, 'n1', 'http://127.0.0.1:1/hook');
    outbox.pump();
    expect(sent).toEqual([]);
    expect(rows(store)).toEqual([{ id: 'n1', delivery: 'PENDING', attempts: 0, last_error: null }]);
  });
});
