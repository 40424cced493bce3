/**
 * Every endpoint of the API and its extensions as data. The server routes and validates from this
 * table, the client types its calls from it, and `GET /openapi.json` is generated from it, so a
 * shape changes in one place only.
 *
 * Paths use `{param}` placeholders as the spec writes them. `list: true` marks paged collections
 * (bare JSON array plus `content-range` / `link` headers). `response` is absent for 204.
 */
import { z } from 'zod';
import { Account, CurrentAccount } from './accounts.js';
import { AlertChannel, AlertChannelCreate, AlertChannelUpdate } from './alert-channels.js';
import {
  AnalyticsReport,
  ApiCheckAnalyticsQuery,
  BrowserCheckAnalyticsQuery,
  DnsMonitorAnalyticsQuery,
  HeartbeatCheckAnalyticsQuery,
  MultiStepCheckAnalyticsQuery,
  PlaywrightCheckAnalyticsQuery,
  TcpCheckAnalyticsQuery,
  UrlMonitorAnalyticsQuery,
} from './analytics.js';
import { CheckGroup, CheckGroupCreate, CheckGroupUpdate } from './check-groups.js';
import { CheckResult, CheckResultsQuery } from './check-results.js';
import {
  ApiCheck,
  ApiCheckCreate,
  ApiCheckUpdate,
  Check,
  CheckCreate,
  CheckCreated,
  CheckUpdate,
  ChecksListQuery,
  MultiStepCheck,
  MultiStepCheckCreate,
  MultiStepCheckUpdate,
} from './checks.js';
import { BrowserCheck, BrowserCheckCreate, BrowserCheckUpdate } from './browser-checks.js';
import { PlaywrightCheck, PlaywrightCheckCreate, PlaywrightCheckUpdate } from './playwright-checks.js';
import { DnsCheck, DnsCheckCreate, DnsCheckUpdate } from './dns-checks.js';
import { SslCheck, SslCheckCreate, SslCheckUpdate } from './ssl-checks.js';
import { IcmpCheck, IcmpCheckCreate, IcmpCheckUpdate } from './icmp-checks.js';
import { TracerouteCheck, TracerouteCheckCreate, TracerouteCheckUpdate } from './traceroute-checks.js';
import { GrpcCheck, GrpcCheckCreate, GrpcCheckUpdate } from './grpc-checks.js';
import { TcpCheck, TcpCheckCreate, TcpCheckUpdate } from './tcp-checks.js';
import { UrlCheck, UrlCheckCreate, UrlCheckUpdate } from './url-checks.js';
import { HeartbeatCheck, HeartbeatCheckCreate, HeartbeatCheckUpdate } from './heartbeat-checks.js';
import { ErrorGroup, ErrorGroupPatch } from './error-groups.js';
import { CheckStatus } from './check-statuses.js';
import { AlertNotification, AlertNotificationsQuery } from './alert-notifications.js';
import { HeartbeatEventRecord, HeartbeatEventsQuery } from './heartbeats.js';
import { MaintenanceWindow, MaintenanceWindowCreate, MaintenanceWindowUpdate } from './maintenance-windows.js';
import { PrivateLocation, PrivateLocationCreate, PrivateLocationKey, PrivateLocationKeyCreated, PrivateLocationKeyParams, PrivateLocationUpdate } from './private-locations.js';
import {
  AccountIdParams,
  AutoAssignQuery,
  CheckIdParams,
  GroupIdParams,
  IncidentIdParams,
  NumericIdParams,
  PageQuery,
  StatusPageIdParams,
  StringIdParams,
} from './paging.js';
import {
  Incident,
  IncidentCreate,
  IncidentStatusUpdate,
  IncidentStatusUpdateCreate,
  IncidentUpdate,
  ServicesListQuery,
  StatusPageService,
  StatusPageServiceCreate,
  StatusPageServicePage,
  StatusPageServiceUpdate,
  Subscription,
} from './status-pages.js';
import { CheckGroupTrigger } from './triggers.js';
import { CLIENT_ENDPOINTS } from './client-endpoints.js';
import { DASHBOARD_ENDPOINTS } from './dashboard-endpoints.js';
import { STATUS_PAGE_ENDPOINTS } from './status-page-endpoints.js';

