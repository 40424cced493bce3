/**
 * `GET /dashboard/checks`: the account's checks, 50 to a page, with their state, last run, a
 * sparkline of the last 24 hours' response times, tags and group; filtered by state, tag and type
 * and searched by name with the same filters `GET /v1/checks` uses (the documents port's query). A
 * page costs the same whatever the number of checks: one paged query for the checks, one for their
 * statuses and one for their hourly rollups, all through the storage ports.
 */
import { CHECK_TYPES, type CheckStatus } from '@vigil/schema';
import type { Hono } from 'hono';
import type { AppEnv } from '../http/types.js';
import type { ResourceDocument } from '../store/document-ports.js';
import type { StoragePorts } from '../store/ports.js';
import { checkStateOf } from '../store/check-status-rules.js';
import { html, ms, queryOf, timeTag, type SafeHtml } from './html.js';
import { renderPage } from './layout.js';
import type { HourlyPoint, PageReads } from './page-reads.js';
import { page, signedIn, type DashboardDeps } from './web.js';

export const CHECKS_PER_PAGE = 50;
const STATES = ['passing', 'failing', 'degraded'] as const;
export type CheckState = (typeof STATES)[number] | 'unknown';
const DAY_MS = 86_400_000;

export function stateOf(status: CheckStatus | undefined): CheckState {
  return status ? checkStateOf(status) : 'unknown';
}

const STATE_LABEL: Readonly<Record<CheckState, string>> = { passing: 'Passing', failing: 'Failing', degraded: 'Degraded', unknown: 'No runs yet' };

export function stateBadge(state: CheckState): SafeHtml {
  return html`<span class="state ${state}"><span>${STATE_LABEL[state]}</span></span>`;
}

/** A polyline of hourly means, drawn server-side; labelled with its range so it is not only a picture. */
export function sparkline(points: readonly HourlyPoint[], checkName: string): SafeHtml {
  const values = points.filter((point) => point.meanMs !== null);
  if (values.length === 0) return html`<span class="meta">No data</span>`;
  const width = 120;
  const height = 28;
  const first = points[0]!.startMs;
  const last = Math.max(points.at(-1)!.startMs, first + 1);
  const max = Math.max(...values.map((point) => point.meanMs!));
  const min = Math.min(...values.map((point) => point.meanMs!));
  const span = Math.max(max - min, 1);
  const coordinates = values
    .map((point) => {
      const x = values.length === 1 ? width / 2 : ((point.startMs - first) / (last - first)) * width;
      const y = height - 2 - ((point.meanMs! - min) / span) * (height - 4);
      return `${x.toFixed(1)},${y.toFixed(1)}`;
    })
    .join(' ');
  const label = `Response time of ${checkName}, last 24 hours: ${ms(min)} to ${ms(max)}`;
  return html`<svg class="spark" viewBox="0 0 ${width} ${height}" preserveAspectRatio="none" role="img" aria-label="${label}"><polyline points="${coordinates}"/></svg>`;
}

export interface ChecksListDeps extends DashboardDeps {
  readonly reads: PageReads;
  readonly ports: StoragePorts;
}

interface ListQuery {
  state?: CheckState | undefined;
  tag?: string | undefined;
  type?: string | undefined;
  q?: string | undefined;
  page: number;
}

function listQuery(url: URL): ListQuery {
  const text = (name: string) => {
    const value = url.searchParams.get(name)?.trim();
    return value ? value.slice(0, 200) : undefined;
  };
  const state = text('state');
  const type = text('type');
  const pageNumber = Number(url.searchParams.get('page') ?? '1');
  return {
    state: (STATES as readonly string[]).includes(state ?? '') ? (state as CheckState) : undefined,
    tag: text('tag'),
    type: (CHECK_TYPES as readonly string[]).includes(type ?? '') ? type : undefined,
    q: text('q'),
    page: Number.isSafeInteger(pageNumber) && pageNumber >= 1 ? pageNumber : 1,
  };
}

