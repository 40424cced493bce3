/**
 * Status-page incidents and their updates: create and delete, get and PUT (merge), and
 * POST of an incident update, which moves `lastUpdateStatus`. The status rules — including what an
 * update after RESOLVED does (it reopens) — are in readside/incidents.ts. Each is a unit of work over
 * the storage ports (see the top of index.ts): the incidents port, and the documents port for the
 * services an incident names.
 */
import { randomUUID } from 'node:crypto';
import { ENDPOINTS, INCIDENT_UPDATES_MAX, type IncidentServiceRef } from '@vigil/schema';
import type { Hono } from 'hono';
import { badRequest, conflict, notFound } from '../http/errors.js';
import type { AppEnv } from '../http/types.js';
import { addIncidentUpdate, createIncident, updateIncident, type IncidentState } from '../readside/incidents.js';
import type { TransactionPorts } from '../store/ports.js';
import type { RouteContext } from './index.js';
import { checksOfService } from './status-page-services.js';

/** Ids the ports accept for a service or an incident; any other names none (the ports would refuse it as a bug). */
const isStoredId = (id: unknown): id is string => typeof id === 'string' && id.length > 0 && id.length <= 255;

export function register(_app: Hono<AppEnv>, ctx: RouteContext): void {
  const serviceIdsOf = async (tx: TransactionPorts, accountId: string, refs: readonly IncidentServiceRef[]): Promise<string[]> => {
    const ids: string[] = [];
    for (const [index, ref] of refs.entries()) {
      if (!isStoredId(ref.id) || !(await tx.documents.get('services', accountId, ref.id))) {
        throw badRequest(`"services[${index}].id" references status-page service ${ref.id}, which does not exist`, {
          source: 'payload',
          keys: [`services.${index}.id`],
        });
      }
      ids.push(ref.id);
    }
    return ids;
  };

  /** The response: services expanded (a service deleted since is left out), bookkeeping dropped. */
  const present = async (tx: TransactionPorts, accountId: string, incident: IncidentState) => {
    const { serviceIds, ...rest } = incident;
    const services: Array<Record<string, unknown>> = [];
    for (const id of serviceIds) {
      const service = await tx.documents.get('services', accountId, id);
      if (service) services.push({ ...service, accountId, checks: await checksOfService(tx, accountId, id) });
    }
    return { ...rest, services };
  };

  const find = async (tx: TransactionPorts, accountId: string, id: string): Promise<IncidentState> => {
    const incident = isStoredId(id) ? await tx.incidents.get(accountId, id) : undefined;
    if (!incident) throw notFound('Incident', id);
    return incident;
  };

  ctx.routeUnit(ENDPOINTS['incidents.create'], async ({ tx, account, body }) => {
    const incident = createIncident(
      {
        name: body.name,
        severity: body.severity,
        serviceIds: await serviceIdsOf(tx, account.id, body.services),
        lastUpdateStatus: body.lastUpdateStatus,
        initialUpdates: body.incidentUpdates,
      },
      { newId: randomUUID, now: new Date() },
    );
    await tx.incidents.insert(account.id, incident);
    return present(tx, account.id, incident);
  });

  ctx.routeUnit(ENDPOINTS['incidents.get'], async ({ tx, account, params }) => present(tx, account.id, await find(tx, account.id, params.incidentId)));

  // Newest first; the cursor is the row's insertion sequence, so new incidents never shift later pages.
  ctx.routeUnit(ENDPOINTS['incidents.list'], async ({ tx, account, query }) => {
    const before = query.nextId === undefined ? Number.MAX_SAFE_INTEGER : Number(Buffer.from(query.nextId, 'base64url').toString('utf8'));
    if (!Number.isSafeInteger(before) || before < 1) {
      throw badRequest('"nextId" is not a cursor this service gave out; pass the nextId of the previous page', { source: 'query', keys: ['nextId'] });
    }
    const rows = await tx.incidents.pageBefore(account.id, before, query.limit + 1);
    const page = rows.slice(0, query.limit);
    const last = page.at(-1);
    const entries = [];
    for (const row of page) entries.push(await present(tx, account.id, row.incident));
    return {
      length: page.length,
      entries,
      nextId: rows.length > query.limit && last ? Buffer.from(String(last.seq), 'utf8').toString('base64url') : null,
    };
  });

  // PUT merges the fields sent, so PATCH (the Checkly CLI's `incidents update --severity`) is the same call.
  for (const id of ['incidents.update', 'incidents.patch'] as const) ctx.routeUnit(ENDPOINTS[id], async ({ tx, account, params, body }) => {
    const incident = await find(tx, account.id, params.incidentId);
    const updated = updateIncident(
      incident,
      {
        name: body.name,
        severity: body.severity,
        serviceIds: body.services === undefined ? undefined : await serviceIdsOf(tx, account.id, body.services),
        lastUpdateStatus: body.lastUpdateStatus,
      },
      new Date(),
    );
    await tx.incidents.replace(account.id, updated);
    return present(tx, account.id, updated);
  });

  ctx.routeUnit(ENDPOINTS['incidents.delete'], async ({ tx, account, params }) => {
    if (!isStoredId(params.incidentId) || !(await tx.incidents.remove(account.id, params.incidentId))) throw notFound('Incident', params.incidentId);
  });

  ctx.routeUnit(ENDPOINTS['incidentUpdates.create'], async ({ tx, account, params, body }) => {
    const current = await find(tx, account.id, params.incidentId);
    // Each post rewrites the whole incident and every read returns every update: unbounded, a
    // stream of posts to one incident grew without limit.
    if (current.incidentUpdates.length >= INCIDENT_UPDATES_MAX) {
      throw conflict(`incident ${params.incidentId} already has ${INCIDENT_UPDATES_MAX} updates, the most one incident may have; open a new incident`);
    }
    const { incident, update } = addIncidentUpdate(current, body, { newId: randomUUID, now: new Date() });
    await tx.incidents.replace(account.id, incident);
    return update;
  });
}
