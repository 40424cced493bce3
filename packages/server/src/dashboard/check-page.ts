/**
 * One check: its facts and state, analytics charts for a quick range (drawn by uPlot in the browser
 * from `analytics.json`, with the same numbers in a table for readers without script or sight), its
 * results (paged, newest first), its error groups with their archive action, the notifications
 * sent about it and the incidents of its status-page service.
 *
 *     GET  /dashboard/checks/{id}?range=&page=
 *     GET  /dashboard/checks/{id}/analytics.json?range=
 *     GET  /dashboard/checks/{id}/results/{resultId}        (result-page.ts)
 *     POST /dashboard/checks/{id}/error-groups/{groupId}/archive
 */
import type { Context, Hono } from 'hono';
import type { NotificationLog } from '../alerting/notifications.js';
import type { AppEnv } from '../http/types.js';
import type { StoredDoc } from '../store/index.js';
import type { StoragePorts } from '../store/ports.js';
import { analyticsKindOf, chartData, chartMetricsOf, chartSummary, rangeOf, RANGES, type ChartSummary, type DashboardRange } from './check-analytics.js';
import { stateBadge, stateOf } from './checks-list.js';
import { html, ms, queryOf, timeTag, type SafeHtml } from './html.js';
import { incidentRows } from './incidents.js';
import { csrfField, messagePage, renderPage, type Viewer } from './layout.js';
import type { PageReads } from './page-reads.js';
import { registerResultPage } from './result-page.js';
import { page, signedIn, signedInForm, type DashboardDeps } from './web.js';

export const RESULTS_PER_PAGE = 25;
const WEEK_MS = 7 * 86_400_000;

export interface CheckPageDeps extends DashboardDeps {
  readonly notificationLog: NotificationLog;
  readonly reads: PageReads;
  /** The storage ports: the check, its status, charts, results and error groups are read, and an error group archived, through them. */
  readonly ports: StoragePorts;
}

export function checkNotFound(c: Context<AppEnv>, viewer: Viewer): Response {
  return page(c, messagePage('Check not found', 'This account has no such check.', viewer), 404);
}

function percent(value: number | null | undefined): string {
  return value === null || value === undefined ? '—' : `${value.toFixed(2)} %`;
}

/** Ids the documents port keys by; any other id names no check. */
const isDocumentId = (id: string): boolean => id.length > 0 && id.length <= 255;

/** The account's check of this id, read through the documents port. */
export async function checkOf(ports: StoragePorts, accountId: string, checkId: string): Promise<StoredDoc | undefined> {
  return isDocumentId(checkId) ? ((await ports.documents.get('checks', accountId, checkId)) as StoredDoc | undefined) : undefined;
}

function facts(check: StoredDoc, groupName: string | undefined, service: StoredDoc | undefined): SafeHtml {
  const tags = Array.isArray(check['tags']) ? check['tags'].map(String) : [];
  const locations = Array.isArray(check['locations']) ? check['locations'].map(String) : [];
  const request = check['request'] as { url?: unknown; method?: unknown } | undefined;
  const serviceId = (check['triggerIncident'] as { serviceId?: unknown } | undefined)?.serviceId;
  return html`<dl class="facts">
<dt>Type</dt><dd>${String(check['checkType'] ?? '')}</dd>
${typeof request?.url === 'string' ? html`<dt>Request</dt><dd>${typeof request.method === 'string' ? request.method : 'GET'} ${request.url}</dd>` : ''}
<dt>Frequency</dt><dd>every ${typeof check['frequency'] === 'number' ? check['frequency'] : 10} min${check['activated'] === false ? ' (paused)' : ''}${check['muted'] === true ? ', muted' : ''}</dd>
${locations.length > 0 ? html`<dt>Locations</dt><dd>${locations.join(', ')}</dd>` : ''}
${groupName === undefined ? '' : html`<dt>Group</dt><dd>${groupName}</dd>`}
<dt>Tags</dt><dd>${tags.length === 0 ? html`<span class="meta">none</span>` : tags.map((tag) => html`<a class="tag" href="/dashboard/checks${queryOf({ tag })}">${tag}</a>`)}</dd>
${service ? html`<dt>Incidents open on</dt><dd>status-page service ${String(service['name'] ?? serviceId)}</dd>` : ''}
</dl>`;
}

