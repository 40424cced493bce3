/**
 * `@vigil/constructs`: what users write (re-exported as `vigil/constructs`), plus the Project that
 * the engine's loader uses to collect, validate and synthesise it.
 */

// Plumbing shared with the loader.
export { CONSTRUCT_BRAND, CONFIG_SOURCE_KEY } from './brand.js';
export { isConstruct, isRef, isExternalRef, type Ref, type ExternalRef, type ConstructRef } from './ref.js';
export { Project, withProject, tryCurrentProject, LATE_CONSTRUCT_KEY } from './project.js';
export { Construct, type ConstructProps, type SynthesisResult } from './construct.js';
export { LOGICAL_ID_PATTERN } from './logical-id.js';
export { isScriptOwner, type ScriptSource, type ScriptField, type ScriptBundleRequest, type ScriptOwner } from './script.js';
export { parseStackFrame, deriveSourceLocation, isPendingSource } from './source-location.js';
export type { Diagnostic, ExternalRefEdge, ResourceKind, ResourceSpec, RefEdge, SourceLocation } from './types.js';
export { RESOURCE_KINDS } from './types.js';

// Config.
export { defineConfig, DEFAULT_CHECK_MATCH, multiStepCheckDefaults, type VigilConfig, type ChecklyConfig, type CheckDefaults, type StateConfig, type LocalStateConfig, type HttpStateConfig, type ServiceStateConfig, type PostgresStateConfig, type S3StateConfig, type ApiConfig, type CliConfig, type MultiStepCheckDefaults, type BrowserCheckDefaults, type PlaywrightCheckEntry } from './config.js';

// Constructs.
export { ApiCheck, type ApiCheckProps, type Request, type KeyValue, type BasicAuth } from './api-check.js';
export { MultiStepCheck, type MultiStepCheckProps, type Dependency } from './multi-step-check.js';
export { HeartbeatMonitor, HeartbeatCheck, type HeartbeatMonitorProps, type HeartbeatCheckProps } from './heartbeat-monitor.js';
export { DnsMonitor, type DnsMonitorProps, type DnsRequest } from './dns-monitor.js';
export { AgenticCheck, type AgenticCheckProps } from './agentic-check.js';
export { SslMonitor, type SslMonitorProps, type SslRequest, type SslConfig } from './ssl-monitor.js';
export { SslAssertionBuilder, SslPropertyAssertionBuilder, TlsVersion, type SslAssertion } from './ssl-assertion.js';
export { IcmpMonitor, IcmpAssertionBuilder, IcmpAssertionValueBuilder, type IcmpMonitorProps, type IcmpRequest, type IcmpAssertion, type IcmpLatencyProperty } from './icmp-monitor.js';
export {
  TracerouteMonitor, TracerouteAssertionBuilder, TracerouteNumericAssertionBuilder, TracerouteResponseTimeAssertionBuilder,
  type TracerouteMonitorProps, type TracerouteRequest, type TracerouteAssertion, type TracerouteResponseTimeProperty,
} from './traceroute-monitor.js';
export {
  GrpcMonitor, GrpcAssertionBuilder, GrpcNumericAssertionBuilder, GrpcGeneralAssertionBuilder, GrpcHealthCheckStatusAssertionBuilder,
  type GrpcMonitorProps, type GrpcRequest, type GrpcConfig, type GrpcAssertion, type GrpcHealthStatus,
} from './grpc-monitor.js';
export { TcpMonitor, TcpCheck, type TcpMonitorProps, type TcpCheckProps, type TcpRequest } from './tcp-monitor.js';
export { TcpAssertionBuilder, TcpGeneralAssertionBuilder, TcpNumericAssertionBuilder, type TcpAssertion } from './tcp-assertion.js';
export { UrlMonitor, type UrlMonitorProps, type UrlRequest } from './url-monitor.js';
export { UrlAssertionBuilder, UrlStatusCodeAssertionBuilder, type UrlAssertion } from './url-assertion.js';
export { DnsAssertionBuilder, DnsGeneralAssertionBuilder, DnsNumericAssertionBuilder, type DnsAssertion } from './dns-assertion.js';
export { BrowserCheck, type BrowserCheckProps } from './browser-check.js';
export { PlaywrightCheck, playwrightBundleHash, type PlaywrightCheckProps, type PlaywrightSuiteBundle } from './playwright-check.js';
export type { CheckProps, IncidentTrigger, EnvironmentVariable } from './check.js';
export { CheckGroupV2, CheckGroup, type CheckGroupV2Props, type CheckGroupProps, type ApiCheckDefaults, type CheckGroupReference } from './check-group-v2.js';
export { CheckGroupV1, type CheckGroupV1Props } from './check-group-v1.js';
export { MaintenanceWindow, type MaintenanceWindowProps, type DateInput } from './maintenance-window.js';
export { PrivateLocation, type PrivateLocationProps, type PrivateLocationReference } from './private-location.js';
export { StatusPageService, type StatusPageServiceProps, type StatusPageServiceReference } from './status-page-service.js';
export { StatusPage, type StatusPageProps, type StatusPageCardProps, type StatusPageThemeColors, type StatusPageColors } from './status-page.js';
export { Dashboard, type DashboardProps, type DashboardCss } from './dashboard.js';
export { AlertChannel, type AlertChannelProps, type AlertChannelReference } from './alert-channel.js';
export { EmailAlertChannel, type EmailAlertChannelProps } from './email-alert-channel.js';
export { SlackAlertChannel, type SlackAlertChannelProps } from './slack-alert-channel.js';
export { SlackAppAlertChannel, type SlackAppAlertChannelProps } from './slack-app-alert-channel.js';
export { WebhookAlertChannel, type WebhookAlertChannelProps } from './webhook-alert-channel.js';
export { MSTeamsAlertChannel, TelegramAlertChannel, IncidentioAlertChannel, type MSTeamsAlertChannelProps, type TelegramAlertChannelProps, type IncidentioAlertChannelProps } from './webhook-channels.js';
export { SmsAlertChannel, type SmsAlertChannelProps } from './sms-alert-channel.js';
export { PhoneCallAlertChannel, type PhoneCallAlertChannelProps } from './phone-call-alert-channel.js';
export { PagerdutyAlertChannel, type PagerdutyAlertChannelProps } from './pagerduty-alert-channel.js';
export { OpsgenieAlertChannel, type OpsgenieAlertChannelProps } from './opsgenie-alert-channel.js';

// Builders.
export { Frequency, type FrequencyValue } from './frequency.js';
export { AssertionBuilder, NumericAssertionBuilder, GeneralAssertionBuilder, type Assertion } from './assertion.js';
export { RetryStrategyBuilder, type RetryStrategy, type RetryStrategyOptions, type SingleRetryStrategyOptions, type RetryCondition } from './retry-strategy.js';
export {
  AlertEscalationBuilder,
  type AlertEscalation,
  type Reminders,
  type ParallelRunFailureThreshold,
} from './alert-escalation-policy.js';
export type * from './values.js';
export { Engine } from './engine.js';