export type HttpVerb = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** One endpoint of the service. */
export interface EndpointDef {
  method: HttpVerb;
  /** Path with `{param}` placeholders, e.g. `/v1/checks/{id}`. */
  path: string;
  params?: z.ZodObject;
  query?: z.ZodObject;
  body?: z.ZodType;
  /** Absent for 204 responses. */
  response?: z.ZodType;
  status: number;
  /** A paged collection: bare array plus `content-range` and `link` headers. */
  list?: boolean;
  /** A collection paged by cursor: `{length, entries, nextId}`, `nextId` passed back for the next page (null on the last). */
  cursor?: boolean;
  /** When the call answers 409, for the OpenAPI document. */
  conflict?: string;
  summary: string;
  deprecated?: boolean;
}

export const ENDPOINTS = {
  // Checks ------------------------------------------------------------------------------------
  'checks.list': {
    method: 'GET', path: '/v1/checks', query: ChecksListQuery, response: z.array(Check), status: 200, list: true,
    summary: 'List checks',
  },
  'checks.get': {
    method: 'GET', path: '/v1/checks/{id}', params: StringIdParams, response: Check, status: 200,
    summary: 'Get a check',
  },
  'checks.createApi': {
    method: 'POST', path: '/v1/checks/api', query: AutoAssignQuery, body: ApiCheckCreate, response: ApiCheck, status: 201,
    summary: 'Create an API check',
  },
  'checks.createMultiStep': {
    method: 'POST', path: '/v1/checks/multistep', query: AutoAssignQuery, body: MultiStepCheckCreate,
    response: MultiStepCheck, status: 201, summary: 'Create a multi-step check',
  },
  'checks.createDns': {
    method: 'POST', path: '/v1/checks/dns', query: AutoAssignQuery, body: DnsCheckCreate, response: DnsCheck, status: 201,
    summary: 'Create a DNS monitor',
  },
  'checks.createBrowser': {
    method: 'POST', path: '/v1/checks/browser', query: AutoAssignQuery, body: BrowserCheckCreate, response: BrowserCheck,
    status: 201, summary: 'Create a browser check',
  },
  'checks.createPlaywright': {
    method: 'POST', path: '/v1/checks/playwright', query: AutoAssignQuery, body: PlaywrightCheckCreate, response: PlaywrightCheck,
    status: 201, summary: 'Create a Playwright check suite (extension)',
  },
  'checks.createHeartbeat': {
    method: 'POST', path: '/v1/checks/heartbeat', query: AutoAssignQuery, body: HeartbeatCheckCreate, response: HeartbeatCheck,
    status: 201, summary: 'Create a heartbeat monitor',
  },
  'checks.createTcp': {
    method: 'POST', path: '/v1/checks/tcp', query: AutoAssignQuery, body: TcpCheckCreate, response: TcpCheck, status: 201,
    summary: 'Create a TCP monitor',
  },
  'checks.createUrl': {
    method: 'POST', path: '/v1/checks/url', query: AutoAssignQuery, body: UrlCheckCreate, response: UrlCheck, status: 201,
    summary: 'Create a URL monitor',
  },
  'checks.createSsl': {
    method: 'POST', path: '/v1/checks/ssl', query: AutoAssignQuery, body: SslCheckCreate, response: SslCheck, status: 201,
    summary: 'Create an SSL monitor',
  },
  'checks.createIcmp': {
    method: 'POST', path: '/v1/checks/icmp', query: AutoAssignQuery, body: IcmpCheckCreate, response: IcmpCheck, status: 201,
    summary: 'Create an ICMP monitor',
  },
  'checks.createTraceroute': {
    method: 'POST', path: '/v1/checks/traceroute', query: AutoAssignQuery, body: TracerouteCheckCreate, response: TracerouteCheck, status: 201,
    summary: 'Create a traceroute monitor (extension)',
  },
  'checks.createGrpc': {
    method: 'POST', path: '/v1/checks/grpc', query: AutoAssignQuery, body: GrpcCheckCreate, response: GrpcCheck, status: 201,
    summary: 'Create a gRPC monitor (extension)',
  },
  'checks.create': {
    method: 'POST', path: '/v1/checks', query: AutoAssignQuery, body: CheckCreate, response: CheckCreated, status: 201,
    summary: 'Create a check of any type',
  },
  'checks.updateApi': {
    method: 'PUT', path: '/v1/checks/api/{id}', params: StringIdParams, query: AutoAssignQuery, body: ApiCheckUpdate,
    response: ApiCheck, status: 200, summary: 'Update an API check (merge)',
  },
  'checks.updateMultiStep': {
    method: 'PUT', path: '/v1/checks/multistep/{id}', params: StringIdParams, query: AutoAssignQuery,
    body: MultiStepCheckUpdate, response: MultiStepCheck, status: 200, summary: 'Update a multi-step check (merge)',
  },
  'checks.updateDns': {
    method: 'PUT', path: '/v1/checks/dns/{id}', params: StringIdParams, query: AutoAssignQuery, body: DnsCheckUpdate,
    response: DnsCheck, status: 200, summary: 'Update a DNS monitor (merge)',
  },
  'checks.updateSsl': {
    method: 'PUT', path: '/v1/checks/ssl/{id}', params: StringIdParams, query: AutoAssignQuery, body: SslCheckUpdate,
    response: SslCheck, status: 200, summary: 'Update an SSL monitor (merge)',
  },
  'checks.updateIcmp': {
    method: 'PUT', path: '/v1/checks/icmp/{id}', params: StringIdParams, query: AutoAssignQuery, body: IcmpCheckUpdate,
    response: IcmpCheck, status: 200, summary: 'Update an ICMP monitor (merge)',
  },
  'checks.updateTraceroute': {
    method: 'PUT', path: '/v1/checks/traceroute/{id}', params: StringIdParams, query: AutoAssignQuery, body: TracerouteCheckUpdate,
    response: TracerouteCheck, status: 200, summary: 'Update a traceroute monitor (merge, extension)',
  },
  'checks.updateGrpc': {
    method: 'PUT', path: '/v1/checks/grpc/{id}', params: StringIdParams, query: AutoAssignQuery, body: GrpcCheckUpdate,
    response: GrpcCheck, status: 200, summary: 'Update a gRPC monitor (merge, extension)',
  },
  'checks.updateBrowser': {
    method: 'PUT', path: '/v1/checks/browser/{id}', params: StringIdParams, query: AutoAssignQuery, body: BrowserCheckUpdate,
    response: BrowserCheck, status: 200, summary: 'Update a browser check (merge)',
  },
  'checks.updatePlaywright': {
    method: 'PUT', path: '/v1/checks/playwright/{id}', params: StringIdParams, query: AutoAssignQuery, body: PlaywrightCheckUpdate,
    response: PlaywrightCheck, status: 200, summary: 'Update a Playwright check suite (merge, extension)',
  },
  'checks.updateHeartbeat': {
    method: 'PUT', path: '/v1/checks/heartbeat/{id}', params: StringIdParams, query: AutoAssignQuery,
    body: HeartbeatCheckUpdate, response: HeartbeatCheck, status: 200, summary: 'Update a heartbeat monitor (merge)',
  },
  'checks.updateTcp': {
    method: 'PUT', path: '/v1/checks/tcp/{id}', params: StringIdParams, query: AutoAssignQuery, body: TcpCheckUpdate,
    response: TcpCheck, status: 200, summary: 'Update a TCP monitor (merge)',
  },
  'checks.updateUrl': {
    method: 'PUT', path: '/v1/checks/url/{id}', params: StringIdParams, query: AutoAssignQuery, body: UrlCheckUpdate,
    response: UrlCheck, status: 200, summary: 'Update a URL monitor (merge)',
  },
  'checks.update': {
    method: 'PUT', path: '/v1/checks/{id}', params: StringIdParams, query: AutoAssignQuery, body: CheckUpdate,
    response: Check, status: 200, summary: 'Update a check of any type (merge)',
  },
  'checks.delete': {
    method: 'DELETE', path: '/v1/checks/{id}', params: StringIdParams, status: 204, summary: 'Delete a check',
  },
  'checkResults.list': {
    method: 'GET', path: '/v1/check-results/{checkId}', params: CheckIdParams, query: CheckResultsQuery,
    response: z.array(CheckResult), status: 200, list: true, summary: "List a check's results",
  },
  'heartbeats.listEvents': {
    method: 'GET', path: '/v1/checks/heartbeats/{checkId}/events', params: CheckIdParams, query: HeartbeatEventsQuery,
    response: z.array(HeartbeatEventRecord), status: 200, list: true, summary: "List a heartbeat check's events",
  },

  // Check groups ------------------------------------------------------------------------------
  'checkGroups.create': {
    method: 'POST', path: '/v2/check-groups', query: AutoAssignQuery, body: CheckGroupCreate, response: CheckGroup,
    status: 201, summary: 'Create a check group',
  },
  'checkGroups.update': {
    method: 'PUT', path: '/v2/check-groups/{id}', params: NumericIdParams, query: AutoAssignQuery,
    body: CheckGroupUpdate, response: CheckGroup, status: 200, summary: 'Update a check group (merge)',
  },
  'checkGroups.list': {
    method: 'GET', path: '/v1/check-groups', query: PageQuery, response: z.array(CheckGroup), status: 200, list: true,
    summary: 'List check groups',
  },
  'checkGroups.get': {
    method: 'GET', path: '/v1/check-groups/{id}', params: NumericIdParams, response: CheckGroup, status: 200,
    summary: 'Get a check group',
  },
  'checkGroups.delete': {
    method: 'DELETE', path: '/v1/check-groups/{id}', params: NumericIdParams, status: 204,
    summary: 'Delete a check group (409 while it still holds checks)',
  },
  'triggers.getCheckGroup': {
    method: 'GET', path: '/v1/triggers/check-groups/{groupId}', params: GroupIdParams, response: CheckGroupTrigger,
    status: 200, deprecated: true, summary: "Get a check group's trigger (deprecated)",
  },

  // Analytics ---------------------------------------------------------------------------------
  'analytics.apiChecks': {
    method: 'GET', path: '/v1/analytics/api-checks/{id}', params: StringIdParams, query: ApiCheckAnalyticsQuery,
    response: AnalyticsReport, status: 200, summary: 'Analytics of an API check',
  },
  'analytics.tcpChecks': {
    method: 'GET', path: '/v1/analytics/tcp-checks/{id}', params: StringIdParams, query: TcpCheckAnalyticsQuery,
    response: AnalyticsReport, status: 200, summary: 'Analytics of a TCP check',
  },
  'analytics.multiStepChecks': {
    method: 'GET', path: '/v1/analytics/multistep-checks/{id}', params: StringIdParams,
    query: MultiStepCheckAnalyticsQuery, response: AnalyticsReport, status: 200, summary: 'Analytics of a multi-step check',
  },
  'analytics.dns': {
    method: 'GET', path: '/v1/analytics/dns/{id}', params: StringIdParams, query: DnsMonitorAnalyticsQuery,
    response: AnalyticsReport, status: 200, summary: 'Analytics of a DNS monitor',
  },
  'analytics.urlMonitors': {
    method: 'GET', path: '/v1/analytics/url-monitors/{id}', params: StringIdParams, query: UrlMonitorAnalyticsQuery,
    response: AnalyticsReport, status: 200, summary: 'Analytics of a URL monitor',
  },
  'analytics.heartbeatChecks': {
    method: 'GET', path: '/v1/analytics/heartbeat-checks/{id}', params: StringIdParams, query: HeartbeatCheckAnalyticsQuery,
    response: AnalyticsReport, status: 200, summary: 'Analytics of a heartbeat monitor',
  },
  'analytics.browserChecks': {
    method: 'GET', path: '/v1/analytics/browser-checks/{id}', params: StringIdParams, query: BrowserCheckAnalyticsQuery,
    response: AnalyticsReport, status: 200, summary: 'Analytics of a browser check',
  },
  'analytics.playwrightChecks': {
    method: 'GET', path: '/v1/analytics/playwright-checks/{id}', params: StringIdParams, query: PlaywrightCheckAnalyticsQuery,
    response: AnalyticsReport, status: 200, summary: 'Analytics of a Playwright check suite',
  },

  // Alert channels ----------------------------------------------------------------------------
  'alertChannels.list': {
    method: 'GET', path: '/v1/alert-channels', query: PageQuery, response: z.array(AlertChannel), status: 200,
    list: true, summary: 'List alert channels',
  },
  'alertChannels.get': {
    method: 'GET', path: '/v1/alert-channels/{id}', params: NumericIdParams, response: AlertChannel, status: 200,
    summary: 'Get an alert channel',
  },
  'alertChannels.create': {
    method: 'POST', path: '/v1/alert-channels', body: AlertChannelCreate, response: AlertChannel, status: 201,
    summary: 'Create an alert channel',
  },
  'alertChannels.update': {
    method: 'PUT', path: '/v1/alert-channels/{id}', params: NumericIdParams, body: AlertChannelUpdate,
    response: AlertChannel, status: 200, summary: 'Update an alert channel (merge)',
  },
  'alertChannels.delete': {
    method: 'DELETE', path: '/v1/alert-channels/{id}', params: NumericIdParams, status: 204,
    summary: 'Delete an alert channel',
  },

  // Status pages ------------------------------------------------------------------------------
  'incidents.create': {
    method: 'POST', path: '/v1/status-pages/incidents', body: IncidentCreate, response: Incident, status: 201,
    summary: 'Create a status-page incident',
  },
  'incidents.get': {
    method: 'GET', path: '/v1/status-pages/incidents/{incidentId}', params: IncidentIdParams, response: Incident,
    status: 200, summary: 'Get a status-page incident',
  },
  'incidents.update': {
    method: 'PUT', path: '/v1/status-pages/incidents/{incidentId}', params: IncidentIdParams, body: IncidentUpdate,
    response: Incident, status: 200, summary: 'Update a status-page incident (merge)',
  },
  'incidents.delete': {
    method: 'DELETE', path: '/v1/status-pages/incidents/{incidentId}', params: IncidentIdParams, status: 204,
    summary: 'Delete a status-page incident',
  },
  'incidentUpdates.create': {
    method: 'POST', path: '/v1/status-pages/incidents/{incidentId}/incident-updates', params: IncidentIdParams,
    // 200, not 201: the real document's answer to this create (both the Checkly CLI and @vigil/client take any 2xx).
    body: IncidentStatusUpdateCreate, response: IncidentStatusUpdate, status: 200,
    summary: 'Post a status update on an incident',
  },
  'statusPageServices.create': {
    // 200, not 201: the real document's answer to this create (both the Checkly CLI and @vigil/client take any 2xx).
    method: 'POST', path: '/v1/status-pages/services', body: StatusPageServiceCreate, response: StatusPageService,
    status: 200, summary: 'Create a status-page service',
  },
  'statusPageServices.list': {
    method: 'GET', path: '/v1/status-pages/services', query: ServicesListQuery, response: StatusPageServicePage,
    status: 200, cursor: true, summary: 'List status-page services (paged by cursor, as the real document has it)',
  },
  'statusPageServices.get': {
    method: 'GET', path: '/v1/status-pages/services/{id}', params: StringIdParams, response: StatusPageService,
    status: 200, summary: 'Get a status-page service',
  },
  'statusPageServices.update': {
    method: 'PUT', path: '/v1/status-pages/services/{id}', params: StringIdParams, body: StatusPageServiceUpdate,
    response: StatusPageService, status: 200, summary: 'Update a status-page service (merge)',
  },
  'statusPageServices.delete': {
    method: 'DELETE', path: '/v1/status-pages/services/{id}', params: StringIdParams, status: 204,
    conflict: 'Service still used by a check or shown on a status page', summary: 'Delete a status-page service',
  },
  'subscriptions.list': {
    method: 'GET', path: '/v1/status-pages/{statusPageId}/subscriptions', params: StatusPageIdParams, query: PageQuery,
    response: z.array(Subscription), status: 200, list: true, summary: "List a status page's subscriptions",
  },

  // Maintenance windows -----------------------------------------------------------------------
  'maintenanceWindows.create': {
    method: 'POST', path: '/v1/maintenance-windows', body: MaintenanceWindowCreate, response: MaintenanceWindow,
    status: 201, summary: 'Create a maintenance window',
  },
  'maintenanceWindows.list': {
    method: 'GET', path: '/v1/maintenance-windows', query: PageQuery, response: z.array(MaintenanceWindow),
    status: 200, list: true, summary: 'List maintenance windows',
  },
  'maintenanceWindows.get': {
    method: 'GET', path: '/v1/maintenance-windows/{id}', params: NumericIdParams, response: MaintenanceWindow,
    status: 200, summary: 'Get a maintenance window',
  },
  'maintenanceWindows.update': {
    method: 'PUT', path: '/v1/maintenance-windows/{id}', params: NumericIdParams, body: MaintenanceWindowUpdate,
    response: MaintenanceWindow, status: 200, summary: 'Update a maintenance window (merge)',
  },
  'maintenanceWindows.delete': {
    method: 'DELETE', path: '/v1/maintenance-windows/{id}', params: NumericIdParams, status: 204,
    summary: 'Delete a maintenance window',
  },

  // Private locations -------------------------------------------------------------------------
  'privateLocations.create': {
    method: 'POST', path: '/v1/private-locations', body: PrivateLocationCreate, response: PrivateLocation,
    status: 201, summary: 'Create a private location',
  },
  'privateLocations.list': {
    method: 'GET', path: '/v1/private-locations', query: PageQuery, response: z.array(PrivateLocation),
    status: 200, list: true, summary: 'List private locations',
  },
  'privateLocations.get': {
    method: 'GET', path: '/v1/private-locations/{id}', params: StringIdParams, response: PrivateLocation,
    status: 200, summary: 'Get a private location',
  },
  'privateLocations.update': {
    method: 'PUT', path: '/v1/private-locations/{id}', params: StringIdParams, body: PrivateLocationUpdate,
    response: PrivateLocation, status: 200, summary: 'Update a private location (merge)',
  },
  'privateLocations.delete': {
    method: 'DELETE', path: '/v1/private-locations/{id}', params: StringIdParams, status: 204,
    summary: 'Delete a private location',
  },
  'privateLocations.createKey': {
    method: 'POST', path: '/v1/private-locations/{id}/keys', params: StringIdParams, response: PrivateLocationKeyCreated,
    status: 201, summary: "Create an agent key of a private location (rawKey is shown this once)",
  },
  'privateLocations.listKeys': {
    method: 'GET', path: '/v1/private-locations/{id}/keys', params: StringIdParams, response: z.array(PrivateLocationKey),
    status: 200, summary: "List a private location's agent keys, masked (extension)",
  },
  'privateLocations.deleteKey': {
    method: 'DELETE', path: '/v1/private-locations/{id}/keys/{keyId}', params: PrivateLocationKeyParams, status: 204,
    summary: 'Revoke an agent key of a private location: its agents are refused from now on',
  },

  // Error groups ------------------------------------------------------------------------------
  'errorGroups.listForCheck': {
    method: 'GET', path: '/v1/error-groups/checks/{checkId}', params: CheckIdParams, query: PageQuery,
    response: z.array(ErrorGroup), status: 200, list: true, summary: "List a check's error groups",
  },
  'errorGroups.patch': {
    method: 'PATCH', path: '/v1/error-groups/{id}', params: StringIdParams, body: ErrorGroupPatch, response: ErrorGroup,
    status: 200, summary: 'Archive an error group',
  },

  // Check statuses (real API; not in the spec) -------------------------------------------------
  'checkStatuses.list': {
    method: 'GET', path: '/v1/check-statuses', response: z.array(CheckStatus), status: 200,
    summary: 'The current status of every check that has run',
  },
  'checkStatuses.get': {
    method: 'GET', path: '/v1/check-statuses/{checkId}', params: CheckIdParams, response: CheckStatus, status: 200,
    summary: 'The current status of one check',
  },

  // Alert notifications (real API; not in the spec) --------------------------------------------
  'alertNotifications.list': {
    method: 'GET', path: '/v1/alert-notifications', query: AlertNotificationsQuery,
    response: z.array(AlertNotification), status: 200, list: true, summary: 'List the alert notifications sent or being sent',
  },

  // Accounts (beta) ---------------------------------------------------------------------------
  'accounts.list': {
    method: 'GET', path: '/v1/accounts', response: z.array(Account), status: 200,
    summary: 'List the accounts of the API key',
  },
  'accounts.me': {
    method: 'GET', path: '/v1/accounts/me', response: CurrentAccount, status: 200,
    summary: 'Get the account the API key acts on (with the Vigil extension serviceId: the identity of this service)',
  },
  'accounts.get': {
    method: 'GET', path: '/v1/accounts/{accountId}', params: AccountIdParams, response: Account, status: 200,
    summary: 'Get an account',
  },

  ...DASHBOARD_ENDPOINTS,
  ...STATUS_PAGE_ENDPOINTS,
  ...CLIENT_ENDPOINTS,
} as const satisfies Record<string, EndpointDef>;

