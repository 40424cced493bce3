/**
 * The endpoints added for other clients of the real API (the Checkly CLI's reads), through our own
 * client: cursor paging of results, one result, one error group, batch analytics, runtimes, the
 * `/next/accounts` aliases, and incidents listed newest first and patched.
 */
import { NotFoundError } from '@vigil/client';
import { RUNTIME_IDS } from '@vigil/schema';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rejection, startService, type Service } from './service.js';

const CHECK = 'd0000000-0000-4000-8000-000000000001';
const results = Array.from({ length: 25 }, (_, index) => ({
  id: `result-${String(index).padStart(2, '0')}`,
  checkId: CHECK,
  created_at: `now-${index + 1}m`,
  runLocation: 'eu-west-1',
  responseTime: 100 + index,
  hasFailures: index === 3,
  apiCheckResult: { response: { status: index === 3 ? 500 : 200, statusText: 'OK', timingPhases: {} }, requestError: index === 3 ? 'Expected 200, got 500' : null },
}));
const SEED = {
  accounts: [{
    accountId: 'local',
    checks: [{ id: CHECK, checkType: 'API', name: 'Homepage', frequency: 1, request: { url: 'https://example.test/' } }],
    checkResults: results,
  }],
};

let service: Service;
beforeAll(async () => {
  service = await startService({ seed: SEED });
});
afterAll(() => service.close());

describe('reads for other clients, through the client', () => {
  it('pages every result newest first by cursor, and reads one of them', async () => {
    const client = service.client();
    const seen: string[] = [];
    let nextId: string | undefined;
    do {
      const page = await client.checkResults.pageNewestFirst(CHECK, { limit: 10, ...(nextId ? { nextId } : {}) });
      seen.push(...page.entries.map((entry) => entry.id!));
      nextId = page.nextId ?? undefined;
    } while (nextId);
    expect(seen).toEqual(results.map((result) => result.id));
    expect((await client.checkResults.get(CHECK, 'result-03')).hasFailures).toBe(true);
    expect(await rejection(client.checkResults.get(CHECK, 'nope'))).toBeInstanceOf(NotFoundError);
  });

  it('reads an error group by id and batch analytics of the check', async () => {
    const client = service.client();
    const [group] = await client.errorGroups.listForCheck(CHECK);
    expect((await client.errorGroups.get(group!.id)).cleanedErrorMessage).toBe(group!.cleanedErrorMessage);
    const [stats] = await client.analytics.checks([CHECK], { quickRange: 'last24Hours' });
    expect(stats).toMatchObject({ checkId: CHECK, checkType: 'API', availability: 96 });
  });

  it('lists runtimes and reads accounts under /next', async () => {
    const client = service.client();
    expect((await client.runtimes.list()).map((runtime) => runtime.name)).toEqual([...RUNTIME_IDS]);
    expect(await client.accounts.listNext()).toEqual(await client.accounts.list());
    expect((await client.accounts.getNext('local')).id).toBe('local');
  });

  it('lists incidents newest first and patches the severity alone', async () => {
    const client = service.client();
    const serviceId = (await client.statusPages.services.create({ name: 'Web' })).id;
    const first = await client.statusPages.incidents.create({ name: 'Older', severity: 'MINOR', services: [{ id: serviceId }] });
    await client.statusPages.incidents.create({ name: 'Newer', severity: 'MINOR', services: [{ id: serviceId }] });
    const page = await client.statusPages.incidents.list({ limit: 1 });
    expect(page.entries.map((incident) => incident.name)).toEqual(['Newer']);
    const rest = await client.statusPages.incidents.list({ limit: 1, nextId: page.nextId! });
    expect([rest.entries.map((incident) => incident.name), rest.nextId]).toEqual([['Older'], null]);
    const patched = await client.statusPages.incidents.patch(first.id, { severity: 'CRITICAL' });
    expect([patched.name, patched.severity]).toEqual(['Older', 'CRITICAL']);
  });
});
