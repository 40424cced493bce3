import type { EndpointQuery } from '@vigil/schema';
import type { EndpointCaller } from '../caller.js';

/**
 * Per-type analytics reports. `metrics` is required; arrays (`metrics`, `filterByStatus`) are sent
 * comma-separated. The service limits analytics more tightly (30 / 60 s by default) than other calls.
 */
export function analyticsApi(caller: EndpointCaller) {
  return {
    apiChecks: (id: string, query: EndpointQuery<'analytics.apiChecks'>) => caller.call('analytics.apiChecks', { params: { id }, query }),
    tcpChecks: (id: string, query: EndpointQuery<'analytics.tcpChecks'>) => caller.call('analytics.tcpChecks', { params: { id }, query }),
    multiStepChecks: (id: string, query: EndpointQuery<'analytics.multiStepChecks'>) =>
      caller.call('analytics.multiStepChecks', { params: { id }, query }),
    dns: (id: string, query: EndpointQuery<'analytics.dns'>) => caller.call('analytics.dns', { params: { id }, query }),
    urlMonitors: (id: string, query: EndpointQuery<'analytics.urlMonitors'>) => caller.call('analytics.urlMonitors', { params: { id }, query }),
    /** `metrics` defaults to availability here, as the real service's document has it. */
    heartbeatChecks: (id: string, query: EndpointQuery<'analytics.heartbeatChecks'> = {}) =>
      caller.call('analytics.heartbeatChecks', { params: { id }, query }),
    browserChecks: (id: string, query: EndpointQuery<'analytics.browserChecks'>) => caller.call('analytics.browserChecks', { params: { id }, query }),
    playwrightChecks: (id: string, query: EndpointQuery<'analytics.playwrightChecks'>) =>
      caller.call('analytics.playwrightChecks', { params: { id }, query }),
    /** Availability and response-time percentiles of up to 100 checks over one quick range. */
    checks: (checkIds: string[], query: EndpointQuery<'analytics.batch'> = {}) =>
      caller.call('analytics.batch', { body: { checkIds }, query }),
  };
}

export type AnalyticsApi = ReturnType<typeof analyticsApi>;
