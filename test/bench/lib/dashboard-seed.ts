/**
 * The dashboard bench's data set, in two steps:
 * - through the API of a running service, what a user makes: the check whose page is measured, 20
 *   status-page services each with a linked check, a page showing them in two cards, and incidents;
 * - straight into the stopped service's store, what would otherwise take months of runs: 10,000
 *   checks in all with their statuses and six results each over the last day, a month of results
 *   at one a minute for the measured check, and 90 days of hourly results for the services' checks.
 *   Results are appended through the SQLite check-results port (`appendRun`, in units of work), the
 *   port the service stores runs by (rollups included), as the analytics bench seeds them.
 */
import { Store } from '../../../packages/server/src/store/index.js';
import type { CheckResultDocument, StoragePorts } from '../../../packages/server/src/store/ports.js';
import { sqlitePorts } from '../../../packages/server/src/store/sqlite/index.js';
import { writeCheckStatus } from '../../../packages/server/src/store/sqlite/check-statuses-port.js';
import { StatusTable } from '../../../packages/server/src/store/sqlite/statuses.js';
import { runnerLikeResult } from '../suites/analytics.js';

export const ACCOUNT = 'local';
export const API_KEY = 'vigil-local';
export const CHECKS = 10_000;
export const SERVICES = 20;
export const STATUS_PAGE_URL = 'bench';
export const MONTH_RESULTS = 43_200;
const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
const HISTORY_DAYS = 90;
const RESULTS_PER_LISTED_CHECK = 6;
const RUNS_PER_UNIT = 10_000;
/** Words the names are made of; searching for one matches every 25th check. */
export const NAME_WORDS = ['checkout', 'search', 'login', 'payments', 'catalog', 'cart', 'profile', 'orders', 'shipping', 'inventory', 'reviews', 'pricing', 'billing', 'auth', 'media', 'feeds', 'export', 'import', 'reports', 'admin', 'mobile', 'partners', 'webhooks', 'graphql', 'status'];
const REGIONS = ['eu-west', 'us-east', 'ap-south', 'sa-east'];

export interface ApiSeed {
  readonly chartedCheckId: string;
  readonly serviceCheckIds: readonly string[];
  /** The incident left open on the status page: the bench posts updates to it to make the page render afresh. */
  readonly openIncidentId: string;
}

