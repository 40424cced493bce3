/**
 * Status-page incidents and their updates: create and delete, get and PUT (merge), and
 * POST of an incident update, which moves `lastUpdateStatus`. The status rules — including what an
 * update after RESOLVED does (it reopens) — are in readside/incidents.ts.
 */
import { randomUUID } from 'node:crypto';
import { ENDPOINTS, INCIDENT_UPDATES_MAX, type IncidentServiceRef } from '@vigil/schema';
import type { Hono } from 'hono';
import { badRequest, conflict, notFound } from '../http/errors.js';
import type { AppEnv } from '../http/types.js';
import { addIncidentUpdate, createIncident, updateIncident, type IncidentState } from '../readside/incidents.js';
import { ServiceQueries } from '../store/sqlite/service-queries.js';
import type { RouteContext } from './index.js';

export function register(_app: Hono<AppEnv>, ctx: RouteContext): void {
  const { pages } = ctx.repositories.readSide;
  const { store } = ctx;
  // A service's `checks` are computed exactly as the services routes do: the checks whose
  // `triggerIncident.serviceId` points at it.
  const queries = new ServiceQueries(store.db);

  const serviceIdsOf = (accountId: string, refs: readonly IncidentServiceRef[]): string[] =>
    refs.map((ref, index) => {
      if (!store.services.get(accountId, ref.id)) {
        throw badRequest(`"services[${index}].id" references status-page service ${ref.id}, which does not exist`, {
          source: 'payload',
          keys: [`services.${index}.id`],
        });
      }
      return ref.id;
    });

  /** The response: services expanded (a service deleted since is left out), bookkeeping dropped. */
  const present = (accountId: string, incident: IncidentState) => {
    const { serviceIds, ...rest } = incident;
    const services = serviceIds.flatMap((id) => {
      const service = store.services.get(accountId, id);
      if (!service) return [];
      return [{ ...service, accountId, checks: queries.checksOfService(accountId, id) }];
    });
    return { ...rest, services };
  };

  const find = (accountId: string, id: string): IncidentState => {
    const incident = pages.incident(accountId, id);
    if (!incident) throw notFound('Incident', id);
    return incident;
  };

  ctx.route(ENDPOINTS['incidents.create'], ({ account, body }) => {
    const incident = createIncident(
      {
        name: body.name,
        severity: body.severity,
        serviceIds: serviceIdsOf(account.id, body.services),
        lastUpdateStatus: body.lastUpdateStatus,
        initialUpdates: body.incidentUpdates,
      },
      { newId: randomUUID, now: new Date() },
    );
    pages.insertIncident(account.id, incident);
    return present(account.id, incident);
  });

  ctx.route(ENDPOINTS['incidents.get'], ({ account, params }) => present(account.id, find(account.id, params.incidentId)));

  // Newest first; the cursor is the row's insertion sequence, so new incidents never shift later pages.
  ctx.route(ENDPOINTS['incidents.list'], ({ account, query }) => {
    const before = query.nextId === undefined ? Number.MAX_SAFE_INTEGER : Number(Buffer.from(query.nextId, 'base64url').toString('utf8'));
    if (!Number.isSafeInteger(before) || before < 1) {
      throw badRequest('"nextId" is not a cursor this service gave out; pass the nextId of the previous page', { source: 'query', keys: ['nextId'] });
    }
    const rows = queries.incidentsBefore(account.id, before, query.limit + 1);
    const page = rows.slice(0, query.limit);
    const last = page.at(-1);
    return {
      length: page.length,
      entries: page.map((row) => present(account.id, JSON.parse(row.doc) as IncidentState)),
      nextId: rows.length > query.limit && last ? Buffer.from(String(last.seq), 'utf8').toString('base64url') : null,
    };
  });

  // PUT merges the fields sent, so PATCH (the Checkly CLI's `incidents update --severity`) is the same call.
  for (const id of ['incidents.update', 'incidents.patch'] as const) ctx.route(ENDPOINTS[id], ({ account, params, body }) => {
    const incident = find(account.id, params.incidentId);
    const updated = updateIncident(
      incident,
      {
        name: body.name,
        severity: body.severity,
        serviceIds: body.services === undefined ? undefined : serviceIdsOf(account.id, body.services),
        lastUpdateStatus: body.lastUpdateStatus,
      },
      new Date(),
    );
    pages.replaceIncident(account.id, updated);
    return present(account.id, updated);
  });

  ctx.route(ENDPOINTS['incidents.delete'], ({ account, params }) => {
    if (!pages.deleteIncident(account.id, params.incidentId)) throw notFound('Incident', params.incidentId);
  });

  ctx.route(ENDPOINTS['incidentUpdates.create'], ({ account, params, body }) => {
    const current = find(account.id, params.incidentId);
    // Each post rewrites the whole incident and every read returns every update: unbounded, a
    // stream of posts to one incident grew without limit.
    if (current.incidentUpdates.length >= INCIDENT_UPDATES_MAX) {
      throw conflict(`incident ${params.incidentId} already has ${INCIDENT_UPDATES_MAX} updates, the most one incident may have; open a new incident`);
    }
    const { incident, update } = addIncidentUpdate(current, body, { newId: randomUUID, now: new Date() });
    pages.replaceIncident(account.id, incident);
    return update;
  });
}