function analyticsSection(checkId: string, data: ChartSummary, phases: ReadonlyArray<{ metric: string; label: string }>, percentiles: readonly string[]): SafeHtml {
  const range = data.range;
  const links = (Object.keys(RANGES) as DashboardRange[]).map(
    (name) => html`<a href="/dashboard/checks/${encodeURIComponent(checkId)}${queryOf({ range: name })}#analytics"${name === range ? html` aria-current="true"` : ''}>${RANGES[name].label}</a>`,
  );
  const src = `/dashboard/checks/${encodeURIComponent(checkId)}/analytics.json${queryOf({ range })}`;
  const summaryRows = [
    ...percentiles.map((metric) => html`<tr><th scope="row">Response time ${data.labels[metric]}</th><td>${ms(data.summary[metric])}</td></tr>`),
    html`<tr><th scope="row">Availability</th><td>${percent(data.summary['availability'])}</td></tr>`,
    ...phases.map((phase) => html`<tr><th scope="row">${phase.label} (mean${data.phasesFrom === undefined ? '' : html`, since ${timeTag(data.phasesFrom)}`})</th><td>${ms(data.summary[phase.metric])}</td></tr>`),
  ];
  // Longer ranges are charted from hourly rollups, which keep no timing phases (check-analytics.ts).
  const phasesNote = data.phasesFrom === undefined ? '' : html` <span class="meta">(from the results since ${timeTag(data.phasesFrom)}; hourly rollups keep no phases)</span>`;
  return html`<section id="analytics" aria-labelledby="analytics-title"><h2 id="analytics-title">Analytics</h2>
<nav class="ranges" aria-label="Time range">${links}</nav>
<div class="chart-grid">
${percentiles.length > 0 ? html`<figure><figcaption>Response time p50, p95, p99 (ms)</figcaption><div class="chart" data-chart="percentiles" data-src="${src}" role="img" aria-label="Response time percentiles chart; the numbers are in the table below"></div></figure>` : ''}
<figure><figcaption>Availability (%)</figcaption><div class="chart" data-chart="availability" data-src="${src}" role="img" aria-label="Availability chart; the numbers are in the table below"></div></figure>
${phases.length > 0 ? html`<figure><figcaption>Timing phases, mean (ms)${phasesNote}</figcaption><div class="chart" data-chart="phases" data-src="${src}" role="img" aria-label="Timing phases chart; the numbers are in the table below"></div></figure>` : ''}
</div>
<table class="narrow"><caption>${RANGES[range].label}, all locations</caption><tbody>${summaryRows}</tbody></table>
</section>`;
}

