/**
 * One valid request per endpoint of ENDPOINTS, as the seeds the hardening suites mutate. Each body
 * is checked against the endpoint's own zod schema (samples.test.ts), so a schema change that makes
 * a sample invalid fails loudly instead of quietly weakening the fuzzing.
 */
import { ENDPOINTS, type EndpointId } from '@vigil/schema';

/** Ids of resources that exist for the requesting tenant, filled in by the suite's setup. */
export interface ResourceIds {
  readonly check: string;
  readonly apiCheck: string;
  readonly multiStepCheck: string;
  readonly tcpCheck: string;
  readonly group: number;
  readonly alertChannel: number;
  readonly incident: string;
  readonly service: string;
  readonly maintenanceWindow: number;
  readonly privateLocation: string;
  readonly dashboard: string;
  readonly statusPage: string;
  readonly errorGroup: string;
  readonly checkResult: string;
  readonly accountId: string;
}

const apiRequest = { method: 'GET', url: 'https://example.com/health', headers: [{ key: 'x-a', value: 'b' }], assertions: [{ source: 'STATUS_CODE', comparison: 'EQUALS', target: '200' }] };

/** Valid bodies, keyed by endpoint id (only endpoints that take a body). */
export const SAMPLE_BODIES: Partial<Record<EndpointId, Record<string, unknown>>> = {
  'checks.createApi': { name: 'Fuzz API', frequency: 5, tags: ['fuzz'], locations: ['eu-west-1'], request: apiRequest },
  'checks.createMultiStep': {
    name: 'Fuzz flow', frequency: 10, script: 'export default async () => {}',
    environmentVariables: [{ key: 'TOKEN', value: 'abc', secret: true }],
  },
  'checks.create': {
    name: 'Fuzz heartbeat', checkType: 'HEARTBEAT', script: '',
    heartbeat: { period: 1, periodUnit: 'days', grace: 1, graceUnit: 'hours' },
  },
  'checks.updateApi': { name: 'Fuzz API 2', request: apiRequest },
  'checks.updateMultiStep': { name: 'Fuzz flow 2', script: 'export default async () => {}' },
  'checks.update': { name: 'Fuzz any 2', tags: ['x'] },
  'checks.createTcp': { name: 'Fuzz TCP', frequency: 5, request: { hostname: 'db.example.com', port: 5432, data: 'PING', assertions: [{ source: 'RESPONSE_DATA', comparison: 'CONTAINS', target: 'PONG' }] } },
  'checks.updateTcp': { name: 'Fuzz TCP 2', request: { hostname: 'db.example.com', port: 5433 } },
  'checks.createUrl': { name: 'Fuzz URL', frequency: 5, request: { url: 'https://example.com/health', assertions: [{ source: 'STATUS_CODE', comparison: 'EQUALS', target: '200' }] } },
  'checks.updateUrl': { name: 'Fuzz URL 2', request: { url: 'https://example.com/' } },
  'checks.createDns': { name: 'Fuzz DNS', frequency: 5, request: { recordType: 'A', query: 'example.com', assertions: [{ source: 'RESPONSE_CODE', comparison: 'EQUALS', target: 'NOERROR' }] } },
  'checks.updateDns': { name: 'Fuzz DNS 2', request: { recordType: 'AAAA', query: 'example.com' } },
  'checks.createSsl': { name: 'Fuzz SSL', frequency: 60, request: { sslConfig: { hostname: 'example.com', port: 443 }, assertions: [{ source: 'CERTIFICATE', property: 'daysUntilExpiry', comparison: 'GREATER_THAN', target: '14' }] } },
  'checks.updateSsl': { name: 'Fuzz SSL 2', request: { sslConfig: { hostname: 'example.com', port: 8443 } } },
  'checks.createIcmp': { name: 'Fuzz ICMP', frequency: 5, request: { hostname: 'example.com', pingCount: 3, assertions: [{ source: 'LATENCY', property: 'avg', comparison: 'LESS_THAN', target: '200' }] } },
  'checks.updateIcmp': { name: 'Fuzz ICMP 2', request: { hostname: 'example.org' } },
  'checks.createTraceroute': { name: 'Fuzz traceroute', frequency: 10, request: { url: 'example.com', protocol: 'UDP', maxHops: 20, assertions: [{ source: 'HOP_COUNT', comparison: 'LESS_THAN', target: '20' }] } },
  'checks.updateTraceroute': { name: 'Fuzz traceroute 2', request: { url: 'example.org' } },
  'checks.createGrpc': { name: 'Fuzz gRPC', frequency: 10, request: { url: 'example.com', port: 50051, grpcConfig: { mode: 'HEALTH' }, assertions: [{ source: 'GRPC_HEALTHCHECK_STATUS', comparison: 'EQUALS', target: '1' }] } },
  'checks.updateGrpc': { name: 'Fuzz gRPC 2', request: { url: 'example.org', port: 443, grpcConfig: { mode: 'BEHAVIOR', method: 'demo.Greeter/Hello' } } },
  'checks.createBrowser': { name: 'Fuzz browser', frequency: 10, script: "import { test } from '@playwright/test';\ntest('home', async ({ page }) => {});\n" },
  'checks.updateBrowser': { name: 'Fuzz browser 2', sslCheckDomain: 'example.com' },
  'checks.createPlaywright': {
    name: 'Fuzz suite', frequency: 10, playwrightConfigPath: 'playwright.config.ts',
    codeBundle: [{ path: 'playwright.config.ts', content: 'export default {};' }, { path: 'tests/a.spec.ts', content: "import { test } from '@playwright/test';\ntest('a', () => {});\n" }],
  },
  'checks.updatePlaywright': { name: 'Fuzz suite 2', pwTags: ['@smoke'] },
  'checks.createHeartbeat': { name: 'Fuzz heartbeat monitor', heartbeat: { period: 30, periodUnit: 'seconds', grace: 0, graceUnit: 'seconds' } },
  'checks.updateHeartbeat': { name: 'Fuzz heartbeat 2', heartbeat: { period: 1, periodUnit: 'hours', grace: 5, graceUnit: 'minutes' } },
  'checkGroups.create': { name: 'Fuzz group', concurrency: 3, tags: ['g'], locations: ['eu-west-1'] },
  'checkGroups.update': { name: 'Fuzz group 2', concurrency: 2 },
  'alertChannels.create': { type: 'EMAIL', config: { address: 'a@example.com' }, sendFailure: true },
  'alertChannels.update': { type: 'EMAIL', config: { address: 'b@example.com' } },
  'incidents.create': {
    name: 'Fuzz incident', severity: 'MINOR', services: [],
    incidentUpdates: [{ description: 'Looking', status: 'INVESTIGATING' }],
  },
  'incidents.update': { name: 'Fuzz incident 2', severity: 'MAJOR' },
  'incidents.patch': { severity: 'CRITICAL' },
  'analytics.batch': { checkIds: ['a0000000-0000-4000-8000-000000000001'] },
  'incidentUpdates.create': { description: 'Found it', status: 'IDENTIFIED', notifySubscribers: false },
  'statusPageServices.create': { name: 'Fuzz service' },
  'statusPageServices.update': { name: 'Fuzz service 2' },
  'maintenanceWindows.create': {
    name: 'Fuzz window', startsAt: '2026-01-01T00:00:00.000Z', endsAt: '2026-01-01T01:00:00.000Z',
    repeatUnit: 'DAY', repeatInterval: 1, tags: ['fuzz'],
  },
  'maintenanceWindows.update': { name: 'Fuzz window 2' },
  'privateLocations.create': { name: 'Fuzz location', slugName: 'fuzz-location', icon: 'location', proxyUrl: null },
  'privateLocations.update': { name: 'Fuzz location 2' },
  // No customUrl: it names one dashboard across the service, and every tenant creates this sample.
  'dashboards.create': { header: 'Fuzz dashboard', tags: ['fuzz'], refreshRate: 300, checksPerPage: 10, logo: 'https://example.com/logo.png' },
  'dashboards.update': { header: 'Fuzz dashboard 2', paginate: false },
  // A url names one status page across the service: the suites address the seeded pages instead, and
  // a second create of this sample answers 409, a refusal like any other.
  'statusPages.create': { name: 'Fuzz status', url: 'fuzz-status', cards: [{ name: 'Fuzz card' }], defaultTheme: 'DARK', logo: 'https://example.com/logo.png' },
  'statusPages.update': { name: 'Fuzz status 2', url: 'fuzz-status-2', cards: [{ name: 'Fuzz card 2', services: [] }] },
  'errorGroups.patch': { archivedUntilNextEvent: true },
};

