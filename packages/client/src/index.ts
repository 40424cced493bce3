/**
 * `@vigil/client`: the typed HTTP client of the monitoring service. `createClient` is the entry
 * point; the transport, pacing, retry and paging pieces are exported for the CLI's generic calls
 * and for tests.
 */
export * from './client.js';
export * from './caller.js';
export * from './endpoint.js';
export * from './errors.js';
export * from './retry.js';
export * from './pacer.js';
export * from './paging.js';
export * from './transport.js';
export type * from './collections/accounts.js';
export type * from './collections/alert-channels.js';
export type * from './collections/analytics.js';
export type * from './collections/check-groups.js';
export type * from './collections/check-results.js';
export type * from './collections/checks.js';
export type * from './collections/dashboards.js';
export type * from './collections/error-groups.js';
export type * from './collections/heartbeats.js';
export type * from './collections/maintenance-windows.js';
export type * from './collections/status-pages.js';
export type * from './collections/triggers.js';