export function registerCheckPage(app: Hono<AppEnv>, deps: CheckPageDeps): void {
  const { reads } = deps;
  const notifications = deps.notificationLog;

  app.get('/dashboard/checks/:id', async (c) => {
    const who = signedIn(c, deps);
    if (who instanceof Response) return who;
    const accountId = who.session.accountId;
    const checkId = c.req.param('id');
    const { ports } = deps;
    const check = await checkOf(ports, accountId, checkId);
    if (!check) return checkNotFound(c, who.viewer);
    const url = new URL(c.req.url);
    const range = rangeOf(url.searchParams.get('range'));
    const pageNumber = Math.max(1, Math.min(10_000, Number.parseInt(url.searchParams.get('page') ?? '1', 10) || 1));
    const name = String(check['name'] ?? checkId);
    const groupId = check['groupId'];
    const groupName = typeof groupId === 'number' ? String((await ports.documents.get('check_groups', accountId, groupId))?.['name'] ?? `Group ${groupId}`) : undefined;
    const now = Date.now();
    const kind = analyticsKindOf(String(check['checkType']));
    const chosen = kind ? chartMetricsOf(kind) : undefined;
    const analytics =
      kind && chosen
        ? analyticsSection(checkId, await chartSummary(deps.ports.checkResults, accountId, checkId, kind, range, now), chosen.phases, chosen.percentiles)
        : html`<section><h2>Analytics</h2><p class="empty">This check type has no analytics yet.</p></section>`;

    // Newest first, one more than a page: the extra one only says whether an older page exists. The
    // port decodes only the results it returns, however many the page number skips.
    const newest = await ports.checkResults.newestFirst(accountId, checkId, { limit: RESULTS_PER_PAGE + 1, offset: (pageNumber - 1) * RESULTS_PER_PAGE });
    const more = newest.length > RESULTS_PER_PAGE;
    const picked = newest.slice(0, RESULTS_PER_PAGE).map((doc) => ({ id: doc.id, doc: doc as Record<string, unknown> }));
    const base = `/dashboard/checks/${encodeURIComponent(checkId)}`;
    const resultRows = picked.map(({ id, doc }) => {
      const failed = doc['hasFailures'] === true || doc['hasErrors'] === true;
      const outcome = failed ? html`<span class="failed">Failed</span>` : doc['isDegraded'] === true ? html`<span>Degraded</span>` : html`<span class="passed">Passed</span>`;
      return html`<tr><td><a href="${base}/results/${encodeURIComponent(id)}">${timeTag(String(doc['created_at'] ?? ''))}</a></td>
<td>${outcome}</td><td>${ms(typeof doc['responseTime'] === 'number' ? doc['responseTime'] : null)}</td>
<td>${String(doc['runLocation'] ?? '')}</td><td>${String(doc['resultType'] ?? '')}</td><td>${String(doc['attempts'] ?? '')}</td></tr>`;
    });
    const resultsPager = html`<nav class="pager" aria-label="Pages of results">
${pageNumber > 1 ? html`<a href="${base}${queryOf({ range, page: pageNumber - 1 })}#results" rel="prev">Newer results</a>` : ''}
<span>Page ${pageNumber}</span>
${more ? html`<a href="${base}${queryOf({ range, page: pageNumber + 1 })}#results" rel="next">Older results</a>` : ''}</nav>`;

    const groups = await ports.errorGroups.ofCheck(accountId, checkId, { page: 1, limit: 50 });
    const groupRows = groups.items.map(
      (group) => html`<tr><td><pre>${group.rawErrorMessage}</pre></td><td>${timeTag(group.firstSeen)}</td><td>${timeTag(group.lastSeen)}</td>
<td>${group.archivedUntilNextEvent ? 'Archived' : html`<form method="post" action="${base}/error-groups/${encodeURIComponent(group.id)}/archive">${csrfField(who.session.csrfToken)}<button type="submit">Archive<span class="sr"> error group last seen ${timeTag(group.lastSeen)}</span></button></form>`}</td></tr>`,
    );

    const sent = (await notifications.list(accountId, { fromMs: now - WEEK_MS, toMs: now + 1, checkId }, { page: 1, limit: 50 })).items;
    const sentRows = sent.map(
      (item) => html`<tr><td>${timeTag(item.timestamp)}</td><td>${item.alertType}</td><td>${item.type} #${item.alertChannelId}</td><td>${item.delivery}</td></tr>`,
    );
    const serviceId = (check['triggerIncident'] as { serviceId?: unknown } | undefined)?.serviceId;
    const incidents = typeof serviceId === 'string' ? await reads.incidentsOfService(accountId, serviceId, 20) : [];
    const service = typeof serviceId === 'string' && isDocumentId(serviceId) ? ((await ports.documents.get('services', accountId, serviceId)) as StoredDoc | undefined) : undefined;

    const status = await ports.checkStatuses.find(accountId, checkId);
    const body = html`<p><a href="/dashboard/checks">← All checks</a></p>
<h1>${name}</h1>
<p>${stateBadge(stateOf(status))} <span class="meta">Last run ${status ? timeTag(status.updated_at) : 'never'}</span></p>
<div class="card">${facts(check, groupName, service)}</div>
${analytics}
<section id="results" aria-labelledby="results-title"><h2 id="results-title">Results</h2>
${resultRows.length === 0 ? html`<p class="empty">No results stored.</p>` : html`<div class="scroll"><table><thead><tr><th scope="col">Started</th><th scope="col">Outcome</th><th scope="col">Response time</th><th scope="col">Location</th><th scope="col">Type</th><th scope="col">Attempts</th></tr></thead><tbody>${resultRows}</tbody></table></div>`}
${resultsPager}</section>
<section aria-labelledby="errors-title"><h2 id="errors-title">Error groups</h2>
${groupRows.length === 0 ? html`<p class="empty">No errors recorded.</p>` : html`<div class="scroll"><table><thead><tr><th scope="col">Error</th><th scope="col">First seen</th><th scope="col">Last seen</th><th scope="col">Action</th></tr></thead><tbody>${groupRows}</tbody></table></div>`}</section>
<section aria-labelledby="sent-title"><h2 id="sent-title">Notifications sent (last 7 days)</h2>
${sentRows.length === 0 ? html`<p class="empty">None.</p>` : html`<div class="scroll"><table><thead><tr><th scope="col">Settled</th><th scope="col">Alert</th><th scope="col">Channel</th><th scope="col">Delivery</th></tr></thead><tbody>${sentRows}</tbody></table></div>`}</section>
<section aria-labelledby="incidents-title"><h2 id="incidents-title">Incidents</h2>
${incidents.length === 0 ? html`<p class="empty">None.</p>` : incidentRows(incidents)}</section>`;
    return page(c, renderPage({ title: name, viewer: who.viewer, section: 'checks', body, charts: kind !== undefined }));
  });

  app.get('/dashboard/checks/:id/analytics.json', async (c) => {
    const who = signedIn(c, deps);
    if (who instanceof Response) return who;
    const accountId = who.session.accountId;
    const checkId = c.req.param('id');
    const check = await checkOf(deps.ports, accountId, checkId);
    const kind = check ? analyticsKindOf(String(check['checkType'])) : undefined;
    if (!check || !kind) return c.json({ error: 'This account has no such check with analytics.' }, 404, { 'cache-control': 'no-store' });
    return c.json(await chartData(deps.ports.checkResults, accountId, checkId, kind, rangeOf(c.req.query('range')), Date.now()), 200, { 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' });
  });

  app.post('/dashboard/checks/:id/error-groups/:groupId/archive', async (c) => {
    const who = await signedInForm(c, deps);
    if (who instanceof Response) return who;
    const accountId = who.session.accountId;
    const checkId = c.req.param('id');
    const groupId = c.req.param('groupId');
    // One unit of work, as the API's archive PATCH: the group is read and archived in one transaction.
    const archived = await deps.ports.transaction(async (tx) => {
      const group = await tx.errorGroups.find(accountId, groupId);
      if (!group || group.checkId !== checkId) return false;
      await tx.errorGroups.archive(accountId, groupId, { archivedUntilNextEvent: true }, Date.now());
      return true;
    });
    if (!archived) return page(c, messagePage('Error group not found', 'This check has no such error group.', who.viewer), 404);
    return c.redirect(`/dashboard/checks/${encodeURIComponent(checkId)}#errors-title`, 303);
  });

  registerResultPage(app, deps);
}
