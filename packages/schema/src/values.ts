/**
 * Value sets of the API, plus the values the spec leaves open, settled from the real
 * service's OpenAPI document (`shared/reference/real-service-openapi.json`). Each set is exported
 * twice: as a readonly tuple (`LOCATIONS`) for code that iterates, and as a zod enum (`Location`)
 * whose inferred type has the same name.
 */
import { z } from 'zod';
import { MISSING_MESSAGE } from './errors.js';

/**
 * zod reports a missing enum value as "invalid option" without the input, which `formatIssues`
 * could not tell apart from a wrong value; this error map marks the missing case so it reads
 * `"field" is required` like every other missing field.
 */
const missingAware = {
  error: (issue: { input?: unknown }) => (issue.input === undefined ? MISSING_MESSAGE : undefined),
};


export const LOCATIONS = [
  'us-east-1', 'us-east-2', 'us-west-1', 'us-west-2', 'ca-central-1', 'sa-east-1', 'eu-west-1',
  'eu-central-1', 'eu-west-2', 'eu-west-3', 'eu-north-1', 'eu-south-1', 'me-south-1',
  'ap-southeast-1', 'ap-northeast-1', 'ap-east-1', 'ap-southeast-2', 'ap-southeast-3',
  'ap-northeast-2', 'ap-northeast-3', 'ap-south-1', 'af-south-1',
] as const;
/** Data-center location a check runs from. */
export const Location = z.enum(LOCATIONS, missingAware);
export type Location = z.infer<typeof Location>;

/**
 * Runtime ids, newest first: the API's, and `2026.04`, which the real service's document lists and
 * Checkly's own docs use (a project written for it must load).
 */
export const RUNTIME_IDS = ['2026.04', '2025.04', '2024.09', '2024.02', '2023.09', '2023.02', '2022.10'] as const;
export const RuntimeId = z.enum(RUNTIME_IDS, missingAware);
export type RuntimeId = z.infer<typeof RuntimeId>;

/** Check frequencies in minutes; `0` means sub-minute runs (see `frequencyOffset`). */
export const FREQUENCIES = [0, 1, 2, 5, 10, 15, 30, 60, 120, 180, 360, 720, 1440] as const;
export const Frequency = z.literal(FREQUENCIES, missingAware);
export type Frequency = z.infer<typeof Frequency>;

/** Multi-step checks cannot run sub-minute, so their set lacks `0`. */
export const MULTI_STEP_FREQUENCIES = [1, 2, 5, 10, 15, 30, 60, 120, 180, 360, 720, 1440] as const;
export const MultiStepFrequency = z.literal(MULTI_STEP_FREQUENCIES, missingAware);
export type MultiStepFrequency = z.infer<typeof MultiStepFrequency>;

export const CHECK_TYPES = ['API', 'BROWSER', 'HEARTBEAT', 'MULTI_STEP', 'TCP', 'PLAYWRIGHT', 'URL', 'DNS', 'SSL', 'ICMP', 'TRACEROUTE', 'GRPC'] as const;
export const CheckType = z.enum(CHECK_TYPES, missingAware);
export type CheckType = z.infer<typeof CheckType>;

export const INCIDENT_SEVERITIES = ['CRITICAL', 'MAJOR', 'MEDIUM', 'MINOR'] as const;
export const IncidentSeverity = z.enum(INCIDENT_SEVERITIES, missingAware);
export type IncidentSeverity = z.infer<typeof IncidentSeverity>;

export const INCIDENT_STATUSES = ['INVESTIGATING', 'IDENTIFIED', 'MONITORING', 'RESOLVED'] as const;
export const IncidentStatus = z.enum(INCIDENT_STATUSES, missingAware);
export type IncidentStatus = z.infer<typeof IncidentStatus>;

/** In the real service's order: `SLACK_APP` (the Checkly Slack App) follows the incoming-webhook `SLACK`. */
export const ALERT_CHANNEL_TYPES = ['EMAIL', 'SLACK', 'SLACK_APP', 'WEBHOOK', 'SMS', 'PAGERDUTY', 'OPSGENIE', 'CALL'] as const;
export const AlertChannelType = z.enum(ALERT_CHANNEL_TYPES, missingAware);
export type AlertChannelType = z.infer<typeof AlertChannelType>;

export const ASSERTION_SOURCES = ['STATUS_CODE', 'JSON_BODY', 'HEADERS', 'TEXT_BODY', 'RESPONSE_TIME'] as const;
export const AssertionSource = z.enum(ASSERTION_SOURCES, missingAware);
export type AssertionSource = z.infer<typeof AssertionSource>;

export const ASSERTION_COMPARISONS = [
  'EQUALS', 'NOT_EQUALS', 'HAS_KEY', 'NOT_HAS_KEY', 'HAS_VALUE', 'NOT_HAS_VALUE', 'IS_EMPTY',
  'NOT_EMPTY', 'GREATER_THAN', 'LESS_THAN', 'CONTAINS', 'NOT_CONTAINS', 'IS_NULL', 'NOT_NULL',
] as const;
export const AssertionComparison = z.enum(ASSERTION_COMPARISONS, missingAware);
export type AssertionComparison = z.infer<typeof AssertionComparison>;

export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'HEAD', 'DELETE', 'PATCH'] as const;
export const HttpMethod = z.enum(HTTP_METHODS, missingAware);
export type HttpMethod = z.infer<typeof HttpMethod>;

export const BODY_TYPES = ['JSON', 'FORM', 'RAW', 'GRAPHQL', 'NONE'] as const;
export const BodyType = z.enum(BODY_TYPES, missingAware);
export type BodyType = z.infer<typeof BodyType>;

