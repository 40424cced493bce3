import { EndpointCaller } from './caller.js';
import { accountsApi } from './collections/accounts.js';
import { alertChannelsApi } from './collections/alert-channels.js';
import { analyticsApi } from './collections/analytics.js';
import { checkGroupsApi } from './collections/check-groups.js';
import { checkResultsApi } from './collections/check-results.js';
import { checkStatusesApi } from './collections/check-statuses.js';
import { alertNotificationsApi } from './collections/alert-notifications.js';
import { checksApi } from './collections/checks.js';
import { dashboardsApi } from './collections/dashboards.js';
import { errorGroupsApi } from './collections/error-groups.js';
import { runtimesApi } from './collections/runtimes.js';
import { heartbeatsApi } from './collections/heartbeats.js';
import { maintenanceWindowsApi } from './collections/maintenance-windows.js';
import { privateLocationsApi } from './collections/private-locations.js';
import { statusPagesApi } from './collections/status-pages.js';
import { triggersApi } from './collections/triggers.js';
import { Transport, type TransportOptions } from './transport.js';

/** Options of `createClient`; see `TransportOptions` for each field. */
export type ClientOptions = TransportOptions;

/**
 * A typed client of the monitoring service: one property per collection, every call paced, retried,
 * and its response checked against `@vigil/schema`. Failures are `ApiError`s.
 *
 * ```ts
 * const client = createClient({ baseUrl: 'http://127.0.0.1:4000', apiKey: 'vigil-local' });
 * const key = newIdempotencyKey(); // journal it first
 * const check = await client.checks.createApi({ name: 'home', request: { url: 'https://example.com' } }, { idempotencyKey: key });
 * for await (const each of client.checks.listAll()) console.log(each.name);
 * ```
 */
export function createClient(options: ClientOptions) {
  const transport = new Transport(options);
  const caller = new EndpointCaller(transport);
  return {
    checks: checksApi(caller),
    checkGroups: checkGroupsApi(caller),
    checkResults: checkResultsApi(caller),
    checkStatuses: checkStatusesApi(caller),
    alertNotifications: alertNotificationsApi(caller),
    heartbeats: heartbeatsApi(caller),
    analytics: analyticsApi(caller),
    alertChannels: alertChannelsApi(caller),
    statusPages: statusPagesApi(caller),
    dashboards: dashboardsApi(caller),
    maintenanceWindows: maintenanceWindowsApi(caller),
    privateLocations: privateLocationsApi(caller),
    errorGroups: errorGroupsApi(caller),
    accounts: accountsApi(caller),
    triggers: triggersApi(caller),
    runtimes: runtimesApi(caller),
    /** Any endpoint of `ENDPOINTS` by id, for generic callers such as the engine's kind adapters. */
    endpoints: caller,
    transport,
  };
}

export type VigilClient = ReturnType<typeof createClient>;