/** The existing-resource id each `{param}` of an endpoint's path takes. */
export function validParams(id: EndpointId, ids: ResourceIds): Record<string, string | number> {
  const endpoint = ENDPOINTS[id];
  const params: Record<string, string | number> = {};
  for (const name of endpoint.path.match(/\{(\w+)\}/g)?.map((m) => m.slice(1, -1)) ?? []) {
    params[name] = idFor(id, name, ids);
  }
  return params;
}

function idFor(id: EndpointId, param: string, ids: ResourceIds): string | number {
  if (param === 'incidentId') return ids.incident;
  if (param === 'checkResultId') return ids.checkResult;
  if (param === 'statusPageId') return ids.statusPage;
  if (param === 'accountId') return ids.accountId;
  if (param === 'dashboardId') return ids.dashboard;
  if (param === 'groupId') return ids.group;
  if (param === 'checkId') return id === 'heartbeats.listEvents' ? ids.check : ids.apiCheck;
  // `{id}`: what kind of resource depends on the collection.
  if (id.startsWith('checkGroups.')) return ids.group;
  if (id.startsWith('alertChannels.')) return ids.alertChannel;
  if (id.startsWith('maintenanceWindows.')) return ids.maintenanceWindow;
  if (id.startsWith('privateLocations.')) return ids.privateLocation;
  if (id.startsWith('statusPageServices.')) return ids.service;
  if (id.startsWith('errorGroups.')) return ids.errorGroup;
  if (id === 'analytics.tcpChecks' || id === 'checks.updateTcp') return ids.tcpCheck;
  if (id === 'analytics.multiStepChecks' || id === 'checks.updateMultiStep') return ids.multiStepCheck;
  if (id === 'checks.updateApi' || id === 'analytics.apiChecks') return ids.apiCheck;
  return ids.check;
}

/** A valid query for endpoints that require one (analytics need `metrics`). */
export function sampleQuery(id: EndpointId): Record<string, string> {
  if (id === 'analytics.heartbeatChecks') return { metrics: 'availability' };
  if (id.startsWith('analytics.')) return { metrics: id === 'analytics.tcpChecks' || id === 'analytics.dns' ? 'total' : 'responseTime' };
  return {};
}
