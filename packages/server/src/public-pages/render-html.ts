/**
 * The public status page as HTML: no framework, no script, every stored string through
 * `escapeMarkup`. Landmarks (header, main, footer), one h1 and a heading per section and card, so a
 * screen-reader user can jump between them; each uptime bar is an image with a text alternative
 * (and a tooltip) naming its day and share.
 */
import type { IncidentState } from '../readside/incidents.js';
import { ASSET_PREFIX } from './assets.js';
import { escapeMarkup as e } from './escape.js';
import { updateTime, type MaintenanceView, type PageView, type ServiceView } from './page-data.js';
import { impactOf, STATE_LABELS } from './states.js';
import { percent, type DayUptime } from './uptime.js';

/** Where a page's own routes live: `/status/{url}` (also on its custom domain). */
export function basePath(slug: string): string {
  return `/status/${encodeURIComponent(slug)}`;
}

/** `2026-03-01 14:05 UTC`: one unambiguous zone for every visitor, since the page runs no script to localise it. */
export function formatTime(value: string | number): string {
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return String(value);
  return `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

function time(value: string | number): string {
  const date = new Date(value);
  const iso = Number.isNaN(date.getTime()) ? '' : date.toISOString();
  return `<time datetime="${e(iso)}">${e(formatTime(value))}</time>`;
}

const STATUS_WORDS: Readonly<Record<string, string>> = { INVESTIGATING: 'Investigating', IDENTIFIED: 'Identified', MONITORING: 'Monitoring', RESOLVED: 'Resolved' };

/** A whole HTML document of the public pages: the page, its 404 and the subscription pages share it. */
export function document(options: { title: string; theme: string; favicon: string; head?: string; body: string }): string {
  return `<!doctype html>
<html lang="en" data-theme="${e(options.theme)}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>${e(options.title)}</title>
<link rel="icon" href="${e(options.favicon)}">
<link rel="stylesheet" href="${ASSET_PREFIX}status.css">
${options.head ?? ''}</head>
<body>
<a class="skip" href="#main">Skip to content</a>
${options.body}
</body>
</html>
`;
}

/** The page; `extra` is markup placed after the past incidents (the subscription form when e-mail is available). */
export function renderPage(view: PageView, extra = ''): string {
  const base = basePath(view.slug);
  const logo = view.logo ? `<img src="${e(view.logo.href)}" alt="${e(view.name)} logo">` : '';
  // `redirectTo` is where a click on the logo leads (the owner's own site); without a logo it is a text link.
  const home = view.redirectTo
    ? logo
      ? `<a href="${e(view.redirectTo.href)}">${logo}</a>`
      : `<a href="${e(view.redirectTo.href)}">${e(view.redirectTo.host)}</a>`
    : logo;
  const banner = view.maintenances.some((each) => each.active) && view.status.indicator === 'none' ? 'maintenance' : view.status.indicator;
  const body = `<header class="top"><div class="wrap">${home}<h1>${e(view.name)}</h1></div></header>
<main id="main" class="wrap">
${view.description ? `<p>${e(view.description)}</p>\n` : ''}<section class="banner ${banner}" aria-labelledby="overall"><h2 id="overall">${e(view.status.description)}</h2></section>
${view.activeIncidents.length > 0 ? `<section aria-labelledby="active"><h2 id="active">Active incidents</h2>\n${view.activeIncidents.map((incident) => renderIncident(view, incident)).join('\n')}\n</section>\n` : ''}<section aria-labelledby="services"><h2 id="services">Services</h2>
${view.cards.map((card, index) => renderCard(card, index)).join('\n')}
</section>
${renderMaintenances(view)}
<section aria-labelledby="past"><h2 id="past">Past incidents</h2>
${view.pastIncidents.length === 0 ? '<p class="empty">No incidents in the last 14 days.</p>' : view.pastIncidents.map((incident) => renderIncident(view, incident)).join('\n')}
</section>
${extra}</main>
<footer class="wrap"><a href="${base}/feed.atom">Atom feed</a><a href="${base}/summary.json">summary.json</a><span>Updated ${time(view.nowMs)}</span></footer>`;
  return document({
    title: `${view.name} status`,
    theme: view.theme.toLowerCase(),
    favicon: view.favicon?.href ?? `${ASSET_PREFIX}favicon.svg`,
    head: `<link rel="alternate" type="application/atom+xml" title="${e(view.name)} incidents" href="${base}/feed.atom">\n`,
    body,
  });
}

function renderCard(card: PageView['cards'][number], index: number): string {
  const services = card.services.length === 0 ? '<p class="empty">No services on this card.</p>' : `<ul>\n${card.services.map(renderService).join('\n')}\n</ul>`;
  return `<section class="card" aria-labelledby="card-${index}"><h3 id="card-${index}">${e(card.name)}</h3>\n${services}\n</section>`;
}

function renderService(service: ServiceView): string {
  const overall = service.uptime === undefined ? 'no data' : `${percent(service.uptime)} uptime`;
  const days = service.days.length;
  const bars = days === 0 ? '' : `
<ol class="bars" aria-label="Uptime of ${e(service.name)} per day, last ${days} days">${service.days.map(renderBar).join('')}</ol>
<div class="bars-legend" aria-hidden="true"><span><span class="long">${days} days ago</span><span class="short">30 days ago</span></span><span>${e(overall)}</span><span>Today</span></div>`;
  return `<li class="service"><div class="service-head"><span class="service-name">${e(service.name)}</span><span class="state ${service.state}"><span>${e(STATE_LABELS[service.state])}</span></span></div>${bars}
<p class="sr">${e(service.name)}: ${e(overall)} over the last ${days} days.</p></li>`;
}

/**
 * One day's bar: green all passed, yellow at least 99 %, red below, grey without data. Its label is
 * written once, as `title`: the tooltip a pointer shows and, with no `aria-label`, the image's
 * accessible name too. Written twice it was half of a 90-day, 20-service page's bytes.
 */
function renderBar(day: DayUptime): string {
  const maintenance = day.maintenance ? '; maintenance excluded' : '';
  if (day.results === 0) return `<li class="nodata"><span role="img" title="${e(`${day.day}: no data${maintenance}`)}"></span></li>`;
  const share = day.passed / day.results;
  const kind = day.passed === day.results ? 'up' : share >= 0.99 ? 'partial' : 'down';
  const label = `${day.day}: ${percent(share)} of ${day.results} ${day.results === 1 ? 'run' : 'runs'} passed${maintenance}`;
  return `<li class="${kind}"><span role="img" title="${e(label)}"></span></li>`;
}

function serviceNames(view: PageView, ids: readonly string[]): string {
  return ids.flatMap((id) => view.services.get(id)?.name ?? []).join(', ');
}

function renderIncident(view: PageView, incident: IncidentState): string {
  const resolved = incident.lastUpdateStatus === 'RESOLVED';
  const kind = resolved ? 'resolved' : impactOf(incident.severity);
  const updates = incident.incidentUpdates
    .map((update) => `<li><p><strong>${e(STATUS_WORDS[update.status] ?? update.status)}</strong> — ${e(update.description)}</p><p class="meta">${time(updateTime(update))}</p></li>`)
    .join('\n');
  const id = `incident-${e(incident.id)}`;
  return `<article class="incident ${kind}" aria-labelledby="${id}"><h3 id="${id}">${e(incident.name)}</h3>
<p class="meta">${e(STATUS_WORDS[incident.lastUpdateStatus] ?? incident.lastUpdateStatus)} · severity ${e(incident.severity.toLowerCase())} · affects ${e(serviceNames(view, incident.serviceIds))} · opened ${time(incident.created_at)}</p>
${updates === '' ? '' : `<ol class="updates">\n${updates}\n</ol>`}</article>`;
}

function renderMaintenances(view: PageView): string {
  if (view.maintenances.length === 0) return '';
  const item = (window: MaintenanceView) =>
    `<li><h3>${e(window.name)}</h3><p class="meta">${window.active ? 'In progress' : 'Scheduled'}: ${time(window.from)} to ${time(window.to)} · affects ${e(serviceNames(view, window.serviceIds))}</p></li>`;
  return `<section aria-labelledby="maintenance"><h2 id="maintenance">Scheduled maintenance</h2>\n<ul class="updates">\n${view.maintenances.map(item).join('\n')}\n</ul>\n</section>`;
}

/** The answer to a page that does not exist (or not on this host). */
export function renderNotFound(): string {
  return document({
    title: 'Status page not found',
    theme: 'auto',
    favicon: `${ASSET_PREFIX}favicon.svg`,
    body: `<main id="main" class="wrap"><h1>Status page not found</h1>\n<p>There is no status page at this address.</p></main>`,
  });
}
