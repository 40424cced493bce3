/**
 * What the Checkly CLI's `checkly/constructs` exports (its constructs index), so that importing one
 * vigil lacks reads as "not supported yet" rather than as a typo. Only names: vigil implements its
 * own constructs; the list changes only when Checkly adds a construct.
 */
export const CHECKLY_CONSTRUCT_NAMES: ReadonlySet<string> = new Set([
  'AgenticCheck', 'AlertChannel', 'AlertChannelRef', 'AlertChannelSubscription', 'AlertEscalationBuilder', 'ApiCheck',
  'AssertionBuilder', 'BrowserCheck', 'Check', 'CheckGroup', 'CheckGroupRef', 'CheckGroupV1', 'CheckGroupV2', 'Dashboard',
  'DnsAssertionBuilder', 'DnsMonitor', 'EmailAlertChannel', 'Frequency', 'GrpcAssertionBuilder', 'GrpcMonitor',
  'HeartbeatMonitor', 'IcmpAssertionBuilder', 'IcmpMonitor', 'IncidentioAlertChannel', 'MSTeamsAlertChannel',
  'MaintenanceWindow', 'Monitor', 'MultiStepCheck', 'OpsgenieAlertChannel', 'PagerdutyAlertChannel',
  'PhoneCallAlertChannel', 'PlaywrightCheck', 'PrivateLocation', 'PrivateLocationCheckAssignment',
  'PrivateLocationGroupAssignment', 'PrivateLocationRef', 'Project', 'RetryStrategyBuilder', 'RuntimeCheck', 'Session',
  'SlackAlertChannel', 'SlackAppAlertChannel', 'SmsAlertChannel', 'SslAssertionBuilder', 'SslMonitor', 'StatusPage',
  'StatusPageService', 'StatusPageServiceRef', 'TcpAssertionBuilder', 'TcpMonitor', 'TelegramAlertChannel',
  'TracerouteAssertionBuilder', 'TracerouteMonitor', 'UrlAssertionBuilder', 'UrlMonitor', 'WebhookAlertChannel',
]);
