/** The dashboard-reads port, the same assertions on every engine (see engines.ts). */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { IncidentDocument } from '../incident-ports.js';
import { StoreInputError } from '../port-rules.js';
import type { CheckResultDocument } from '../ports.js';
import { enginesUnderTest, twoReplicas } from './engines.js';

const engines = enginesUnderTest();
const HOUR = 3_600_000;
const T0 = Date.UTC(2026, 10, 24, 8);

function result(checkId: string, at: number, responseTime: number, failing = false): CheckResultDocument {
  return {
    id: randomUUID(), checkId, name: 'Homepage', hasFailures: failing, hasErrors: false, isDegraded: false,
    runLocation: at % 2 ? 'us-east-1' : 'eu-west-1', created_at: new Date(at).toISOString(), startedAt: new Date(at - 40).toISOString(),
    resultType: 'FINAL', attempts: 1, responseTime,
    apiCheckResult: { response: { status: failing ? 500 : 200, body: 'ok', timingPhases: { wait: 0, dns: 1, tcp: 2, firstByte: 30, download: 1, total: 34 } }, requestError: null },
  };
}

function incident(id: string, status: IncidentDocument['lastUpdateStatus'], serviceIds: string[]): IncidentDocument {
  return {
    id, name: `incident ${id}`, severity: 'MAJOR', serviceIds, lastUpdateStatus: status,
    incidentUpdates: [{ id: `${id}-u1`, description: 'looking', status, publicIncidentUpdateDate: '2024-05-01T00:00:00.000Z', notifySubscribers: false, created_at: '2024-05-01T00:00:00.000Z' }],
    created_at: '2024-05-01T00:00:00.000Z', updated_at: '2024-05-01T00:00:00.000Z',
  } as IncidentDocument;
}

