/**
 * Status-page resources: services, incidents, incident updates and
 * subscriptions.
 *
 * Naming, because "incident update" means two things:
 * - `IncidentUpdate` is the body of `PUT /v1/status-pages/incidents/{incidentId}` (the usual
 *   `XUpdate` = PUT body convention);
 * - `IncidentStatusUpdate` is the resource the spec calls "incident update" (a status post on an
 *   incident), created with `IncidentStatusUpdateCreate` via
 *   `POST /v1/status-pages/incidents/{incidentId}/incident-updates`.
 */
import { z } from 'zod';
import { DateTimeString, allOptional, queryInt, withDefaults } from './helpers.js';
import { INCIDENT_NAME_MAX, INCIDENT_SERVICES_MAX, INCIDENT_UPDATES_MAX, LIST_LIMIT_MAX, LIST_LIMIT_MIN } from './limits.js';
import { IncidentSeverity, IncidentStatus, SubscriptionStatus } from './values.js';

// Services ------------------------------------------------------------------------------------

const statusPageServiceFields = { name: z.string().min(1) };

/** Body of `POST /v1/status-pages/services`. */
export const StatusPageServiceCreate = z.object(statusPageServiceFields);
export type StatusPageServiceCreate = z.infer<typeof StatusPageServiceCreate>;

/** Body of `PUT /v1/status-pages/services/{id}`: `name` is required, as the real document has it. */
export const StatusPageServiceUpdate = z.object(statusPageServiceFields);
export type StatusPageServiceUpdate = z.infer<typeof StatusPageServiceUpdate>;

export const StatusPageService = z.object({
  id: z.string(),
  name: z.string(),
  accountId: z.string(),
  checks: z.array(z.object({ id: z.string(), name: z.string() })),
  created_at: z.string(),
  updated_at: z.string().nullable(),
});
export type StatusPageService = z.infer<typeof StatusPageService>;

/** Query of `GET /v1/status-pages/services`: the real document's cursor paging (`limit` default 20). */
export const ServicesListQuery = z.object({
  limit: queryInt().min(LIST_LIMIT_MIN).max(LIST_LIMIT_MAX).default(20),
  /** The `nextId` of the previous page. */
  nextId: z.string().min(1).optional(),
});
export type ServicesListQuery = z.infer<typeof ServicesListQuery>;

/** One page of services, oldest first (the real document's `ServicesPaginatedResponse`); `nextId` null on the last. */
export const StatusPageServicePage = z.object({
  length: z.number(),
  entries: z.array(StatusPageService),
  nextId: z.string().nullable(),
});
export type StatusPageServicePage = z.infer<typeof StatusPageServicePage>;

/** A service as referenced from an incident: only `id` counts; other Service fields are ignored. */
export const IncidentServiceRef = z.object({ id: z.string().min(1) });
export type IncidentServiceRef = z.infer<typeof IncidentServiceRef>;

// Incident updates (the resource) ---------------------------------------------------------------

const incidentStatusUpdateFields = {
  description: z.string().min(1),
  status: IncidentStatus,
  publicIncidentUpdateDate: DateTimeString.optional(),
  notifySubscribers: z.boolean().optional(),
};

/** Body of `POST /v1/status-pages/incidents/{incidentId}/incident-updates`. */
export const IncidentStatusUpdateCreate = z.object(
  withDefaults(incidentStatusUpdateFields, { notifySubscribers: false }),
);
export type IncidentStatusUpdateCreate = z.infer<typeof IncidentStatusUpdateCreate>;

/** A status post on an incident (the spec's "incident update"). */
export const IncidentStatusUpdate = z.object({
  id: z.string(),
  description: z.string(),
  status: IncidentStatus,
  publicIncidentUpdateDate: z.string(),
  notifySubscribers: z.boolean(),
  created_at: z.string(),
});
export type IncidentStatusUpdate = z.infer<typeof IncidentStatusUpdate>;

// Incidents -----------------------------------------------------------------------------------

const incidentFields = {
  name: z.string().min(1).max(INCIDENT_NAME_MAX),
  severity: IncidentSeverity,
  services: z.array(IncidentServiceRef).max(INCIDENT_SERVICES_MAX),
  lastUpdateStatus: IncidentStatus.optional(),
};

/**
 * Body of `POST /v1/status-pages/incidents` (extension). Like the real service it may carry the
 * first status posts in `incidentUpdates`.
 */
export const IncidentCreate = z.object({
  ...withDefaults(incidentFields, { lastUpdateStatus: 'INVESTIGATING' }),
  incidentUpdates: z.array(IncidentStatusUpdateCreate).max(INCIDENT_UPDATES_MAX).default([]),
});
export type IncidentCreate = z.infer<typeof IncidentCreate>;
export type IncidentCreateInput = z.input<typeof IncidentCreate>;

/** Body of `PUT /v1/status-pages/incidents/{incidentId}` (merge; see the module comment). */
export const IncidentUpdate = z.object(allOptional(incidentFields));
export type IncidentUpdate = z.infer<typeof IncidentUpdate>;

export const Incident = z.object({
  id: z.string(),
  name: z.string(),
  severity: IncidentSeverity,
  services: z.array(StatusPageService),
  incidentUpdates: z.array(IncidentStatusUpdate),
  lastUpdateStatus: IncidentStatus,
  created_at: z.string(),
  updated_at: z.string().nullable(),
});
export type Incident = z.infer<typeof Incident>;

// Subscriptions -------------------------------------------------------------------------------

export const Subscription = z.object({
  id: z.string(),
  type: z.literal('EMAIL'),
  address: z.string(),
  status: SubscriptionStatus,
  created_at: z.string(),
  updated_at: z.string().nullable(),
});
export type Subscription = z.infer<typeof Subscription>;
