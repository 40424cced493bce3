import { afterEach, describe, expect, it } from 'vitest';
import { Store } from '../index.js';
import { sqlitePorts } from './index.js';

const stores: Store[] = [];
afterEach(() => stores.splice(0).forEach((store) => store.close()));

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
