import { afterEach, describe, expect, it } from 'vitest';
import { createApp, type ServiceApp } from '../app.js';
import type { RunJob } from '../scheduler/queue.js';
import { agentQueueOf, describeQueue, isPrivateRun, LocationRoutedQueue, privateLocationsOf, type LocalRunQueue } from './routing.js';

const services: ServiceApp[] = [];
afterEach(() => {
  for (const service of services.splice(0)) service.close();
});

/** The in-process queue's side as the routed queue sees it: what was submitted, and its gauges. */
function localQueue(): LocalRunQueue & { submitted: string[] } {
  const submitted: string[] = [];
  return { submitted, submit: (job: RunJob) => void submitted.push(job.slot.key), pending: 0, running: 2, waiting: 1, superseded: 3, drain: async () => undefined };
}

const job = (location: string, check: Record<string, unknown>, group?: Record<string, unknown>): RunJob => ({
  slot: { accountId: 'acme', checkId: 'c1', dueMs: 1000, location, key: `c1@1000@${location}` },
  check: { id: 'c1', name: 'Shop', checkType: 'API', ...check },
  ...(group ? { group } : {}),
});

describe('private locations in the run path', () => {
  it.each([
    ['the check’s own', { privateLocations: ['dc-1'] }, undefined, ['dc-1']],
    ['none when the check names public locations only', { locations: ['eu-west-1'] }, { privateLocations: ['dc-2'] }, []],
    ['the group’s when the check names no location', { locations: [] }, { privateLocations: ['dc-2'] }, ['dc-2']],
  ])('takes %s', (_name, check, group, expected) => {
    expect(privateLocationsOf(check, group)).toEqual(expected);
  });

  it('names a private location’s queue after its account, and a public one after the location', () => {
    expect(agentQueueOf({ accountId: 'acme', location: 'dc-1', check: { privateLocations: ['dc-1'] } })).toBe('dc-1@acme');
    expect(agentQueueOf({ accountId: 'acme', location: 'eu-west-1', check: { locations: ['eu-west-1'], privateLocations: ['dc-1'] } })).toBe('eu-west-1');
    expect(isPrivateRun({ accountId: 'acme', location: 'local', check: {} })).toBe(false);
    expect(describeQueue('dc-1@acme')).toBe('private location dc-1');
    expect(describeQueue('eu-west-1')).toBe('location eu-west-1');
  });

  it('never runs a private location in-process, even when every location is local, and counts agent runs in the gauges', () => {
    const service = createApp();
    services.push(service);
    const local = localQueue();
    const routed = new LocationRoutedQueue(local, service.agents.hub, { except: new Set() });
    routed.submit(job('eu-west-1', { locations: ['eu-west-1'], privateLocations: ['dc-1'] }));
    routed.submit(job('dc-1', { locations: ['eu-west-1'], privateLocations: ['dc-1'] }));
    expect(local.submitted).toEqual(['c1@1000@eu-west-1']);
    // One run waits for an agent of dc-1, beside the in-process queue's own.
    expect({ running: routed.running, waiting: routed.waiting, superseded: routed.superseded }).toEqual({ running: 2, waiting: 2, superseded: 3 });
  });
});
