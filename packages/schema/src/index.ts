/**
 * `@vigil/schema`: zod schemas and inferred types for every wire shape of the monitoring service,
 * the endpoint table, the error body and its formatter, and the OpenAPI document.
 */
export * from './values.js';
export * from './limits.js';
export * from './rate-limit.js';
export * from './helpers.js';
export * from './embedded.js';
export * from './checks.js';
export * from './heartbeat-checks.js';
export * from './browser-checks.js';
export * from './playwright-checks.js';
export * from './dns-checks.js';
export * from './ssl-checks.js';
export * from './icmp-checks.js';
export * from './traceroute-checks.js';
export * from './grpc-checks.js';
export * from './tcp-checks.js';
export * from './url-checks.js';
export * from './check-groups.js';
export * from './maintenance-windows.js';
export * from './private-locations.js';
export * from './alert-channels.js';
export * from './status-pages.js';
export * from './dashboards.js';
export * from './status-page.js';
export * from './check-results.js';
export * from './run-wire.js';
export * from './agent-wire.js';
export * from './jsonpath.js';
export * from './analytics.js';
export * from './heartbeats.js';
export * from './error-groups.js';
export * from './check-statuses.js';
export * from './alert-notifications.js';
export * from './accounts.js';
export * from './triggers.js';
export * from './errors.js';
export * from './paging.js';
export * from './runtimes.js';
export * from './check-result-pages.js';
export * from './batch-analytics.js';
export * from './incident-pages.js';
export * from './endpoints.js';
export * from './openapi.js';
