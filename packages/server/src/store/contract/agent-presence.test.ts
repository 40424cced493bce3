/** The agent-presence port, the same assertions on every engine (see engines.ts), with replicas writing one agent's sightings. */
import { describe, expect, it } from 'vitest';
import type { AgentSighting } from '../agent-ports.js';
import { enginesUnderTest, twoReplicas } from './engines.js';

const engines = enginesUnderTest();

function sighting(agentId: string, lastSeenMs: number, overrides: Partial<AgentSighting> = {}): AgentSighting {
  return { agentId, queue: 'eu-west-1', location: 'eu-west-1', agentVersion: '1.0.0', wireVersion: 1, runsInFlight: 0, lastSeenMs, ...overrides };
}

const privateAgent = (agentId: string, lastSeenMs: number, keyId = 'key-1'): AgentSighting =>
  sighting(agentId, lastSeenMs, { queue: 'dc-1@acme', location: 'dc-1', privateLocation: { accountId: 'acme', id: 'pl-1', keyId } });

describe.each(engines)('agent presence on $name', (engine) => {
  it('lists what each agent last said, whichever replica heard it, and keeps the newest sighting of writes landing out of order', async () => {
    const [a, b] = await twoReplicas(engine);
    await a.agentPresence.seen(sighting('agent-1', 2000, { runsInFlight: 2, agentVersion: '1.1.0' }));
    await b.agentPresence.seen(sighting('agent-1', 1500, { runsInFlight: 5 }));
    await b.agentPresence.seen(sighting('agent-2', 1000, { queue: 'us-east-1', location: 'us-east-1' }));
    const listed = await b.agentPresence.list(undefined);
    expect(listed.sort((x, y) => x.agentId.localeCompare(y.agentId))).toEqual([
      { ...sighting('agent-1', 2000, { runsInFlight: 2, agentVersion: '1.1.0' }), keyHeld: true },
      { ...sighting('agent-2', 1000, { queue: 'us-east-1', location: 'us-east-1' }), keyHeld: true },
    ]);
  });

  it('moves an agent\'s last sighting on a report, never backwards, and ignores a report of an agent it never heard from', async () => {
    const [a, b] = await twoReplicas(engine);
    await a.agentPresence.seen(sighting('agent-1', 2000));
    await b.agentPresence.touch('eu-west-1', 'agent-1', 2500);
    await b.agentPresence.touch('eu-west-1', 'agent-1', 2400);
    await b.agentPresence.touch('eu-west-1', 'agent-9', 2500);
    expect((await a.agentPresence.list(undefined)).map((agent) => [agent.agentId, agent.lastSeenMs])).toEqual([['agent-1', 2500]]);
  });

  it('answers which queues have an agent heard from after a moment', async () => {
    const [a, b] = await twoReplicas(engine);
    await a.agentPresence.seen(sighting('agent-1', 2000));
    await a.agentPresence.seen(sighting('agent-2', 1000, { queue: 'us-east-1', location: 'us-east-1' }));
    expect(await b.agentPresence.liveQueues(['eu-west-1', 'us-east-1', 'ap-south-1'], 1000)).toEqual(['eu-west-1']);
    expect(await b.agentPresence.liveQueues(['eu-west-1', 'us-east-1'], 999)).toEqual(['eu-west-1', 'us-east-1']);
    expect(await b.agentPresence.liveQueues(['eu-west-1'], 2000)).toEqual([]);
    expect(await b.agentPresence.liveQueues([], 0)).toEqual([]);
  });

  it('lists a private location\'s agents to its account only, and counts one live only while its key exists', async () => {
    const [a, b] = await twoReplicas(engine);
    await a.privateLocations.insert('acme', { id: 'pl-1', slugName: 'dc-1' });
    await a.privateLocations.addKey('acme', { id: 'key-1', privateLocationId: 'pl-1', maskedKey: '...0001', createdAt: '2026-11-28T00:00:00.000Z' }, new Uint8Array(32).fill(1));
    await a.agentPresence.seen(privateAgent('office-1', 2000));
    await a.agentPresence.seen(sighting('agent-1', 2000));
    expect((await b.agentPresence.list(undefined)).map((agent) => agent.agentId)).toEqual(['agent-1']);
    expect((await b.agentPresence.list('globex')).map((agent) => agent.agentId)).toEqual(['agent-1']);
    const acme = await b.agentPresence.list('acme');
    expect(acme.find((agent) => agent.agentId === 'office-1')).toEqual({ ...privateAgent('office-1', 2000), keyHeld: true });
    expect(await b.agentPresence.liveQueues(['dc-1@acme'], 1000)).toEqual(['dc-1@acme']);
    expect(await b.agentPresence.holdersOfKey('key-1')).toEqual([{ agentId: 'office-1', queue: 'dc-1@acme' }]);

    expect(await a.privateLocations.removeKey('acme', 'pl-1', 'key-1')).toBe(true);
    expect(await b.agentPresence.liveQueues(['dc-1@acme'], 1000)).toEqual([]);
    expect((await b.agentPresence.list('acme')).find((agent) => agent.agentId === 'office-1')).toMatchObject({ keyHeld: false });
    // The agent's holders stay known after the revoke, so its runs can be freed on every replica.
    expect(await b.agentPresence.holdersOfKey('key-1')).toEqual([{ agentId: 'office-1', queue: 'dc-1@acme' }]);
    // Polling with another good key, it is live again.
    await a.privateLocations.addKey('acme', { id: 'key-2', privateLocationId: 'pl-1', maskedKey: '...0002', createdAt: '2026-11-28T00:00:00.000Z' }, new Uint8Array(32).fill(2));
    await b.agentPresence.seen(privateAgent('office-1', 3000, 'key-2'));
    expect(await a.agentPresence.liveQueues(['dc-1@acme'], 1000)).toEqual(['dc-1@acme']);
  });

  it('forgets agents last heard from before a moment', async () => {
    const [a] = await twoReplicas(engine);
    await a.agentPresence.seen(sighting('agent-1', 1000));
    await a.agentPresence.seen(sighting('agent-2', 2000));
    expect(await a.agentPresence.prune(2000)).toBe(1);
    expect((await a.agentPresence.list(undefined)).map((agent) => agent.agentId)).toEqual(['agent-2']);
  });

  it('refuses input the engines could not store', async () => {
    const [{ agentPresence }] = await twoReplicas(engine);
    await expect(agentPresence.seen(sighting('', 1000))).rejects.toThrow('agentId must be a string of 1 to 1000 characters, got ""');
    await expect(agentPresence.seen(sighting('agent-1', 1.5))).rejects.toThrow('lastSeenMs must be a whole number of milliseconds since the epoch, got 1.5');
    await expect(agentPresence.seen(sighting('agent-1', 1000, { runsInFlight: -1 }))).rejects.toThrow('runsInFlight must be a whole number of at least 0, got -1');
    await expect(agentPresence.seen(sighting('agent-1', 1000, { wireVersion: 0.5 }))).rejects.toThrow('wireVersion must be a whole number of at least 0, got 0.5');
    await expect(agentPresence.seen(privateAgent('office-1', 1000, ''))).rejects.toThrow('keyId must be a string of 1 to 255 characters, got ""');
    await expect(agentPresence.touch('eu-west-1', 'agent-1', -1)).rejects.toThrow('nowMs must be a whole number of milliseconds since the epoch, got -1');
    await expect(agentPresence.liveQueues([''], 0)).rejects.toThrow('queue must be a string of 1 to 1000 characters, got ""');
    await expect(agentPresence.liveQueues(['eu-west-1'], Number.NaN)).rejects.toThrow('seenAfterMs must be a whole number of milliseconds since the epoch, got NaN');
    await expect(agentPresence.holdersOfKey('')).rejects.toThrow('keyId must be a string of 1 to 255 characters, got ""');
    await expect(agentPresence.prune(-5)).rejects.toThrow('seenBeforeMs must be a whole number of milliseconds since the epoch, got -5');
  });
});