export type Endpoints = typeof ENDPOINTS;
export type EndpointId = keyof Endpoints;

type Field<E, K extends string> = E extends { [P in K]: infer S extends z.ZodType } ? S : never;

/** What a caller sends as the body of endpoint `Id` (before defaults). */
export type EndpointBody<Id extends EndpointId> = z.input<Field<Endpoints[Id], 'body'>>;
/** Query parameters a caller may send to endpoint `Id`. */
export type EndpointQuery<Id extends EndpointId> = z.input<Field<Endpoints[Id], 'query'>>;
/** Path parameters of endpoint `Id`, as the caller provides them. */
export type EndpointParams<Id extends EndpointId> = z.input<Field<Endpoints[Id], 'params'>>;
/** The parsed response of endpoint `Id` (`undefined` for 204). */
export type EndpointResponse<Id extends EndpointId> =
  Endpoints[Id] extends { response: infer S extends z.ZodType } ? z.output<S> : undefined;

/** The endpoint ids, in table order. */
export const ENDPOINT_IDS = Object.keys(ENDPOINTS) as EndpointId[];

/** `/v1/checks/{id}` with `{ id: 'abc' }` → `/v1/checks/abc` (values URI-encoded). */
export function fillPath(path: string, params: Record<string, string | number>): string {
  return path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`missing path parameter "${name}" for ${path}`);
    return encodeURIComponent(String(value));
  });
}
