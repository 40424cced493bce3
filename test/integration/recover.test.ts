import { randomUUID } from 'node:crypto';
import { CheckGroupCreate } from '@vigil/schema';
import { StateWriter, adapterFor, beginOperation, desiredResourceOf, emptyState, newJournalEntry, recoverJournal } from '@vigil/engine';
import type { RunningServer } from '@vigil/server';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MemoryLock, TARGET, callsFor, planFor, spec, startService } from './support.js';

let server: RunningServer;
beforeEach(async () => {
  server = await startService();
});
afterEach(async () => {
  await server.close();
});

const group = spec('check-group', 'web', CheckGroupCreate.parse({ name: 'Web' }));

/** State as an apply leaves it when killed after a create's response but before recording it. */
async function interruptedCreate(options: { sent: boolean }) {
  const calls = callsFor(server);
  const key = randomUUID();
  if (options.sent) await adapterFor('check-group').create(calls, desiredResourceOf(group).payload, { idempotencyKey: key });
  const entry = newJournalEntry({ operation: 'create', address: group.address, kind: 'check-group', idempotencyKey: key, name: 'Web' });
  const state = beginOperation(emptyState({ project: 'test', target: TARGET }), entry);
  return { calls, writer: new StateWriter(new MemoryLock(), state) };
}

async function groupCount(): Promise<number> {
  const response = await fetch(`${server.url}/v1/check-groups`, { headers: { authorization: 'Bearer vigil-local' } });
  return ((await response.json()) as unknown[]).length;
}

describe('recovering an interrupted create', () => {
  it('adopts the resource the first call created, through its Idempotency-Key', async () => {
    const { calls, writer } = await interruptedCreate({ sent: true });
    const outcomes = await recoverJournal({ api: calls, writer, desired: new Map([[group.address, desiredResourceOf(group)]]) });
    expect(outcomes.map((o) => o.outcome)).toEqual([expect.stringMatching(/^adopted \d+$/)]);
    expect(writer.document.journal).toEqual([]);
    expect(await groupCount()).toBe(1);
    const { plan } = await planFor(calls, [group], writer.document);
    expect(plan.changes.map((change) => change.action)).toEqual(['noop']);
  });

  it('creates it now when the first call never arrived, still exactly once', async () => {
    const { calls, writer } = await interruptedCreate({ sent: false });
    await recoverJournal({ api: calls, writer, desired: new Map([[group.address, desiredResourceOf(group)]]) });
    expect(await groupCount()).toBe(1);
    expect(writer.document.resources[group.address]).toBeDefined();
  });

  it('finds it by name when the resource has left the code, so the plan can delete it', async () => {
    const { calls, writer } = await interruptedCreate({ sent: true });
    const outcomes = await recoverJournal({ api: calls, writer, desired: new Map() });
    expect(outcomes.map((o) => o.outcome)).toEqual([expect.stringMatching(/^adopted \d+$/)]);
    const { plan } = await planFor(calls, [], writer.document);
    expect(plan.changes.map((change) => [change.address, change.action])).toEqual([[group.address, 'delete']]);
  });

  it('drops an interrupted update; the fresh plan repeats it', async () => {
    const calls = callsFor(server);
    const entry = newJournalEntry({ operation: 'update', address: group.address, kind: 'check-group', remoteId: 1 });
    const writer = new StateWriter(new MemoryLock(), beginOperation(emptyState({ project: 'test', target: TARGET }), entry));
    const outcomes = await recoverJournal({ api: calls, writer, desired: new Map() });
    expect(outcomes.map((o) => o.outcome)).toEqual(['dropped; the plan repeats it if still needed']);
    expect(writer.document.journal).toEqual([]);
  });
});
