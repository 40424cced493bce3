/**
 * Every limit of the API as a named constant, so the server, the constructs and the tests quote one
 * number instead of repeating it.
 */

/** `limit` query parameter of list calls (alert channels, check results, analytics, every list). */
export const LIST_LIMIT_MIN = 1;
export const LIST_LIMIT_MAX = 100;
export const LIST_LIMIT_DEFAULT = 10;
/** Heartbeat events allow far fewer items per page. */
export const HEARTBEAT_LIMIT_MAX = 10;
export const HEARTBEAT_LIMIT_DEFAULT = 10;
export const PAGE_MIN = 1;
export const PAGE_DEFAULT = 1;

/** Analytics `aggregationInterval`, in minutes (43200 = 30 days). */
export const AGGREGATION_INTERVAL_MIN = 1;
export const AGGREGATION_INTERVAL_MAX = 43200;

/** `environmentVariables` of checks and check groups. */
export const ENVIRONMENT_VARIABLES_MAX = 50;

/**
 * Array fields the spec leaves unbounded. The real service's OpenAPI document gives no maximum for
 * them either, but an unbounded array lets one request store (2 MiB of) 400,000 tags that every later
 * list call, filter and plan then walks. These are generous for real use.
 */
/** `tags` of a check, check group or maintenance window. */
export const TAGS_MAX = 100;
/** `privateLocations` of a check or check group (`locations` is bounded by its value set). */
export const PRIVATE_LOCATIONS_MAX = 100;
/** `alertChannelSubscriptions` of a check or check group. */
export const ALERT_CHANNEL_SUBSCRIPTIONS_MAX = 100;
/** `headers` and `queryParameters` of a request, of group `apiCheckDefaults` and of a webhook. */
export const KEY_VALUES_MAX = 100;
/** `assertions` of an API check request and of group `apiCheckDefaults`. */
export const ASSERTIONS_MAX = 100;
/** `dependencies` of a multi-step or generic check. */
export const DEPENDENCIES_MAX = 100;
/** `services` of an incident. */
export const INCIDENT_SERVICES_MAX = 100;
/** Status updates of one incident, those it is created with included (each post rewrites the incident). */
export const INCIDENT_UPDATES_MAX = 100;
/**
 * Values of one repeatable or comma-separated query parameter (`tag` of `GET /v1/checks`,
 * analytics `metrics` and `filterByStatus`). Each `tag` became one SQL condition: ~950 of them passed
 * SQLite's expression depth (500), and every distinct count cached its own prepared statement.
 */
export const QUERY_LIST_MAX = 50;
/** `Idempotency-Key` header: each key is stored with its response for 24 hours. */
export const IDEMPOTENCY_KEY_MAX_LENGTH = 255;

/** `degradedResponseTime` / `maxResponseTime` of API checks, in milliseconds. */
export const RESPONSE_TIME_MIN = 0;
export const RESPONSE_TIME_MAX = 30000;
export const DEGRADED_RESPONSE_TIME_DEFAULT = 5000;
export const MAX_RESPONSE_TIME_DEFAULT = 20000;

export const CONCURRENCY_MIN = 1;
export const CONCURRENCY_DEFAULT = 3;
export const GROUP_ORDER_MIN = 0;
export const REPEAT_INTERVAL_MIN = 1;
/** The real service's document: a window repeats at most every 365 units. */
export const REPEAT_INTERVAL_MAX = 365;
export const MAINTENANCE_WINDOW_NAME_MAX = 200;
export const MAINTENANCE_WINDOW_DESCRIPTION_MAX = 2000;
export const SSL_EXPIRY_THRESHOLD_MIN = 1;
export const SSL_EXPIRY_THRESHOLD_MAX = 30;
export const INCIDENT_NAME_MAX = 255;
/** `checksPerPage` of a dashboard (the real service's document). */
export const DASHBOARD_CHECKS_PER_PAGE_MIN = 1;
export const DASHBOARD_CHECKS_PER_PAGE_MAX = 20;
/** `description` of a status page (the real service's document). */
export const STATUS_PAGE_DESCRIPTION_MAX = 500;

/**
 * Longest `script` of a check, in characters: 1 MiB of (ASCII) source, the size the hardening suite holds
 * the service and `vigil validate` to. The body limit of the service sits above it.
 */
export const SCRIPT_MAX_LENGTH = 1024 * 1024;

/** Default check-result window: `from` = now − 6 h, `to` = `from` + 6 h. */
export const CHECK_RESULT_WINDOW_SECONDS = 6 * 60 * 60;
/** Default heartbeat-event window: the last 24 hours. */
export const HEARTBEAT_WINDOW_SECONDS = 24 * 60 * 60;

export const FREQUENCY_DEFAULT = 10;
export const FREQUENCY_OFFSET_MIN = 1;
/** Offsets (seconds) allowed for sub-minute checks (frequency 0). */
export const SUB_MINUTE_OFFSETS = [10, 20, 30] as const;

/**
 * The check kinds the offset rules tell apart. Spec §8 rule 1 names API and TCP checks as the ones
 * that run sub-minute; the real service's document also allows frequency 0 (with offset 10, 20 or
 * 30) for URL and DNS monitors, and Checkly projects use `Frequency.EVERY_10S` on them, so they
 * run sub-minute here too.
 */
export type FrequencyOffsetCheckKind = 'API' | 'TCP' | 'URL' | 'DNS' | 'MULTI_STEP' | 'OTHER';
export const SUB_MINUTE_CHECK_KINDS: readonly FrequencyOffsetCheckKind[] = ['API', 'TCP', 'URL', 'DNS'];

/**
 * The largest `frequencyOffset` allowed for a frequency above 0:
 * floor(frequency × 10) up to 60 minutes, ceil(frequency / 60) above.
 */
export function maxFrequencyOffset(frequency: number): number {
  return frequency <= 60 ? Math.floor(frequency * 10) : Math.ceil(frequency / 60);
}

/**
 * Checks `frequencyOffset` against the four rules of the API. Returns `undefined` when the pair is
 * valid, otherwise the complete, user-facing message (it names the field in double quotes, like
 * every message of `formatIssues`, so the constructs can show it unchanged).
 * Only API, TCP, URL and DNS checks may run sub-minute; for other kinds frequency 0 is reported here too,
 * because the offset rules are meaningless without a valid frequency.
 */
export function frequencyOffsetProblem(
  frequency: number,
  offset: number,
  checkKind: FrequencyOffsetCheckKind = 'API',
): string | undefined {
  if (!Number.isInteger(offset)) return '"frequencyOffset" must be an integer';
  if (offset < FREQUENCY_OFFSET_MIN) return `"frequencyOffset" must be greater than or equal to ${FREQUENCY_OFFSET_MIN}`;
  if (frequency === 0) {
    if (!SUB_MINUTE_CHECK_KINDS.includes(checkKind)) {
      return `"frequencyOffset" cannot be used with frequency 0: only API, TCP, URL and DNS checks run sub-minute`;
    }
    if (!(SUB_MINUTE_OFFSETS as readonly number[]).includes(offset)) {
      return '"frequencyOffset" must be 10, 20 or 30 when frequency is 0';
    }
    return undefined;
  }
  const max = maxFrequencyOffset(frequency);
  if (offset > max) return `"frequencyOffset" must be between 1 and ${max} when frequency is ${frequency}`;
  return undefined;
}
