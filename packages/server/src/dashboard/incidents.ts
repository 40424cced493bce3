/**
 * Status-page incidents: the list (open or resolved, newest first, paged), one incident with its
 * updates, posting an update and resolving. Writes go through the same read-side functions and the
 * same limit as `POST /v1/status-pages/incidents/{id}/incident-updates` (routes/incidents.ts), as a
 * unit of work over the incidents port (the incident read and rewritten in one transaction), and the
 * page is answered only once the unit committed.
 *
 *     GET  /dashboard/incidents?state=open|resolved&page=
 *     GET  /dashboard/incidents/{id}
 *     POST /dashboard/incidents/{id}/updates      description, status
 *     POST /dashboard/incidents/{id}/resolve      description (optional)
 */
import { randomUUID } from 'node:crypto';
import { INCIDENT_STATUSES, INCIDENT_UPDATES_MAX, IncidentStatusUpdateCreate } from '@vigil/schema';
import type { Hono } from 'hono';
import type { AppEnv } from '../http/types.js';
import { addIncidentUpdate, updateIncident, type IncidentState } from '../readside/incidents.js';
import type { StoragePorts, TransactionPorts } from '../store/ports.js';
import { html, queryOf, timeTag, type SafeHtml } from './html.js';
import { csrfField, messagePage, renderPage } from './layout.js';
import type { PageReads } from './page-reads.js';
import { page, signedIn, signedInForm, type DashboardDeps } from './web.js';

export const INCIDENTS_PER_PAGE = 25;
export const RESOLVED_TEXT = 'Resolved.';

export interface IncidentsDeps extends DashboardDeps {
  readonly reads: PageReads;
  readonly ports: StoragePorts;
}

/** Ids the incidents port keys by; any other id names no incident. */
const isIncidentId = (id: string): boolean => id.length > 0 && id.length <= 255;

function incidentOf(ports: Pick<TransactionPorts, 'incidents'>, accountId: string, id: string): Promise<IncidentState | undefined> {
  return isIncidentId(id) ? ports.incidents.get(accountId, id) : Promise.resolve(undefined);
}

const statusLabel = (status: string) => status.charAt(0) + status.slice(1).toLowerCase();

function statusBadge(status: string): SafeHtml {
  return html`<span class="state ${status.toLowerCase()}"><span>${statusLabel(status)}</span></span>`;
}

/** A table of incidents linking to their pages (also used on a check's page). */
export function incidentRows(incidents: readonly IncidentState[]): SafeHtml {
  const rows = incidents.map(
    (incident) => html`<tr><td><a href="/dashboard/incidents/${encodeURIComponent(incident.id)}">${incident.name}</a></td>
<td>${statusBadge(incident.lastUpdateStatus)}</td><td>${statusLabel(incident.severity)}</td><td>${timeTag(incident.created_at)}</td><td>${timeTag(incident.updated_at)}</td></tr>`,
  );
  return html`<div class="scroll"><table><thead><tr><th scope="col">Incident</th><th scope="col">Status</th><th scope="col">Severity</th><th scope="col">Opened</th><th scope="col">Last update</th></tr></thead><tbody>${rows}</tbody></table></div>`;
}

