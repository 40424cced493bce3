/**
 * The read-only endpoints (check results, heartbeat events, analytics, error groups, subscriptions,
 * accounts) through the client, against a server seeded with runs from the last hours.
 */
import { NotFoundError, ValidationError } from '@vigil/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collect, rejection, startService, type Service } from './service.js';

const IDS = {
  api: 'c0000000-0000-4000-8000-000000000001',
  tcp: 'c0000000-0000-4000-8000-000000000002',
  multiStep: 'c0000000-0000-4000-8000-000000000003',
  heartbeat: 'c0000000-0000-4000-8000-000000000004',
  statusPage: 'sp-local',
};

const timings = { wait: 5, dns: 10, tcp: 20, firstByte: 50, download: 15 };

/** 120 API results over the last two hours (every 10th failing), so paging and errors have material. */
const apiResults = Array.from({ length: 120 }, (_, index) => ({
  id: `api-result-${index}`,
  checkId: IDS.api,
  created_at: `now-${index + 1}m`,
  runLocation: index % 2 === 0 ? 'eu-west-1' : 'us-east-1',
  responseTime: 100 + index,
  hasFailures: index % 10 === 0,
  apiCheckResult: {
    response: { status: index % 10 === 0 ? 503 : 200, statusText: 'OK', timingPhases: timings },
    requestError: index % 10 === 0 ? `connect ETIMEDOUT 10.0.0.${index % 7}:443 after ${4000 + index}ms` : null,
  },
}));

const SEED = {
  accounts: [
    {
      accountId: 'local',
      profile: { name: 'Local account', runtimeId: '2025.04' },
      checks: [
        { id: IDS.api, checkType: 'API', name: 'Homepage', frequency: 1, request: { url: 'https://example.test/' } },
        {
          id: IDS.tcp,
          checkType: 'TCP',
          name: 'Database port',
          frequency: 1,
          request: { hostname: 'db.example.test', port: 5432 },
        },
        { id: IDS.multiStep, checkType: 'MULTI_STEP', name: 'Checkout', frequency: 5, script: 'export default async () => {}' },
        {
          id: IDS.heartbeat,
          checkType: 'HEARTBEAT',
          name: 'Nightly backup',
          frequency: 1440,
          heartbeat: { period: 1, periodUnit: 'days', grace: 1, graceUnit: 'hours' },
        },
      ],
      checkResults: [
        ...apiResults,
        { checkId: IDS.tcp, created_at: 'now-10m', runLocation: 'eu-west-1', responseTime: 30 },
        { checkId: IDS.multiStep, created_at: 'now-20m', runLocation: 'eu-west-1', responseTime: 900, multiStepCheckResult: {} },
      ],
      heartbeatEvents: [
        { checkId: IDS.heartbeat, state: 'RECEIVED', timestamp: 'now-2h', source: 'curl' },
        { checkId: IDS.heartbeat, state: 'FAILING', timestamp: 'now-1h', source: 'curl' },
      ],
      statusPages: [{ id: IDS.statusPage, name: 'Public status', subscriptions: [{ address: 'fan@example.test' }, { address: 'ops@example.test', status: 'PENDING' }] }],
    },
  ],
};

let service: Service;
beforeAll(async () => {
  service = await startService({ seed: SEED });
});
afterAll(() => service.close());

describe('check results', () => {
  it('reads one page and every page of the last six hours', async () => {
    const client = service.client();
    const page = await client.checkResults.list(IDS.api, { limit: 5 });
    expect(page).toHaveLength(5);
    expect(page[0]).toMatchObject({ checkId: IDS.api, name: 'Homepage', resultType: 'FINAL' });
    const all = await collect(client.checkResults.listAll(IDS.api));
    expect(all).toHaveLength(120);
    expect(new Set(all.map((result) => result.id)).size).toBe(120);
  });

  it('filters on failures', async () => {
    const failing = await collect(service.client().checkResults.listAll(IDS.api, { hasFailures: true }));
    expect(failing).toHaveLength(12);
    expect(failing.every((result) => result.hasFailures)).toBe(true);
  });
});

