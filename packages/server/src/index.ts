/**
 * @vigil/server — the reference monitoring service: `startServer` for a listening
 * service (CLI, embedded local target, tests, benchmarks), `createApp` for the bare Hono app.
 */
export { startServer, type RunningServer, type ServerOptions } from './start.js';
export { createApp, type AppOptions, type ServiceApp } from './app.js';
export { AgentKeyError, agentKeySource, parseAgentKey, type AgentKey } from './agents/keys.js';
export { DEFAULT_AGENT_LEASE_MS, MIN_AGENT_LEASE_MS } from './agents/hub.js';
export { DEFAULT_ACCOUNT_KEY, readAccountsFile, type Account, type AccountKey } from './accounts.js';
export { parseFaults, FaultSpecError, type FaultSpec } from './http/faults.js';
export { parseRateLimit, RateLimitSpecError, type RateLimitOptions } from './http/rate-limit.js';
export { MAX_BODY_BYTES } from './http/body.js';
export { DEFAULT_AUTH_FAILURE_LIMIT, type AuthFailureLimit } from './http/auth-failures.js';
export { PROVIDER_BASE_URLS } from './alerting/channels.js';
export { parsePublicUrl } from './heartbeats/ping-urls.js';
export { DEFAULT_RESPONSE_TIME_BUCKETS, parseResponseTimeBuckets } from './metrics/response-time-buckets.js';
export type { RequestLogEntry } from './http/request-log.js';
export type { CheckFailedEvent } from './scheduler/index.js';
export { defaultMaxRunsInFlight, defaultProcessRuns, defaultSandboxedRuns, MIN_RUNS_IN_FLIGHT } from './scheduler/concurrency.js';
export type { DeliveryEvent } from './alerting/outbox.js';
