/**
 * Value-set types re-exported from `@vigil/schema` under the names users see in props, so there
 * is one definition of each set.
 */
export type {
  Location,
  RuntimeId,
  IncidentSeverity,
  HttpMethod,
  BodyType,
  IpFamily,
  RepeatUnit,
  OpsgenieRegion,
  OpsgeniePriority,
  AssertionSource,
  AssertionComparison,
  RetryStrategyType,
  RetryOnlyOn,
  DashboardWidth,
  DashboardRefreshRate,
  DashboardPaginationRate,
  StatusPageTheme,
} from '@vigil/schema';