describe('heartbeat events', () => {
  it("reads a heartbeat check's events with their stats", async () => {
    const client = service.client();
    const records = await client.heartbeats.listEvents(IDS.heartbeat);
    const events = records.flatMap((record) => record.events);
    expect(events.map((event) => event.state).sort()).toEqual(['FAILING', 'RECEIVED']);
    expect(records[0]?.stats.last24Hours).toEqual(expect.objectContaining({ totalEntitiesCurrentPeriod: expect.any(Number) }));
    const all = await collect(client.heartbeats.listAllEvents(IDS.heartbeat));
    expect(all.flatMap((record) => record.events)).toHaveLength(2);
  });

  it('refuses a page larger than the heartbeat maximum of 10', async () => {
    const error = await rejection(service.client().heartbeats.listEvents(IDS.heartbeat, { limit: 11 }));
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).keys).toEqual(['limit']);
  });
});

describe('analytics', () => {
  it('reports API check metrics grouped by location, metrics sent comma-separated', async () => {
    const report = await service.client().analytics.apiChecks(IDS.api, { metrics: ['responseTime_avg', 'availability'], groupBy: 'runLocation' });
    expect(report).toMatchObject({ checkId: IDS.api, checkType: 'API', name: 'Homepage' });
    expect(Object.keys(report.metadata).sort()).toEqual(['availability', 'responseTime_avg']);
    expect(report.series.map((series) => series.runLocation).sort()).toEqual(['eu-west-1', 'us-east-1']);
  });

  it('reports TCP and multi-step check metrics', async () => {
    const client = service.client();
    const tcp = await client.analytics.tcpChecks(IDS.tcp, { metrics: ['total_avg'] });
    expect(tcp).toMatchObject({ checkId: IDS.tcp, checkType: 'TCP' });
    const multiStep = await client.analytics.multiStepChecks(IDS.multiStep, { metrics: ['responseTime_p95'], quickRange: 'last7Days' });
    expect(multiStep).toMatchObject({ checkId: IDS.multiStep, checkType: 'MULTI_STEP' });
  });

  it('refuses a metric the endpoint does not know, naming the parameter', async () => {
    const error = await rejection(service.client().analytics.tcpChecks(IDS.tcp, { metrics: ['firstByte' as never] }));
    expect(error).toBeInstanceOf(ValidationError);
    expect(error).toMatchObject({ source: 'query' });
    expect((error as ValidationError).keys[0]).toMatch(/^metrics/);
  });
});

describe('error groups', () => {
  it('groups the failures of a check by cleaned message and archives one', async () => {
    const client = service.client();
    const groups = await collect(client.errorGroups.listAllForCheck(IDS.api));
    expect(groups).toHaveLength(1);
    expect(groups[0]).toMatchObject({ checkId: IDS.api, archivedUntilNextEvent: false });
    expect(await client.errorGroups.listForCheck(IDS.api)).toHaveLength(1);
    const archived = await client.errorGroups.patch(groups[0]!.id, { archivedUntilNextEvent: true });
    expect(archived).toMatchObject({ id: groups[0]!.id, archivedUntilNextEvent: true });
  });
});

describe('status-page subscriptions', () => {
  it('lists the subscriptions of a status page', async () => {
    const client = service.client();
    const subscriptions = await client.statusPages.subscriptions.list(IDS.statusPage);
    expect(subscriptions.map((each) => [each.address, each.status]).sort()).toEqual([
      ['fan@example.test', 'VERIFIED'],
      ['ops@example.test', 'PENDING'],
    ]);
    expect(await collect(client.statusPages.subscriptions.listAll(IDS.statusPage))).toHaveLength(2);
  });
});

describe('accounts', () => {
  it('lists the accounts of the key and reads one', async () => {
    const client = service.client();
    expect(await client.accounts.list()).toEqual([expect.objectContaining({ id: 'local', name: 'Local account', runtimeId: '2025.04' })]);
    expect(await client.accounts.get('local')).toMatchObject({ id: 'local' });
    expect(await rejection(client.accounts.get('someone-else'))).toBeInstanceOf(NotFoundError);
  });
});
