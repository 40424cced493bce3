/** The metrics reads port, the same assertions on every engine (see engines.ts). */
import { describe, expect, it } from 'vitest';
import type { IncidentDocument } from '../incident-ports.js';
import type { FinalResultFacts, StatusBatch, StatusFields, StoragePorts } from '../ports.js';
import { enginesUnderTest, twoReplicas } from './engines.js';

const engines = enginesUnderTest();
const T0 = Date.UTC(2026, 10, 24, 8);

function final(checkId: string, at: number, failing = false): FinalResultFacts {
  return {
    name: `Check ${checkId}`, checkId, hasFailures: failing, hasErrors: false, isDegraded: false, responseTime: 40,
    runLocation: 'eu-west-1', checkRunId: Math.floor(at / 1000), stoppedAt: new Date(at).toISOString(),
  };
}

async function withChecks(ports: StoragePorts, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let index = 0; index < count; index++) ids.push(String((await ports.documents.insert('checks', 'acct', (id) => ({ id, name: `c${index}`, checkType: 'API' }))).id));
  return ids;
}

/**
 * What a reader keeps from the batches: per check, whether it failed and when it last ran. A full
 * batch replaces what was kept; a check handed over without a status is dropped.
 */
function keep(kept: Map<string, string>, batch: StatusBatch): Map<string, string> {
  if (batch.full) kept.clear();
  const shown = (status: StatusFields) => `${status.hasFailures === true ? 'failing' : 'passing'} ${String(status.updated_at)}`;
  for (const [checkId, status] of batch.statuses) {
    if (status === undefined) kept.delete(checkId);
    else kept.set(checkId, shown(status));
  }
  return kept;
}

const at = (offsetMs: number) => new Date(T0 + offsetMs).toISOString();

function incident(id: string, status: IncidentDocument['lastUpdateStatus']): IncidentDocument {
  return {
    id, name: `incident ${id}`, severity: 'MAJOR', serviceIds: ['s1'], lastUpdateStatus: status,
    incidentUpdates: [{ id: `${id}-u1`, description: 'looking', status, publicIncidentUpdateDate: at(0), notifySubscribers: false, created_at: at(0) }],
    created_at: at(0), updated_at: at(0),
  };
}

describe.each(engines)('metrics reads on $name', (engine) => {
  it("hands a follower every status of the account first, then what either replica wrote since, only the account's", async () => {
    const [a, b] = await twoReplicas(engine);
    const [one, two, three] = (await withChecks(a, 3)) as [string, string, string];
    await a.checkStatuses.record('acct', final(one, T0));
    await a.checkStatuses.record('acct', final(two, T0));
    await a.checkStatuses.record('other-acct', final(three, T0));
    const follower = a.metricsReads.followStatuses('acct');
    const first = await follower.next();
    expect(first.full).toBe(true);
    const kept = keep(new Map(), first);
    expect(kept).toEqual(new Map([[one, `passing ${at(0)}`], [two, `passing ${at(0)}`]]));

    await a.checkStatuses.record('acct', final(one, T0 + 60_000, true));
    expect(keep(kept, await follower.next())).toEqual(new Map([[one, `failing ${at(60_000)}`], [two, `passing ${at(0)}`]]));
    await b.checkStatuses.record('acct', final(three, T0 + 120_000));
    await b.checkStatuses.record('acct', final(two, T0 + 120_000, true));
    await b.checkStatuses.record('other-acct', final(one, T0 + 120_000, true));
    expect(keep(kept, await follower.next())).toEqual(
      new Map([[one, `failing ${at(60_000)}`], [two, `failing ${at(120_000)}`], [three, `passing ${at(120_000)}`]]),
    );
    follower.close();
  });

  it('hands over a status written by a unit still open at a read once that unit has committed', async () => {
    const [a, b] = await twoReplicas(engine);
    const [chk] = (await withChecks(a, 1)) as [string];
    await a.checkStatuses.record('acct', final(chk, T0));
    const follower = a.metricsReads.followStatuses('acct');
    const kept = keep(new Map(), await follower.next());
    let recorded!: () => void;
    const written = new Promise<void>((resolve) => (recorded = resolve));
    let commit!: () => void;
    const committing = new Promise<void>((resolve) => (commit = resolve));
    const unit = b.transaction(async (tx) => {
      await tx.checkStatuses.record('acct', final(chk, T0 + 60_000, true));
      recorded();
      await committing;
    });
    await written;
    expect(keep(kept, await follower.next())).toEqual(new Map([[chk, `passing ${at(0)}`]]));
    commit();
    await unit;
    expect(keep(kept, await follower.next())).toEqual(new Map([[chk, `failing ${at(60_000)}`]]));
  });

  it('never hands over a status as a unit that rolled back wrote it', async () => {
    const [a] = await twoReplicas(engine);
    const [chk] = (await withChecks(a, 1)) as [string];
    await a.checkStatuses.record('acct', final(chk, T0));
    const follower = a.metricsReads.followStatuses('acct');
    const kept = keep(new Map(), await follower.next());
    await expect(
      a.transaction(async (tx) => {
        await tx.checkStatuses.record('acct', final(chk, T0 + 60_000, true));
        throw new Error('the unit failed');
      }),
    ).rejects.toThrow('the unit failed');
    expect(keep(kept, await follower.next())).toEqual(new Map([[chk, `passing ${at(0)}`]]));
  });

  it('counts the incidents of each account asked for that are not resolved yet, in the order asked', async () => {
    const [a, b] = await twoReplicas(engine);
    await a.incidents.insert('acct', incident('open', 'INVESTIGATING'));
    await a.incidents.insert('acct', incident('monitoring', 'MONITORING'));
    await a.incidents.insert('acct', incident('resolved', 'RESOLVED'));
    await a.incidents.insert('other-acct', incident('elsewhere', 'IDENTIFIED'));
    expect(await b.metricsReads.openIncidents(['other-acct', 'acct', 'nobody'])).toEqual([1, 2, 0]);
    expect(await b.metricsReads.openIncidents([])).toEqual([]);
  });

  it('refuses an empty account id', async () => {
    const [a] = await twoReplicas(engine);
    expect(() => a.metricsReads.followStatuses('')).toThrow('accountId must be a string that is not empty, got ""');
    await expect(a.metricsReads.openIncidents(['acct', ''])).rejects.toThrow('accountId must be a string that is not empty, got ""');
  });
});