export const IP_FAMILIES = ['IPv4', 'IPv6'] as const;
export const IpFamily = z.enum(IP_FAMILIES, missingAware);
export type IpFamily = z.infer<typeof IpFamily>;

export const ESCALATION_TYPES = ['RUN_BASED', 'TIME_BASED'] as const;
export const EscalationType = z.enum(ESCALATION_TYPES, missingAware);
export type EscalationType = z.infer<typeof EscalationType>;

export const RETRY_STRATEGY_TYPES = ['FIXED', 'LINEAR', 'EXPONENTIAL', 'SINGLE_RETRY'] as const;
export const RetryStrategyType = z.enum(RETRY_STRATEGY_TYPES, missingAware);
export type RetryStrategyType = z.infer<typeof RetryStrategyType>;

export const RETRY_ONLY_ON = ['NETWORK_ERROR'] as const;
export const RetryOnlyOn = z.enum(RETRY_ONLY_ON, missingAware);
export type RetryOnlyOn = z.infer<typeof RetryOnlyOn>;

/** The literal a check group sends instead of a strategy to defer to each check's own. */
export const FALLBACK_RETRY_STRATEGY = 'FALLBACK' as const;

export const REPEAT_UNITS = ['DAY', 'WEEK', 'MONTH'] as const;
export const RepeatUnit = z.enum(REPEAT_UNITS, missingAware);
export type RepeatUnit = z.infer<typeof RepeatUnit>;

export const RESULT_TYPES = ['FINAL', 'ATTEMPT', 'ALL'] as const;
export const ResultType = z.enum(RESULT_TYPES, missingAware);
export type ResultType = z.infer<typeof ResultType>;

/** `FAILING` is the only state the spec names; the rest come from the real service. */
export const HEARTBEAT_EVENT_STATES = ['FAILING', 'EARLY', 'RECEIVED', 'GRACE', 'LATE'] as const;
export const HeartbeatEventState = z.enum(HEARTBEAT_EVENT_STATES, missingAware);
export type HeartbeatEventState = z.infer<typeof HeartbeatEventState>;

export const HEARTBEAT_TIME_UNITS = ['seconds', 'minutes', 'hours', 'days'] as const;
export const HeartbeatTimeUnit = z.enum(HEARTBEAT_TIME_UNITS, missingAware);
export type HeartbeatTimeUnit = z.infer<typeof HeartbeatTimeUnit>;

export const SUBSCRIPTION_STATUSES = ['PENDING', 'VERIFIED'] as const;
export const SubscriptionStatus = z.enum(SUBSCRIPTION_STATUSES, missingAware);
export type SubscriptionStatus = z.infer<typeof SubscriptionStatus>;

export const QUICK_RANGES = ['last24Hours', 'last7Days', 'last30Days', 'thisWeek', 'thisMonth', 'lastWeek', 'lastMonth'] as const;
export const QuickRange = z.enum(QUICK_RANGES, missingAware);
export type QuickRange = z.infer<typeof QuickRange>;

export const STATUS_FILTERS = ['success', 'failure'] as const;
export const StatusFilter = z.enum(STATUS_FILTERS, missingAware);
export type StatusFilter = z.infer<typeof StatusFilter>;

export const OPSGENIE_REGIONS = ['EU', 'US'] as const;
export const OpsgenieRegion = z.enum(OPSGENIE_REGIONS, missingAware);
export type OpsgenieRegion = z.infer<typeof OpsgenieRegion>;

export const OPSGENIE_PRIORITIES = ['P1', 'P2', 'P3', 'P4', 'P5'] as const;
export const OpsgeniePriority = z.enum(OPSGENIE_PRIORITIES, missingAware);
export type OpsgeniePriority = z.infer<typeof OpsgeniePriority>;

/** Alert-settings value sets: the real service accepts only these numbers. */
export const REMINDER_AMOUNTS = [0, 1, 2, 3, 4, 5, 100000] as const;
export const REMINDER_INTERVALS = [1, 2, 3, 4, 5, 10, 15, 30] as const;
export const FAILED_RUN_THRESHOLDS = [1, 2, 3, 4, 5] as const;
export const MINUTES_FAILING_THRESHOLDS = [5, 10, 15, 30] as const;
export const PARALLEL_RUN_FAILURE_PERCENTAGES = [10, 20, 30, 40, 50, 60, 70, 80, 90, 100] as const;

/** `width` of a dashboard: the whole screen, or a 960-pixel column in its centre. */
export const DASHBOARD_WIDTHS = ['FULL', '960PX'] as const;
export const DashboardWidth = z.enum(DASHBOARD_WIDTHS, missingAware);
export type DashboardWidth = z.infer<typeof DashboardWidth>;

/**
 * Seconds between reloads of a dashboard, and between its page turns. The real document types both
 * as any number; these are the values Checkly's construct types them as and its web app offers.
 */
export const DASHBOARD_REFRESH_RATES = [60, 300, 600] as const;
export const DashboardRefreshRate = z.literal(DASHBOARD_REFRESH_RATES, missingAware);
export type DashboardRefreshRate = z.infer<typeof DashboardRefreshRate>;

export const DASHBOARD_PAGINATION_RATES = [30, 60, 300] as const;
export const DashboardPaginationRate = z.literal(DASHBOARD_PAGINATION_RATES, missingAware);
export type DashboardPaginationRate = z.infer<typeof DashboardPaginationRate>;

/** `defaultTheme` of a status page: the viewer's system setting, or always dark or light. */
export const STATUS_PAGE_THEMES = ['AUTO', 'DARK', 'LIGHT'] as const;
export const StatusPageTheme = z.enum(STATUS_PAGE_THEMES, missingAware);
export type StatusPageTheme = z.infer<typeof StatusPageTheme>;
