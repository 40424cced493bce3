/**
 * What a public status page says about a service, from what the account has said (incidents) and
 * what the service knows (maintenance windows, the last runs of the checks linked to it).
 *
 * A service is, in this order of precedence:
 * - `outage`: an open incident (not RESOLVED) of severity MAJOR or CRITICAL is on it;
 * - `degraded`: an open incident of severity MINOR or MEDIUM is on it;
 * - `maintenance`: an active maintenance window covers one of its linked checks (the checks whose
 *   `triggerIncident.serviceId` is the service);
 * - `degraded`: the last FINAL run of one of its linked checks was degraded (passing, but slower
 *   than its `degradedResponseTime`). There is no incident for slowness, and a visitor should learn
 *   of it from the page the owner publishes;
 * - `operational` otherwise.
 * Incidents come first because they are what the owner chose to publish; maintenance comes before a
 * degraded run because work on a check is the likely reason it is slow. A failing linked check alone
 * changes nothing: its `triggerIncident` opens an incident when the alert escalates, and the page
 * follows that incident rather than second-guessing the owner's threshold.
 */
import type { IncidentSeverity } from '@vigil/schema';
import type { IncidentState } from '../readside/incidents.js';

export type ServiceState = 'operational' | 'degraded' | 'outage' | 'maintenance';

export interface ServiceFacts {
  /** Open incidents on the service. */
  readonly openIncidents: readonly Pick<IncidentState, 'severity'>[];
  /** Whether an active maintenance window covers one of its linked checks. */
  readonly inMaintenance: boolean;
  /** Whether the last FINAL run of one of its linked checks was degraded. */
  readonly checkDegraded: boolean;
}

const SEVERITY_RANK: Readonly<Record<IncidentSeverity, number>> = { MINOR: 1, MEDIUM: 2, MAJOR: 3, CRITICAL: 4 };

/** The worst severity among `incidents`, undefined for none. */
export function worstSeverity(incidents: readonly Pick<IncidentState, 'severity'>[]): IncidentSeverity | undefined {
  let worst: IncidentSeverity | undefined;
  for (const { severity } of incidents) if (worst === undefined || SEVERITY_RANK[severity] > SEVERITY_RANK[worst]) worst = severity;
  return worst;
}

export function serviceState(facts: ServiceFacts): ServiceState {
  const worst = worstSeverity(facts.openIncidents);
  if (worst === 'MAJOR' || worst === 'CRITICAL') return 'outage';
  if (worst !== undefined) return 'degraded';
  if (facts.inMaintenance) return 'maintenance';
  return facts.checkDegraded ? 'degraded' : 'operational';
}

/** The words a visitor reads for a state. */
export const STATE_LABELS: Readonly<Record<ServiceState, string>> = {
  operational: 'Operational',
  degraded: 'Degraded performance',
  outage: 'Outage',
  maintenance: 'Under maintenance',
};

/** A component status of Atlassian Statuspage's `summary.json`. */
export type ComponentStatus = 'operational' | 'degraded_performance' | 'partial_outage' | 'major_outage' | 'under_maintenance';

/**
 * The component status of a service: `outage` is split by the worst open severity (CRITICAL is a
 * major outage, MAJOR a partial one), as Statuspage widgets colour those two differently.
 */
export function componentStatus(state: ServiceState, facts: Pick<ServiceFacts, 'openIncidents'>): ComponentStatus {
  switch (state) {
    case 'operational':
      return 'operational';
    case 'degraded':
      return 'degraded_performance';
    case 'maintenance':
      return 'under_maintenance';
    case 'outage':
      return worstSeverity(facts.openIncidents) === 'CRITICAL' ? 'major_outage' : 'partial_outage';
  }
}

/** A Statuspage impact (an incident's `impact`, the page's `status.indicator`). */
export type Indicator = 'none' | 'minor' | 'major' | 'critical';

export function impactOf(severity: IncidentSeverity): Indicator {
  return severity === 'CRITICAL' ? 'critical' : severity === 'MAJOR' ? 'major' : 'minor';
}

/**
 * The page's overall status: the worst of its services. Statuspage has no indicator for
 * maintenance in the four values widgets know, so maintenance is `none` with its own description.
 */
export function pageStatus(components: readonly ComponentStatus[]): { indicator: Indicator; description: string } {
  if (components.includes('major_outage')) return { indicator: 'critical', description: 'Major System Outage' };
  if (components.includes('partial_outage')) return { indicator: 'major', description: 'Partial System Outage' };
  if (components.includes('degraded_performance')) return { indicator: 'minor', description: 'Minor Service Outage' };
  if (components.includes('under_maintenance')) return { indicator: 'none', description: 'Service Under Maintenance' };
  return { indicator: 'none', description: 'All Systems Operational' };
}
