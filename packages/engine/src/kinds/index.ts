import type { ResourceKind } from '@vigil/constructs';
import { alertChannelAdapter } from './alert-channel.js';
import { apiCheckAdapter } from './api-check.js';
import { browserCheckAdapter } from './browser-check.js';
import { playwrightCheckAdapter } from './playwright-check.js';
import { checkGroupAdapter } from './check-group.js';
import { dashboardAdapter } from './dashboard.js';
import { dnsMonitorAdapter } from './dns-monitor.js';
import { tcpMonitorAdapter } from './tcp-monitor.js';
import { urlMonitorAdapter } from './url-monitor.js';
import { sslMonitorAdapter } from './ssl-monitor.js';
import { icmpMonitorAdapter } from './icmp-monitor.js';
import { tracerouteMonitorAdapter } from './traceroute-monitor.js';
import { grpcMonitorAdapter } from './grpc-monitor.js';
import { maintenanceWindowAdapter } from './maintenance-window.js';
import { multiStepCheckAdapter } from './multistep-check.js';
import { heartbeatMonitorAdapter } from './heartbeat-monitor.js';
import { privateLocationAdapter } from './private-location.js';
import { statusPageServiceAdapter } from './status-page-service.js';
import { statusPageAdapter } from './status-page.js';
import type { KindAdapter } from './types.js';

/** Every kind vigil manages; the planner and apply are generic over this table. */
export const ADAPTERS: Readonly<Record<ResourceKind, KindAdapter>> = {
  'api-check': apiCheckAdapter,
  'multistep-check': multiStepCheckAdapter,
  'heartbeat-monitor': heartbeatMonitorAdapter,
  'browser-check': browserCheckAdapter,
  'playwright-check': playwrightCheckAdapter,
  'check-group': checkGroupAdapter,
  'maintenance-window': maintenanceWindowAdapter,
  'private-location': privateLocationAdapter,
  'status-page-service': statusPageServiceAdapter,
  'status-page': statusPageAdapter,
  dashboard: dashboardAdapter,
  'alert-channel': alertChannelAdapter,
  'dns-monitor': dnsMonitorAdapter,
  'tcp-monitor': tcpMonitorAdapter,
  'url-monitor': urlMonitorAdapter,
  'ssl-monitor': sslMonitorAdapter,
  'icmp-monitor': icmpMonitorAdapter,
  'traceroute-monitor': tracerouteMonitorAdapter,
  'grpc-monitor': grpcMonitorAdapter,
};

export function adapterFor(kind: ResourceKind): KindAdapter {
  const adapter = ADAPTERS[kind];
  if (!adapter) throw new Error(`this is a bug in vigil: no adapter for kind "${String(kind)}"`);
  return adapter;
}

export type { CallRequest, KindAdapter, Payload, RemoteObject, ServiceCalls } from './types.js';