describe.each(engines)('dashboard reads on $name', (engine) => {
  it("reads a page of checks' statuses and hourly totals in one call, of the account only", async () => {
    const [a, b] = await twoReplicas(engine);
    const final = (checkId: string, hasFailures: boolean) => ({ name: 'r', checkId, hasFailures, hasErrors: false, isDegraded: false, responseTime: 10, runLocation: 'eu-west-1', checkRunId: null, stoppedAt: null });
    await a.checkStatuses.record('acc', final('c1', false));
    await a.checkStatuses.record('acc', final('c2', true));
    await a.checkStatuses.record('other', final('c3', false));
    const statuses = await b.dashboardReads.statusesOf('acc', ['c1', 'c2', 'c3', 'never']);
    expect([...statuses.keys()].sort()).toEqual(['c1', 'c2']);
    expect(statuses.get('c2')).toMatchObject({ checkId: 'c2', hasFailures: true });
    expect(await b.dashboardReads.statusesOf('acc', [])).toEqual(new Map());

    await a.checkResults.appendRun('acc', [result('c1', T0 + 1, 100)]);
    await a.checkResults.appendRun('acc', [result('c1', T0 + 2, 300, true)]);
    await a.checkResults.appendRun('acc', [result('c1', T0 + HOUR + 5, 50)]);
    await a.checkResults.appendRun('acc', [result('c2', T0 + 5, 70)]);
    await a.checkResults.appendRun('other', [result('c1', T0 + 7, 9)]);
    const hourly = await b.dashboardReads.hourlyOf('acc', ['c1', 'c2'], T0, T0 + 2 * HOUR);
    expect(hourly.filter((row) => row.checkId === 'c1')).toEqual([
      { checkId: 'c1', startMs: T0, rtSum: 400, rtCount: 2, results: 2, failures: 1 },
      { checkId: 'c1', startMs: T0 + HOUR, rtSum: 50, rtCount: 1, results: 1, failures: 0 },
    ]);
    expect(hourly.filter((row) => row.checkId === 'c2')).toEqual([{ checkId: 'c2', startMs: T0, rtSum: 70, rtCount: 1, results: 1, failures: 0 }]);
    expect(await b.dashboardReads.hourlyOf('acc', ['c1'], T0 + HOUR, T0 + HOUR)).toEqual([]);
  });

  it('pages incidents newest first, narrowed to open or resolved ones, and finds those of a service', async () => {
    const [a, b] = await twoReplicas(engine);
    await a.incidents.insert('acc', incident('i1', 'RESOLVED', ['s1']));
    await a.incidents.insert('acc', incident('i2', 'INVESTIGATING', ['s1', 's2']));
    await a.incidents.insert('acc', incident('i3', 'MONITORING', ['s2']));
    await a.incidents.insert('other', incident('i4', 'INVESTIGATING', ['s1']));
    const ids = (page: { items: IncidentDocument[]; total: number }) => [page.items.map((item) => item.id), page.total];
    expect(ids(await b.dashboardReads.incidentPage('acc', undefined, { limit: 2, offset: 0 }))).toEqual([['i3', 'i2'], 3]);
    expect(ids(await b.dashboardReads.incidentPage('acc', undefined, { limit: 2, offset: 2 }))).toEqual([['i1'], 3]);
    expect(ids(await b.dashboardReads.incidentPage('acc', false, { limit: 10, offset: 0 }))).toEqual([['i3', 'i2'], 2]);
    expect(ids(await b.dashboardReads.incidentPage('acc', true, { limit: 10, offset: 0 }))).toEqual([['i1'], 1]);
    // The status a replace moves is the one the page narrows by.
    await a.incidents.replace('acc', incident('i3', 'RESOLVED', ['s2']));
    expect(ids(await b.dashboardReads.incidentPage('acc', true, { limit: 10, offset: 0 }))).toEqual([['i3', 'i1'], 2]);
    expect((await b.dashboardReads.incidentsOfService('acc', 's1', 10)).map((item) => item.id)).toEqual(['i2', 'i1']);
    expect((await b.dashboardReads.incidentsOfService('acc', 's2', 1)).map((item) => item.id)).toEqual(['i3']);
    expect(await b.dashboardReads.incidentsOfService('acc', 's9', 10)).toEqual([]);
  });

  it("lists the resources of one kind in the account's project states, with their remote ids as text", async () => {
    const [a, b] = await twoReplicas(engine);
    const doc = (resources: unknown) => ({ lineage: 'l', serial: 1, doc: JSON.stringify({ version: 1, resources }) });
    await a.projectStates.put('acc', 'web', doc({ 'alert-channel:ops': { kind: 'alert-channel', remoteId: 7 }, 'check:home': { kind: 'check', remoteId: 'abc' } }), 1_000);
    await a.projectStates.put('acc', 'api', doc({ 'alert-channel:dev': { kind: 'alert-channel' } }), 1_000);
    await a.projectStates.put('acc', 'odd', doc(['not', 'an', 'object']), 1_000);
    await a.projectStates.put('other', 'web', doc({ 'alert-channel:theirs': { kind: 'alert-channel', remoteId: 9 } }), 1_000);
    const found = await b.dashboardReads.stateResourcesOfKind('acc', 'alert-channel');
    expect([...found].sort((x, y) => x.address.localeCompare(y.address))).toEqual([
      { project: 'api', address: 'alert-channel:dev', remoteId: null },
      { project: 'web', address: 'alert-channel:ops', remoteId: '7' },
    ]);
    expect(await b.dashboardReads.stateResourcesOfKind('acc', 'check')).toEqual([{ project: 'web', address: 'check:home', remoteId: 'abc' }]);
  });

  it('refuses input it could not key', async () => {
    const [a] = await twoReplicas(engine);
    await expect(a.dashboardReads.statusesOf('', [])).rejects.toThrow(new StoreInputError('accountId must be a string that is not empty, got ""'));
    await expect(a.dashboardReads.hourlyOf('acc', ['c1'], 5, 4)).rejects.toThrow(
      new StoreInputError('an hour range is two whole milliseconds from 1970 on, the first not after the second, got 5 and 4'),
    );
    await expect(a.dashboardReads.incidentPage('acc', undefined, { limit: 10, offset: -1 })).rejects.toThrow(new StoreInputError('offset must be a whole number of 0 or more, got -1'));
    await expect(a.dashboardReads.statusesOf('acc', Array.from({ length: 1001 }, (_, i) => `c${i}`))).rejects.toThrow(new StoreInputError('checkIds must be a list of at most 1000 ids'));
  });
});
