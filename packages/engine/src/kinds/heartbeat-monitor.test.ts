import { HeartbeatCheckCreate } from '@vigil/schema';
import { describe, expect, it } from 'vitest';
import type { Code } from '../import/code.js';
import { planImport } from '../import/plan-import.js';
import { emptyState } from '../state/index.js';
import { heartbeatMonitorAdapter } from './heartbeat-monitor.js';
import { completeDesired, normalizeRemote } from './normalize.js';
import type { RemoteObject } from './types.js';

const heartbeat = { period: 5, periodUnit: 'minutes', grace: 30, graceUnit: 'seconds' };
const desired = completeDesired(heartbeatMonitorAdapter, HeartbeatCheckCreate.parse({ name: 'Nightly backup', heartbeat }) as Record<string, unknown>);

/** What the service answers: the create body plus what it fills in, among them the ping token. */
const remote: RemoteObject = {
  ...desired,
  id: 'c1',
  frequencyOffset: 7,
  created_at: '2026-11-24T00:00:00.000Z',
  updated_at: null,
  heartbeat: { ...heartbeat, pingToken: '6f1c8e52-0000-4000-8000-000000000001', pingUrl: 'https://ping.example/6f1c8e52' },
};

describe('heartbeat-monitor adapter', () => {
  it('compares a remote heartbeat without its ping token, so an applied heartbeat plans no change', () => {
    const normalized = normalizeRemote({ adapter: heartbeatMonitorAdapter, remote, managedKeys: Object.keys(desired), secretPaths: [], applied: undefined });
    expect(normalized).toEqual(desired);
    expect(JSON.stringify(normalized)).not.toContain('6f1c8e52');
  });

  it('imports the period and grace as props, and neither the token nor the settings a heartbeat ignores', () => {
    const result = planImport({
      candidates: [{ kind: 'heartbeat-monitor', remoteId: 'c1', remote: { ...remote, locations: ['eu-west-1'], frequency: 60 }, name: 'Nightly backup' }],
      state: emptyState({ project: 'jobs', target: { baseUrl: 'http://127.0.0.1:1', accountId: '' } }),
      projectAddresses: [],
      env: {},
      existingFiles: [],
    });
    const [resource] = result.resources;
    expect(resource).toMatchObject({ address: 'heartbeat-monitor.nightly-backup', construct: 'HeartbeatMonitor' });
    expect(propsOf(resource!.props)).toEqual({ name: 'Nightly backup', period: 5, periodUnit: 'minutes', grace: 30, graceUnit: 'seconds' });
    expect(JSON.stringify(resource!.applied)).not.toContain('6f1c8e52');
  });
});

function propsOf(code: Code): Record<string, unknown> {
  if (code.type !== 'object') throw new Error('expected an object');
  return Object.fromEntries(code.entries.map(([key, value]) => [key, value.type === 'literal' ? value.value : value.type]));
}
