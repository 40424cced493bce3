/**
 * Status-page incidents and their updates .
 *
 * `lastUpdateStatus` is the status of the most recently posted update. Decision — an update after
 * RESOLVED: a new update with a non-RESOLVED status REOPENS the incident (its `lastUpdateStatus`
 * becomes that status), because a regression is a continuation of the same incident for its
 * subscribers, and refusing it would force a duplicate incident. A RESOLVED update on a resolved
 * incident is accepted and keeps it RESOLVED. An update sent without a status carries the
 * incident's current status (a text-only update changes nothing). A PUT may set `lastUpdateStatus`
 * directly (the real service's PUT body has it); the next update moves it again.
 */
import type { IncidentSeverity, IncidentStatus, IncidentStatusUpdate } from '@vigil/schema';
import type { IncidentDocument } from '../store/incident-ports.js';

/** A posted update is stored exactly as the wire shape. */
export type IncidentUpdateState = IncidentStatusUpdate;

/** An incident as stored (the incidents port keeps this shape). */
export type IncidentState = IncidentDocument;

export interface IncidentUpdateInput {
  description: string;
  status?: IncidentStatus | undefined;
  publicIncidentUpdateDate?: string | undefined;
  notifySubscribers?: boolean | undefined;
}

export interface IdsAndClock {
  newId: () => string;
  now: Date;
}

/**
 * A new incident with its initial updates (the real service sends one; zero or more are accepted).
 * With updates, the last one's status is the incident's status; without, `lastUpdateStatus` (default
 * INVESTIGATING) is.
 */
export function createIncident(
  input: {
    name: string;
    severity: IncidentSeverity;
    serviceIds: string[];
    initialUpdates: readonly IncidentUpdateInput[];
    lastUpdateStatus?: IncidentStatus | undefined;
  },
  env: IdsAndClock,
): IncidentState {
  const stamp = env.now.toISOString();
  let status: IncidentStatus = input.lastUpdateStatus ?? 'INVESTIGATING';
  const incidentUpdates = input.initialUpdates.map((update) => {
    status = update.status ?? status;
    return updateFrom(update, status, env);
  });
  return {
    id: env.newId(),
    name: input.name,
    severity: input.severity,
    serviceIds: [...input.serviceIds],
    lastUpdateStatus: status,
    incidentUpdates,
    created_at: stamp,
    updated_at: stamp,
  };
}

/** PUT: merge semantics — omitted fields keep their value. */
export function updateIncident(
  incident: IncidentState,
  patch: {
    name?: string | undefined;
    severity?: IncidentSeverity | undefined;
    serviceIds?: string[] | undefined;
    lastUpdateStatus?: IncidentStatus | undefined;
  },
  now: Date,
): IncidentState {
  return {
    ...incident,
    name: patch.name ?? incident.name,
    severity: patch.severity ?? incident.severity,
    serviceIds: patch.serviceIds ? [...patch.serviceIds] : incident.serviceIds,
    lastUpdateStatus: patch.lastUpdateStatus ?? incident.lastUpdateStatus,
    updated_at: now.toISOString(),
  };
}

/** Posts an update; returns the incident moved to the update's status, and the update itself. */
export function addIncidentUpdate(
  incident: IncidentState,
  input: IncidentUpdateInput,
  env: IdsAndClock,
): { incident: IncidentState; update: IncidentUpdateState } {
  const update = updateFrom(input, input.status ?? incident.lastUpdateStatus, env);
  return {
    update,
    incident: {
      ...incident,
      lastUpdateStatus: update.status,
      incidentUpdates: [...incident.incidentUpdates, update],
      updated_at: env.now.toISOString(),
    },
  };
}

function updateFrom(input: IncidentUpdateInput, status: IncidentStatus, env: IdsAndClock): IncidentUpdateState {
  const stamp = env.now.toISOString();
  return {
    id: env.newId(),
    description: input.description,
    status,
    publicIncidentUpdateDate: input.publicIncidentUpdateDate ?? stamp,
    notifySubscribers: input.notifySubscribers ?? false,
    created_at: stamp,
  };
}