export function registerIncidents(app: Hono<AppEnv>, deps: IncidentsDeps): void {
  const { reads, ports } = deps;

  app.get('/dashboard/incidents', async (c) => {
    const who = signedIn(c, deps);
    if (who instanceof Response) return who;
    const state = c.req.query('state');
    const resolved = state === 'open' ? false : state === 'resolved' ? true : undefined;
    const pageNumber = Math.max(1, Number.parseInt(c.req.query('page') ?? '1', 10) || 1);
    const found = await reads.incidents(who.session.accountId, resolved, { page: pageNumber, limit: INCIDENTS_PER_PAGE });
    const pages_ = Math.max(1, Math.ceil(found.total / INCIDENTS_PER_PAGE));
    const tab = (value: string | undefined, label: string) =>
      html`<a href="/dashboard/incidents${queryOf({ state: value })}"${(value ?? '') === (resolved === undefined ? '' : state) ? html` aria-current="true"` : ''}>${label}</a>`;
    const body = html`<h1>Incidents</h1>
<nav class="ranges" aria-label="Which incidents">${tab(undefined, 'All')}${tab('open', 'Open')}${tab('resolved', 'Resolved')}</nav>
${found.items.length === 0 ? html`<p class="empty">No incidents.</p>` : incidentRows(found.items)}
<nav class="pager" aria-label="Pages of incidents">
${pageNumber > 1 ? html`<a href="/dashboard/incidents${queryOf({ state: resolved === undefined ? undefined : state, page: pageNumber - 1 })}" rel="prev">Previous page</a>` : ''}
<span>Page ${pageNumber} of ${pages_}</span>
${pageNumber < pages_ ? html`<a href="/dashboard/incidents${queryOf({ state: resolved === undefined ? undefined : state, page: pageNumber + 1 })}" rel="next">Next page</a>` : ''}
</nav>`;
    return page(c, renderPage({ title: 'Incidents', viewer: who.viewer, section: 'incidents', body }));
  });

  app.get('/dashboard/incidents/:id', async (c) => {
    const who = signedIn(c, deps);
    if (who instanceof Response) return who;
    const accountId = who.session.accountId;
    const incident = await incidentOf(ports, accountId, c.req.param('id'));
    if (!incident) return page(c, messagePage('Incident not found', 'This account has no such incident.', who.viewer), 404);
    const services: string[] = [];
    for (const id of incident.serviceIds) services.push(String((await ports.documents.get('services', accountId, id))?.['name'] ?? id));
    const updates = [...incident.incidentUpdates].reverse().map(
      (update) => html`<li><p>${statusBadge(update.status)} <span class="meta">${timeTag(update.publicIncidentUpdateDate)}</span></p><p>${update.description}</p></li>`,
    );
    const action = `/dashboard/incidents/${encodeURIComponent(incident.id)}`;
    const resolved = incident.lastUpdateStatus === 'RESOLVED';
    const statusOptions = INCIDENT_STATUSES.map(
      (status) => html`<option value="${status}"${status === incident.lastUpdateStatus ? html` selected` : ''}>${statusLabel(status)}</option>`,
    );
    const body = html`<p><a href="/dashboard/incidents">← All incidents</a></p>
<h1>${incident.name}</h1>
<p>${statusBadge(incident.lastUpdateStatus)} <span class="meta">Severity ${statusLabel(incident.severity)} · opened ${timeTag(incident.created_at)}</span></p>
<p>Services: ${services.length === 0 ? html`<span class="meta">none</span>` : services.join(', ')}</p>
${resolved ? '' : html`<form method="post" action="${action}/resolve" class="card stack">${csrfField(who.session.csrfToken)}
<div><label for="resolve-text">Resolution note</label><input type="text" id="resolve-text" name="description" value="${RESOLVED_TEXT}"></div>
<button type="submit" class="primary">Resolve incident</button></form>`}
<form method="post" action="${action}/updates" class="card stack">${csrfField(who.session.csrfToken)}
<h2>Post an update</h2>
<div><label for="update-status">Status</label><select id="update-status" name="status">${statusOptions}</select></div>
<div><label for="update-text">Update</label><textarea id="update-text" name="description" required></textarea></div>
<button type="submit">Post update</button></form>
<section aria-labelledby="updates-title"><h2 id="updates-title">Updates</h2>
${updates.length === 0 ? html`<p class="empty">No updates yet.</p>` : html`<ol class="updates" reversed>${updates}</ol>`}</section>`;
    return page(c, renderPage({ title: incident.name, viewer: who.viewer, section: 'incidents', body }));
  });

  /** Posts one update (or, for a resolve at the update limit, only moves the status) in the unit. */
  const post = async (tx: TransactionPorts, accountId: string, incident: IncidentState, input: { description: string; status: (typeof INCIDENT_STATUSES)[number] }, resolving: boolean) => {
    const now = new Date();
    const next =
      resolving && incident.incidentUpdates.length >= INCIDENT_UPDATES_MAX
        ? updateIncident(incident, { lastUpdateStatus: 'RESOLVED' }, now)
        : addIncidentUpdate(incident, input, { newId: randomUUID, now }).incident;
    await tx.incidents.replace(accountId, next);
  };
  const notFoundPage = (c: Parameters<typeof page>[0], viewer: Parameters<typeof messagePage>[2]) => page(c, messagePage('Incident not found', 'This account has no such incident.', viewer), 404);

  app.post('/dashboard/incidents/:id/updates', async (c) => {
    const who = await signedInForm(c, deps);
    if (who instanceof Response) return who;
    const accountId = who.session.accountId;
    const id = c.req.param('id');
    const parsed = IncidentStatusUpdateCreate.safeParse({ description: who.form.get('description')?.trim() ?? '', status: who.form.get('status') ?? '' });
    // Read and rewritten in one unit, so an update another replica posted meanwhile is never lost.
    const outcome = await ports.transaction(async (tx) => {
      const incident = await incidentOf(tx, accountId, id);
      if (!incident) return 'missing' as const;
      if (!parsed.success) return 'invalid' as const;
      if (incident.incidentUpdates.length >= INCIDENT_UPDATES_MAX) return 'full' as const;
      await post(tx, accountId, incident, { description: parsed.data.description, status: parsed.data.status }, false);
      return incident;
    });
    if (outcome === 'missing') return notFoundPage(c, who.viewer);
    if (outcome === 'invalid') {
      return page(c, messagePage('Update not posted', 'An update needs a text and one of the statuses Investigating, Identified, Monitoring or Resolved.', who.viewer), 400);
    }
    if (outcome === 'full') {
      return page(c, messagePage('Update not posted', `This incident already has ${INCIDENT_UPDATES_MAX} updates, the most one incident may have; open a new incident.`, who.viewer), 409);
    }
    return c.redirect(`/dashboard/incidents/${encodeURIComponent(outcome.id)}`, 303);
  });

  app.post('/dashboard/incidents/:id/resolve', async (c) => {
    const who = await signedInForm(c, deps);
    if (who instanceof Response) return who;
    const accountId = who.session.accountId;
    const id = c.req.param('id');
    const incident = await ports.transaction(async (tx) => {
      const current = await incidentOf(tx, accountId, id);
      if (current && current.lastUpdateStatus !== 'RESOLVED') {
        await post(tx, accountId, current, { description: who.form.get('description')?.trim() || RESOLVED_TEXT, status: 'RESOLVED' }, true);
      }
      return current;
    });
    if (!incident) return notFoundPage(c, who.viewer);
    return c.redirect(`/dashboard/incidents/${encodeURIComponent(incident.id)}`, 303);
  });
}
