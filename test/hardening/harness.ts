/**
 * Shared setup of the hardening suites: a real `@vigil/server` on a loopback port with an on-disk
 * database (so `PRAGMA integrity_check` can run after it closes), two tenants, the read-side seed
 * fixture, and one resource of every kind per tenant. Requests are plain `fetch` on purpose: the
 * suites test the service's HTTP surface, not @vigil/client.
 */
import { readFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ENDPOINTS, fillPath, type EndpointId } from '@vigil/schema';
import { startServer, type RunningServer } from '@vigil/server';
import { REPO_ROOT } from '../support/cli.js';
import { SAMPLE_BODIES, type ResourceIds } from './samples.js';

export const TENANTS = [
  { apiKey: 'acme-key', accountId: 'acme' },
  { apiKey: 'globex-key', accountId: 'globex' },
] as const;

/** The server's read-side fixture: results, heartbeat events, status pages for both tenants. */
export const SEED: unknown = JSON.parse(
  readFileSync(path.join(REPO_ROOT, 'packages/server/src/readside/fixtures/readside-seed.json'), 'utf8'),
);

export interface Reply {
  readonly status: number;
  readonly text: string;
  /** Parsed JSON, or undefined when the body is empty or not JSON. */
  readonly json: unknown;
}

export interface SendOptions {
  readonly apiKey: string;
  readonly body?: string;
  readonly headers?: Record<string, string>;
}

export async function send(baseUrl: string, method: string, pathAndQuery: string, options: SendOptions): Promise<Reply> {
  const headers: Record<string, string> = { authorization: `Bearer ${options.apiKey}`, ...options.headers };
  const response = await fetch(`${baseUrl}${pathAndQuery}`, {
    method,
    headers,
    ...(options.body !== undefined ? { body: options.body } : {}),
  });
  const text = await response.text();
  let json: unknown;
  try {
    json = text === '' ? undefined : JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, text, json };
}

/** `send` with a JSON body; throws unless the reply has the expected status. */
export async function sendOk(baseUrl: string, apiKey: string, id: EndpointId, params: Record<string, string | number>, body?: unknown): Promise<any> {
  const endpoint = ENDPOINTS[id];
  const reply = await send(baseUrl, endpoint.method, `${fillPath(endpoint.path, params)}${endpoint.path.startsWith('/v1/checks') || endpoint.path.startsWith('/v2') ? '?autoAssignAlerts=false' : ''}`, {
    apiKey,
    ...(body !== undefined ? { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } } : {}),
  });
  if (reply.status !== endpoint.status) throw new Error(`${id}: expected ${endpoint.status}, got ${reply.status} ${reply.text}`);
  return reply.json;
}

export interface Service {
  readonly server: RunningServer;
  readonly dataDir: string;
}

export async function startService(dataDir?: string): Promise<Service> {
  const dir = dataDir ?? (await mkdtemp(path.join(tmpdir(), 'vigil-hardening-')));
  const server = await startServer({ port: 0, dataDir: dir, accounts: [...TENANTS], seed: SEED, checkResponses: true });
  return { server, dataDir: dir };
}

const SEEDED: Record<string, { apiCheck: string; tcpCheck: string; multiStepCheck: string; statusPage: string }> = {
  acme: {
    apiCheck: 'a0000000-0000-4000-8000-000000000001',
    tcpCheck: 'a0000000-0000-4000-8000-000000000002',
    multiStepCheck: 'a0000000-0000-4000-8000-000000000003',
    statusPage: 'sp-acme',
  },
  globex: {
    apiCheck: 'b0000000-0000-4000-8000-000000000001',
    tcpCheck: 'b0000000-0000-4000-8000-000000000001',
    multiStepCheck: 'b0000000-0000-4000-8000-000000000001',
    statusPage: 'sp-globex',
  },
};

/** Creates one resource of every writable kind for `tenant` and returns every id the routes take. */
export async function createResources(baseUrl: string, tenant: (typeof TENANTS)[number]): Promise<ResourceIds> {
  const key = tenant.apiKey;
  const seeded = SEEDED[tenant.accountId]!;
  const check = await sendOk(baseUrl, key, 'checks.createApi', {}, SAMPLE_BODIES['checks.createApi']);
  const multiStep = await sendOk(baseUrl, key, 'checks.createMultiStep', {}, SAMPLE_BODIES['checks.createMultiStep']);
  const group = await sendOk(baseUrl, key, 'checkGroups.create', {}, SAMPLE_BODIES['checkGroups.create']);
  // A check inside the group keeps the group's DELETE at 409 for its owner (and 404 for others).
  await sendOk(baseUrl, key, 'checks.createApi', {}, { ...SAMPLE_BODIES['checks.createApi'], name: 'In group', groupId: group.id });
  const channel = await sendOk(baseUrl, key, 'alertChannels.create', {}, SAMPLE_BODIES['alertChannels.create']);
  const service = await sendOk(baseUrl, key, 'statusPageServices.create', {}, SAMPLE_BODIES['statusPageServices.create']);
  const incident = await sendOk(baseUrl, key, 'incidents.create', {}, { ...SAMPLE_BODIES['incidents.create'], services: [{ id: service.id }] });
  const window = await sendOk(baseUrl, key, 'maintenanceWindows.create', {}, SAMPLE_BODIES['maintenanceWindows.create']);
  const privateLocation = await sendOk(baseUrl, key, 'privateLocations.create', {}, SAMPLE_BODIES['privateLocations.create']);
  const dashboard = await sendOk(baseUrl, key, 'dashboards.create', {}, SAMPLE_BODIES['dashboards.create']);
  const errorGroups = (await sendOk(baseUrl, key, 'errorGroups.listForCheck', { checkId: seeded.apiCheck })) as Array<{ id: string }>;
  const results = (await sendOk(baseUrl, key, 'checkResults.listV2', { checkId: seeded.apiCheck })) as { entries: Array<{ id: string }> };
  return {
    check: check.id,
    apiCheck: seeded.apiCheck,
    multiStepCheck: multiStep.id ?? seeded.multiStepCheck,
    tcpCheck: seeded.tcpCheck,
    group: group.id,
    alertChannel: channel.id,
    incident: incident.id,
    service: service.id,
    maintenanceWindow: window.id,
    privateLocation: privateLocation.id,
    dashboard: dashboard.dashboardId,
    statusPage: seeded.statusPage,
    errorGroup: errorGroups[0]?.id ?? 'no-error-group',
    checkResult: results.entries[0]?.id ?? 'no-check-result',
    accountId: tenant.accountId,
  };
}

interface Sqlite {
  pragma(source: string, options?: { simple?: boolean }): unknown;
  close(): void;
}
type SqliteConstructor = new (file: string, options?: { fileMustExist?: boolean }) => Sqlite;

/**
 * `PRAGMA integrity_check` on the service's database file, opened with the server's own
 * better-sqlite3 (resolved from @vigil/server, so the test package needs no copy of the native module).
 */
export function integrityCheck(dataDir: string): string {
  const Database = createRequire(path.join(REPO_ROOT, 'packages/server/package.json'))('better-sqlite3') as SqliteConstructor;
  // Read-write, not readonly: after a SIGKILL the WAL must be recovered before the check can read it.
  const db = new Database(path.join(dataDir, 'vigil.db'), { fileMustExist: true });
  try {
    return String(db.pragma('integrity_check', { simple: true }));
  } finally {
    db.close();
  }
}
