import { afterEach, describe, expect, it } from 'vitest';
import { Store } from '../index.js';
import { AlertStateTable } from './alerting.js';
import { sqlitePorts } from './index.js';

const stores: Store[] = [];
afterEach(() => stores.splice(0).forEach((store) => store.close()));

describe('alert states written by the in-process alerting', () => {
  it('move the version the port compares, so a transition from a state read before the write is refused', async () => {
    const store = new Store(':memory:');
    stores.push(store);
    const table = new AlertStateTable(store.db);
    const ports = sqlitePorts(store);
    table.put('acc', 'check-1', '{"status":"passing"}');
    const read = await ports.alertStates.read('acc', 'check-1');
    expect(read).toEqual({ state: '{"status":"passing"}', version: 1 });
    table.put('acc', 'check-1', '{"status":"failing"}');
    expect(table.get('acc', 'check-1')).toBe('{"status":"failing"}');
    expect(await ports.alertStates.transition('acc', 'check-1', read!.version, '{"status":"degraded"}', [], 0)).toBe(false);
    expect(await ports.alertStates.read('acc', 'check-1')).toEqual({ state: '{"status":"failing"}', version: 2 });
  });
});

describe('writes alongside a transition', () => {
  it('run in its transaction once the state moved, and a throw takes the state and its notifications back', async () => {
    const store = new Store(':memory:');
    stores.push(store);
    const ports = sqlitePorts(store);
    const notification = { id: 'n-1', accountId: 'acc', checkId: 'check-1', alertChannelId: 1, channelType: 'WEBHOOK', alertType: 'ALERT_FAILURE', doc: '{}' };
    const ran: boolean[] = [];
    expect(await ports.alertStates.transition('acc', 'check-1', 0, '{"status":"failing"}', [notification], 0, () => ran.push(store.db.inTransaction))).toBe(true);
    expect(ran).toEqual([true]);
    // A lost compare-and-set runs nothing alongside.
    expect(await ports.alertStates.transition('acc', 'check-1', 0, '{"status":"passing"}', [], 0, () => ran.push(true))).toBe(false);
    expect(ran).toEqual([true]);
    const failing = () => {
      throw new Error('incident write failed');
    };
    await expect(ports.alertStates.transition('acc', 'check-1', 1, '{"status":"passing"}', [{ ...notification, id: 'n-2' }], 0, failing)).rejects.toThrow('incident write failed');
    expect(await ports.alertStates.read('acc', 'check-1')).toEqual({ state: '{"status":"failing"}', version: 1 });
    expect(await ports.outbox.find('n-2')).toBeUndefined();
  });
});
