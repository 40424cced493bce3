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
