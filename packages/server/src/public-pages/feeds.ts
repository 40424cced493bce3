/**
 * The machine-readable faces of a public page: `summary.json` in the shape of Atlassian
 * Statuspage's v2 summary (so widgets written for it read ours), an Atom feed of incidents, and an
 * SVG badge per service. All read the same `PageView` as the HTML page.
 */
import type { IncidentState } from '../readside/incidents.js';
import { escapeMarkup as e } from './escape.js';
import { updateTime, type PageView, type ServiceView } from './page-data.js';
import { formatTime } from './render-html.js';
import { impactOf, STATE_LABELS, type ServiceState } from './states.js';

/** The page's public address: its custom domain when it has one, else `/status/{url}` on this service. */
export function pageUrl(view: PageView, origin: string): string {
  return view.customDomain ? `https://${view.customDomain}` : `${origin}/status/${encodeURIComponent(view.slug)}`;
}

function component(view: PageView, service: ServiceView, position: number) {
  return {
    id: service.id,
    name: service.name,
    status: service.component,
    created_at: service.createdAt,
    updated_at: service.updatedAt ?? service.createdAt,
    position,
    description: null,
    showcase: true,
    start_date: null,
    group_id: null,
    page_id: view.id,
    group: false,
    only_show_if_degraded: false,
  };
}

function incident(view: PageView, incident: IncidentState, url: string) {
  const updates = incident.incidentUpdates;
  const firstTime = (status: string) => updates.filter((update) => update.status === status).map(updateTime).sort()[0] ?? null;
  return {
    id: incident.id,
    name: incident.name,
    status: incident.lastUpdateStatus.toLowerCase(),
    created_at: incident.created_at,
    updated_at: incident.updated_at,
    monitoring_at: firstTime('MONITORING'),
    resolved_at: incident.lastUpdateStatus === 'RESOLVED' ? (updates.map(updateTime).sort().at(-1) ?? incident.updated_at) : null,
    impact: impactOf(incident.severity),
    shortlink: `${url}#incident-${incident.id}`,
    started_at: incident.created_at,
    page_id: view.id,
    incident_updates: updates.map((update) => ({
      id: update.id,
      status: update.status.toLowerCase(),
      body: update.description,
      incident_id: incident.id,
      created_at: update.created_at,
      updated_at: update.created_at,
      display_at: updateTime(update),
      affected_components: null,
      deliver_notifications: update.notifySubscribers,
      custom_tweet: null,
      tweet_id: null,
    })),
    components: incident.serviceIds.flatMap((id, index) => {
      const service = view.services.get(id);
      return service ? [component(view, service, index + 1)] : [];
    }),
  };
}

/** `GET /status/{url}/summary.json`. */
export function summaryJson(view: PageView, origin: string): Record<string, unknown> {
  const url = pageUrl(view, origin);
  const services = [...view.services.values()];
  return {
    page: { id: view.id, name: view.name, url, time_zone: 'Etc/UTC', updated_at: view.updatedAt },
    status: view.status,
    components: services.map((service, index) => component(view, service, index + 1)),
    incidents: view.activeIncidents.map((each) => incident(view, each, url)),
    scheduled_maintenances: view.maintenances.map((window) => ({
      id: String(window.id),
      name: window.name,
      status: window.active ? 'in_progress' : 'scheduled',
      created_at: window.createdAt,
      updated_at: window.updatedAt,
      monitoring_at: null,
      resolved_at: null,
      impact: 'maintenance',
      shortlink: url,
      started_at: new Date(window.from).toISOString(),
      page_id: view.id,
      incident_updates: [],
      components: window.serviceIds.flatMap((id, index) => {
        const service = view.services.get(id);
        return service ? [component(view, service, index + 1)] : [];
      }),
      scheduled_for: new Date(window.from).toISOString(),
      scheduled_until: new Date(window.to).toISOString(),
    })),
  };
}

/**
 * `GET /status/{url}/feed.atom`: one entry per incident (open ones and those of the history the
 * view was loaded with), its updates newest first in the entry's content.
 */
export function atomFeed(view: PageView, origin: string): string {
  const url = pageUrl(view, origin);
  const self = `${origin}/status/${encodeURIComponent(view.slug)}/feed.atom`;
  const incidents = [...view.activeIncidents, ...view.pastIncidents].sort((a, b) => (a.updated_at < b.updated_at ? 1 : -1));
  const entries = incidents.map((each) => {
    const content = each.incidentUpdates
      .map((update) => `<p><small>${e(formatTime(updateTime(update)))}</small><br><strong>${e(update.status.toLowerCase())}</strong> - ${e(update.description)}</p>`)
      .join('');
    return `  <entry>
    <id>urn:vigil:incident:${e(each.id)}</id>
    <title>${e(each.name)}</title>
    <published>${e(each.created_at)}</published>
    <updated>${e(each.updated_at)}</updated>
    <link rel="alternate" type="text/html" href="${e(`${url}#incident-${each.id}`)}"/>
    <content type="html">${e(content)}</content>
  </entry>`;
  });
  return `<?xml version="1.0" encoding="UTF-8"?>
<feed xmlns="http://www.w3.org/2005/Atom" xml:lang="en">
  <id>urn:vigil:status-page:${e(view.id)}</id>
  <title>${e(view.name)} status - incident history</title>
  <updated>${e(view.updatedAt)}</updated>
  <author><name>${e(view.name)}</name></author>
  <link rel="alternate" type="text/html" href="${e(url)}"/>
  <link rel="self" type="application/atom+xml" href="${e(self)}"/>
${entries.join('\n')}
</feed>
`;
}

const BADGE_COLOURS: Readonly<Record<ServiceState, string>> = { operational: '#1a7f37', degraded: '#9a6700', outage: '#c21b27', maintenance: '#0a58ad' };

/** An approximate text width in px at 11 px Verdana, enough to size a badge without a font file. */
function textWidth(text: string): number {
  return Math.round([...text].length * 6.8) + 10;
}

/** `GET /status/{url}/badge/{serviceId}.svg`: "name | state" in the state's colour, with a title for screen readers. */
export function badgeSvg(service: ServiceView): string {
  const label = service.name;
  const value = STATE_LABELS[service.state].toLowerCase();
  const left = textWidth(label);
  const right = textWidth(value);
  const width = left + right;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="20" role="img" aria-label="${e(`${label}: ${value}`)}">
<title>${e(`${label}: ${value}`)}</title>
<rect width="${left}" height="20" fill="#555"/><rect x="${left}" width="${right}" height="20" fill="${BADGE_COLOURS[service.state]}"/>
<g fill="#fff" font-family="Verdana,DejaVu Sans,sans-serif" font-size="11" text-anchor="middle">
<text x="${left / 2}" y="14">${e(label)}</text><text x="${left + right / 2}" y="14">${e(value)}</text>
</g>
</svg>
`;
}