function filterForm(query: ListQuery): SafeHtml {
  const option = (value: string, label: string, selected: string | undefined) =>
    html`<option value="${value}"${value === (selected ?? '') ? html` selected` : ''}>${label}</option>`;
  return html`<form class="filters card" method="get" action="/dashboard/checks" role="search" aria-label="Filter checks">
<label>Name contains<input type="search" name="q" value="${query.q ?? ''}"></label>
<label>State<select name="state">${option('', 'Any', query.state)}${STATES.map((state) => option(state, STATE_LABEL[state], query.state))}</select></label>
<label>Tag<input type="text" name="tag" value="${query.tag ?? ''}"></label>
<label>Type<select name="type">${option('', 'Any', query.type)}${CHECK_TYPES.map((type) => option(type, type, query.type))}</select></label>
<button type="submit">Filter</button>
${query.q || query.state || query.tag || query.type ? html`<a href="/dashboard/checks">Clear filters</a>` : ''}
</form>`;
}

export function registerChecksList(app: Hono<AppEnv>, deps: ChecksListDeps): void {
  const { reads, ports } = deps;

  app.get('/dashboard/checks', async (c) => {
    const who = signedIn(c, deps);
    if (who instanceof Response) return who;
    const accountId = who.session.accountId;
    const query = listQuery(new URL(c.req.url));
    const found = await ports.documents.page('checks', accountId, {
      limit: CHECKS_PER_PAGE,
      page: query.page,
      ...(query.tag === undefined ? {} : { tags: [query.tag] }),
      ...(query.type === undefined ? {} : { checkType: query.type }),
      ...(query.q === undefined ? {} : { nameContains: query.q }),
      ...(query.state === undefined || query.state === 'unknown' ? {} : { state: query.state }),
    });
    const ids = found.items.map((check) => String(check.id));
    const now = Date.now();
    const [statusById, hourly] = await Promise.all([reads.statusesOf(accountId, ids), reads.hourlyOf(accountId, ids, now - DAY_MS, now)]);
    const groupIds = [...new Set(found.items.map((check) => check['groupId']).filter((id): id is number => typeof id === 'number'))];
    const groups = await Promise.all(groupIds.map((id) => ports.documents.get('check_groups', accountId, id)));
    const groupNames = new Map(groupIds.map((id, index) => [id, String(groups[index]?.['name'] ?? `Group ${id}`)]));

    const rows = found.items.map((check: ResourceDocument) => {
      const id = String(check.id);
      const name = String(check['name'] ?? id);
      const status = statusById.get(id);
      const tags = Array.isArray(check['tags']) ? check['tags'].map(String) : [];
      const groupId = typeof check['groupId'] === 'number' ? check['groupId'] : undefined;
      return html`<tr>
<td><a href="/dashboard/checks/${encodeURIComponent(id)}">${name}</a>${check['activated'] === false ? html` <span class="meta">(paused)</span>` : ''}</td>
<td>${stateBadge(stateOf(status))}</td>
<td>${status ? timeTag(status.updated_at) : '—'}</td>
<td class="wide">${sparkline(hourly.get(id) ?? [], name)}</td>
<td>${String(check['checkType'] ?? '')}</td>
<td>${tags.map((tag) => html`<a class="tag" href="/dashboard/checks${queryOf({ tag })}">${tag}</a>`)}</td>
<td>${groupId === undefined ? '' : groupNames.get(groupId)}</td>
</tr>`;
    });
    const pages = Math.max(1, Math.ceil(found.total / CHECKS_PER_PAGE));
    const keep = { q: query.q, state: query.state, tag: query.tag, type: query.type };
    const pager = html`<nav class="pager" aria-label="Pages of checks">
${query.page > 1 ? html`<a href="/dashboard/checks${queryOf({ ...keep, page: query.page - 1 })}" rel="prev">Previous page</a>` : ''}
<span>Page ${query.page} of ${pages} · ${found.total} ${found.total === 1 ? 'check' : 'checks'}</span>
${query.page < pages ? html`<a href="/dashboard/checks${queryOf({ ...keep, page: query.page + 1 })}" rel="next">Next page</a>` : ''}
</nav>`;
    const table =
      rows.length === 0
        ? html`<p class="empty">No checks match.</p>`
        : html`<div class="scroll"><table>
<caption class="sr">Checks, page ${query.page} of ${pages}</caption>
<thead><tr><th scope="col">Name</th><th scope="col">State</th><th scope="col">Last run</th><th scope="col" class="wide">Last 24 h</th><th scope="col">Type</th><th scope="col">Tags</th><th scope="col">Group</th></tr></thead>
<tbody>${rows}</tbody></table></div>`;
    return page(c, renderPage({ title: 'Checks', viewer: who.viewer, section: 'checks', body: html`<h1>Checks</h1>${filterForm(query)}${table}${pager}` }));
  });
}