async function created(baseUrl: string, path: string, body: unknown): Promise<{ id: string }> {
  const response = await fetch(`${baseUrl}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  if (response.status !== 201 && response.status !== 200) throw new Error(`POST ${path} answered ${response.status}: ${text.slice(0, 300)}`);
  return JSON.parse(text) as { id: string };
}

const apiCheck = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  frequency: 1,
  locations: ['eu-west-1', 'us-east-1'],
  request: { method: 'GET', url: 'http://127.0.0.1:40123/health', assertions: [{ source: 'STATUS_CODE', comparison: 'EQUALS', target: '200' }] },
  tags: ['bench'],
  ...extra,
});

export async function seedThroughApi(baseUrl: string): Promise<ApiSeed> {
  const charted = await created(baseUrl, '/v1/checks/api?autoAssignAlerts=false', apiCheck('Shop API (a month of results)'));
  const serviceIds: string[] = [];
  const serviceCheckIds: string[] = [];
  for (let index = 0; index < SERVICES; index++) {
    const service = await created(baseUrl, '/v1/status-pages/services', { name: `${NAME_WORDS[index]} service` });
    serviceIds.push(service.id);
    const check = await created(baseUrl, '/v1/checks/api?autoAssignAlerts=false', apiCheck(`${NAME_WORDS[index]} health`, { triggerIncident: { serviceId: service.id, name: 'Down', severity: 'MAJOR' } }));
    serviceCheckIds.push(check.id);
  }
  await created(baseUrl, '/v1/status-pages', {
    name: 'Bench status',
    url: STATUS_PAGE_URL,
    cards: [
      { name: 'Storefront', services: serviceIds.slice(0, SERVICES / 2).map((id) => ({ id })) },
      { name: 'Back office', services: serviceIds.slice(SERVICES / 2).map((id) => ({ id })) },
    ],
  });
  // Six incidents in the page's 14 days of history, each with three updates; the last one still open.
  let openIncidentId = '';
  for (let index = 0; index < 6; index++) {
    const incident = await created(baseUrl, '/v1/status-pages/incidents', {
      name: `Elevated errors on ${NAME_WORDS[index]}`,
      severity: index % 2 === 0 ? 'MAJOR' : 'MINOR',
      services: [{ id: serviceIds[index]! }, { id: serviceIds[index + 1]! }],
      incidentUpdates: [{ description: 'We are looking into reports of failed requests.', status: 'INVESTIGATING' }],
    });
    await created(baseUrl, `/v1/status-pages/incidents/${incident.id}/incident-updates`, { description: 'A database replica fell behind; traffic moved off it.', status: 'IDENTIFIED' });
    if (index < 5) await created(baseUrl, `/v1/status-pages/incidents/${incident.id}/incident-updates`, { description: 'Error rates are back to normal.', status: 'RESOLVED' });
    else openIncidentId = incident.id;
  }
  return { chartedCheckId: charted.id, serviceCheckIds, openIncidentId };
}

/** Runs of one try each, appended in order, RUNS_PER_UNIT to a unit of work: few commits, and no unit holding a whole step's savepoint. */
async function appendRuns(ports: StoragePorts, runs: readonly CheckResultDocument[]): Promise<void> {
  for (let start = 0; start < runs.length; start += RUNS_PER_UNIT) {
    await ports.transaction(async (tx) => {
      for (const run of runs.slice(start, start + RUNS_PER_UNIT)) await tx.checkResults.appendRun(ACCOUNT, [run]);
    });
  }
}

/** Writes the bulk of the data set into the store at `dataDir`; the service must be stopped. */
export async function seedStore(dataDir: string, seeded: ApiSeed, nowMs: number, log: (message: string) => void): Promise<void> {
  const store = new Store(dataDir);
  try {
    const ports = sqlitePorts(store);
    // Written as the check-statuses port writes them, synchronously, inside the seed's transactions.
    const statuses = new StatusTable(store.db);
    const groupIds: number[] = [];
    store.transaction(() => {
      for (let index = 0; index < 20; index++) groupIds.push(Number(store.checkGroups.insert(ACCOUNT, (id) => ({ id, name: `${NAME_WORDS[index]} team`, activated: true })).id));
    });

    const listed = CHECKS - 1 - SERVICES;
    log(`dashboard: storing ${listed.toLocaleString('en-US')} more checks (${CHECKS.toLocaleString('en-US')} in all), their statuses and ${RESULTS_PER_LISTED_CHECK} results each over the last day`);
    // The checks and statuses in one transaction of the store; their results after, through the port.
    const listedRuns: CheckResultDocument[] = [];
    store.transaction(() => {
      for (let index = 0; index < listed; index++) {
        const name = `${NAME_WORDS[index % NAME_WORDS.length]} ${REGIONS[index % REGIONS.length]} #${index}`;
        const check = store.checks.insert(ACCOUNT, (id) => ({
          id,
          name,
          checkType: index % 10 === 9 ? 'URL' : 'API',
          activated: index % 97 !== 0,
          frequency: 10,
          locations: ['eu-west-1'],
          tags: [`team-${index % 20}`, REGIONS[index % REGIONS.length]!],
          ...(index % 3 === 0 ? { groupId: groupIds[index % groupIds.length] } : {}),
        }));
        const checkId = String(check.id);
        // One check in a hundred has never run; of the rest 2 % fail now and 1 % are degraded.
        if (index % 100 === 99) continue;
        const failing = index % 50 === 7;
        const degraded = index % 100 === 13;
        let lastAt = nowMs;
        for (let run = RESULTS_PER_LISTED_CHECK - 1; run >= 0; run--) {
          lastAt = nowMs - run * 4 * HOUR_MS - (index % 60) * MINUTE_MS;
          const result = runnerLikeResult(checkId, lastAt, run === 0 && failing);
          listedRuns.push(run === 0 && degraded ? { ...result, isDegraded: true } : result);
        }
        writeCheckStatus(statuses, ACCOUNT, {
          name,
          checkId,
          hasFailures: failing,
          hasErrors: false,
          isDegraded: degraded,
          responseTime: 40 + (index % 80),
          runLocation: 'eu-west-1',
          checkRunId: Math.floor(lastAt / 1000),
          stoppedAt: new Date(lastAt).toISOString(),
        });
      }
    });
    await appendRuns(ports, listedRuns);

    log(`dashboard: storing ${MONTH_RESULTS.toLocaleString('en-US')} results of one check (one a minute for 30 days)`);
    const monthRuns: CheckResultDocument[] = [];
    for (let minute = MONTH_RESULTS - 1; minute >= 0; minute--) {
      monthRuns.push(runnerLikeResult(seeded.chartedCheckId, nowMs - minute * MINUTE_MS - 30_000, minute % 211 === 5));
    }
    await appendRuns(ports, monthRuns);

    log(`dashboard: storing ${HISTORY_DAYS} days of hourly results for each of the ${SERVICES} services' checks`);
    const historyRuns: CheckResultDocument[] = [];
    seeded.serviceCheckIds.forEach((checkId, service) => {
      for (let hour = HISTORY_DAYS * 24 - 1; hour >= 0; hour--) {
        // A bad hour now and then, different for each service, so the bars are not all 100 %.
        const failing = (hour * 7 + service * 13) % 173 === 0;
        historyRuns.push(runnerLikeResult(checkId, nowMs - hour * HOUR_MS - 90_000, failing));
      }
    });
    await appendRuns(ports, historyRuns);
  } finally {
    store.close();
  }
}
