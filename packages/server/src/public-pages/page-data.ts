/**
 * Everything a public status page shows, read through the storage ports every replica shares (the
 * page, its incidents, its services, the maintenance windows, the linked checks and their groups,
 * the checks' states and results) and turned into plain data the renderers (HTML, summary.json,
 * Atom, badges) share, so the four never disagree about a state.
 * Pages are found by name across every account, as they are reached: by their `url` slug or, on a
 * request whose Host is a page's `customDomain`, at that host.
 */
import { isActive, coversCheck, occurrencesBetween, type MaintenanceWindowLike } from '../alerting/maintenance.js';
import type { IncidentState, IncidentUpdateState } from '../readside/incidents.js';
import type { StatusPageDoc } from '../domain/status-pages.js';
import type { ResourceDocument, ResourceDocuments } from '../store/document-ports.js';
import type { StoragePorts } from '../store/ports.js';
import { webUrl } from './escape.js';
import { componentStatus, pageStatus, serviceState, type ComponentStatus, type Indicator, type ServiceState } from './states.js';
import { dayWindow, shareOf, uptimeOfServices, DAY_MS, type DayUptime, type Interval, type UptimeCheck, type UptimeSource } from './uptime.js';

export interface PublicPageDeps {
  /** Status pages and their incidents; services, maintenance windows, checks and groups; checks' states; results for the bars. */
  readonly ports: Pick<StoragePorts, 'statusPages' | 'incidents' | 'documents' | 'checkStatuses'> & { readonly checkResults: UptimeSource };
}

export interface FoundPage {
  readonly accountId: string;
  readonly page: StatusPageDoc;
}

/** The host a request names, lower case and without its port. */
export function hostnameOf(host: string | undefined): string | undefined {
  if (!host) return undefined;
  const match = /^(\[[^\]]*\]|[^:]*)(?::\d*)?$/.exec(host.trim().toLowerCase());
  return match?.[1] || undefined;
}

/**
 * The page a request asks for: by `slug` (`/status/{url}`), or the page whose custom domain is the
 * request's host when there is no slug (`/`). A request arriving on one page's custom domain is
 * answered only with that page, so an account's domain never shows another account's page.
 */
export async function findPage(ports: Pick<StoragePorts, 'statusPages'>, request: { host: string | undefined; slug?: string }): Promise<FoundPage | undefined> {
  const pages = ports.statusPages;
  const hostname = hostnameOf(request.host);
  // A name no page could hold (empty, or longer than any stored one) is no page's.
  const holding = async (name: 'url' | 'customDomain', value: string) => (value === '' || value.length > 255 ? undefined : pages.holding(name, value));
  const onDomain = hostname === undefined ? undefined : await holding('customDomain', hostname);
  const held = request.slug === undefined ? onDomain : await holding('url', request.slug.toLowerCase());
  if (!held || (onDomain && (onDomain.accountId !== held.accountId || onDomain.id !== held.id))) return undefined;
  const page = (await pages.get(held.accountId, held.id)) as StatusPageDoc | undefined;
  return page ? { accountId: held.accountId, page } : undefined;
}

export interface ServiceView {
  readonly id: string;
  readonly name: string;
  readonly createdAt: string;
  readonly updatedAt: string | null;
  readonly state: ServiceState;
  readonly component: ComponentStatus;
  /** Per UTC day, oldest first; empty when the view was loaded without uptime. */
  readonly days: readonly DayUptime[];
  /** The share of passing results over `days`, undefined without data. */
  readonly uptime: number | undefined;
}

export interface MaintenanceView {
  readonly id: string;
  readonly name: string;
  /** The occurrence shown: the one running now, else the next. */
  readonly from: number;
  readonly to: number;
  readonly active: boolean;
  readonly serviceIds: readonly string[];
  readonly createdAt: string;
  readonly updatedAt: string;
}

export interface PageView {
  readonly id: string;
  readonly accountId: string;
  readonly name: string;
  readonly slug: string;
  readonly customDomain: string | undefined;
  readonly description: string | undefined;
  readonly logo: URL | undefined;
  readonly favicon: URL | undefined;
  readonly redirectTo: URL | undefined;
  readonly theme: 'AUTO' | 'DARK' | 'LIGHT';
  readonly cards: ReadonlyArray<{ readonly id: string; readonly name: string; readonly services: readonly ServiceView[] }>;
  readonly services: ReadonlyMap<string, ServiceView>;
  /** Open incidents on the page's services, newest first, each with its updates newest first. */
  readonly activeIncidents: readonly IncidentState[];
  /** Resolved incidents on its services changed within the history, newest first. */
  readonly pastIncidents: readonly IncidentState[];
  readonly maintenances: readonly MaintenanceView[];
  readonly status: { readonly indicator: Indicator; readonly description: string };
  readonly updatedAt: string;
  readonly nowMs: number;
}

export interface ViewOptions {
  readonly nowMs: number;
  /** Days of resolved incidents to show. */
  readonly historyDays: number;
  /** Days of uptime bars; 0 reads none. */
  readonly uptimeDays: number;
  /** How far ahead scheduled maintenance is listed. */
  readonly maintenanceAheadDays: number;
}

export const PAGE_VIEW: Omit<ViewOptions, 'nowMs'> = { historyDays: 14, uptimeDays: 90, maintenanceAheadDays: 30 };

interface LinkedCheck {
  readonly id: string;
  readonly tags: readonly string[];
}

/** Documents are read this many at a time. */
const READ_BATCH = 500;

export async function loadPageView(deps: PublicPageDeps, found: FoundPage, options: ViewOptions): Promise<PageView> {
  const { accountId, page } = found;
  const { ports } = deps;
  const { nowMs } = options;
  // A card naming an id no service could have shows nothing, as one naming a deleted service.
  const serviceIds = [...new Set((page.cards ?? []).flatMap((card) => card.services.map((ref) => ref.id)))].filter((id) => typeof id === 'string' && id !== '' && id.length <= 255);
  // Read at once: on PostgreSQL each is a round trip.
  const [shownIncidents, windowDocs, linked, serviceDocs] = await Promise.all([
    ports.incidents.openOrUpdatedSince(accountId, new Date(nowMs - options.historyDays * DAY_MS).toISOString()) as Promise<IncidentState[]>,
    allOf(ports.documents, 'maintenance_windows', accountId),
    linkedChecks(ports.documents, accountId, serviceIds),
    Promise.all(serviceIds.map((id) => ports.documents.get('services', accountId, id))),
  ]);
  const windows = windowDocs.map((doc) => doc as unknown as MaintenanceWindowLike & ResourceDocument);
  const checksOf = new Map(serviceIds.map((id, index) => [id, linked[index]!]));
  const incidents = shownIncidents
    .filter((incident) => incident.serviceIds.some((id) => checksOf.has(id)))
    .map((incident) => ({ ...incident, incidentUpdates: newestFirst(incident.incidentUpdates) }));
  const open = incidents.filter((incident) => incident.lastUpdateStatus !== 'RESOLVED');
  const uptimeWindow = dayWindow(Math.max(options.uptimeDays, 1), nowMs);

  const covering = (check: LinkedCheck) => windows.filter((window) => coversCheck(window, check.tags));
  const uptimeChecks = new Map<string, UptimeCheck[]>(
    serviceIds.map((id) => [
      id,
      (checksOf.get(id) ?? []).map((check) => ({
        checkId: check.id,
        maintenance: covering(check).flatMap((window): Interval[] => occurrencesBetween(window, uptimeWindow.from, uptimeWindow.to)),
      })),
    ]),
  );
  const linkedIds = [...new Set(linked.flat().map((check) => check.id))];
  // The checks' states and the bars read at once too.
  const [statusList, uptime] = await Promise.all([
    Promise.all(linkedIds.map(async (id) => [id, await ports.checkStatuses.find(accountId, id)] as const)),
    options.uptimeDays > 0 ? uptimeOfServices(ports.checkResults, { accountId, nowMs, days: options.uptimeDays, services: uptimeChecks }) : undefined,
  ]);
  const statuses = new Map(statusList);

  const services = new Map<string, ServiceView>();
  for (const [index, id] of serviceIds.entries()) {
    const doc = serviceDocs[index];
    if (!doc) continue;
    const checks = checksOf.get(id) ?? [];
    const facts = {
      openIncidents: open.filter((incident) => incident.serviceIds.includes(id)),
      inMaintenance: checks.some((check) => covering(check).some((window) => isActive(window, nowMs))),
      checkDegraded: checks.some((check) => {
        const status = statuses.get(check.id);
        return status !== undefined && status.isDegraded && !status.hasFailures && !status.hasErrors;
      }),
    };
    const state = serviceState(facts);
    const days = uptime?.get(id) ?? [];
    services.set(id, {
      id,
      name: String(doc['name'] ?? ''),
      createdAt: String(doc['created_at'] ?? ''),
      updatedAt: typeof doc['updated_at'] === 'string' ? doc['updated_at'] : null,
      state,
      component: componentStatus(state, facts),
      days,
      uptime: shareOf(days),
    });
  }

  const maintenances = windows.flatMap((window): MaintenanceView[] => {
    const touched = serviceIds.filter((id) => (checksOf.get(id) ?? []).some((check) => coversCheck(window, check.tags)));
    const next = touched.length === 0 ? undefined : occurrencesBetween(window, nowMs, nowMs + options.maintenanceAheadDays * DAY_MS)[0];
    if (!next) return [];
    const stamps = { createdAt: String(window['created_at'] ?? ''), updatedAt: String(window['updated_at'] ?? window['created_at'] ?? '') };
    return [{ id: String(window.id), name: String(window['name'] ?? ''), ...next, active: next.from <= nowMs, serviceIds: touched, ...stamps }];
  });
  maintenances.sort((a, b) => a.from - b.from);

  const stamps = [String(page['updated_at'] ?? page['created_at'] ?? ''), ...incidents.map((incident) => incident.updated_at)].filter((stamp) => stamp !== '');
  return {
    id: page.id,
    accountId,
    name: page.name,
    slug: page.url ?? '',
    customDomain: typeof page.customDomain === 'string' && page.customDomain !== '' ? page.customDomain : undefined,
    description: typeof page['description'] === 'string' && page['description'] !== '' ? page['description'] : undefined,
    logo: webUrl(page['logo']),
    favicon: webUrl(page['favicon']),
    redirectTo: webUrl(page['redirectTo']),
    theme: page['defaultTheme'] === 'DARK' || page['defaultTheme'] === 'LIGHT' ? page['defaultTheme'] : 'AUTO',
    cards: (page.cards ?? []).map((card, index) => ({
      id: card.id ?? `card-${index}`,
      name: card.name,
      services: card.services.flatMap((ref) => services.get(ref.id) ?? []),
    })),
    services,
    activeIncidents: open,
    pastIncidents: incidents.filter((incident) => incident.lastUpdateStatus === 'RESOLVED'),
    maintenances,
    status: pageStatus([...services.values()].map((service) => service.component)),
    updatedAt: stamps.length === 0 ? new Date(nowMs).toISOString() : stamps.reduce((a, b) => (a > b ? a : b)),
    nowMs,
  };
}

/** Every document of a kind in the account, oldest first. */
async function allOf(documents: ResourceDocuments, kind: 'maintenance_windows', accountId: string): Promise<ResourceDocument[]> {
  const all: ResourceDocument[] = [];
  for (let after = 0; ; ) {
    const batch = await documents.pageAfter(kind, accountId, after, READ_BATCH);
    all.push(...batch.map((each) => each.doc));
    if (batch.length < READ_BATCH) return all;
    after = batch.at(-1)!.seq;
  }
}

/**
 * Per service, the checks whose `triggerIncident.serviceId` is the service, with their own and their
 * group's tags (each group read once).
 */
async function linkedChecks(documents: ResourceDocuments, accountId: string, serviceIds: readonly string[]): Promise<LinkedCheck[][]> {
  const checksOf = await Promise.all(
    serviceIds.map(async (serviceId) => {
      const checks: ResourceDocument[] = [];
      for (let page = 1; ; page++) {
        const { items, total } = await documents.page('checks', accountId, { serviceId, limit: READ_BATCH, page });
        checks.push(...items);
        if (items.length < READ_BATCH || checks.length >= total) return checks;
      }
    }),
  );
  const groupIds = [...new Set(checksOf.flat().flatMap((check) => (typeof check['groupId'] === 'number' && Number.isSafeInteger(check['groupId']) && check['groupId'] >= 1 ? [check['groupId']] : [])))];
  const groups = new Map(await Promise.all(groupIds.map(async (id) => [id, await documents.get('check_groups', accountId, id)] as const)));
  return checksOf.map((checks) =>
    checks.map((check) => {
      const group = typeof check['groupId'] === 'number' ? groups.get(check['groupId']) : undefined;
      return { id: String(check.id), tags: [...new Set([...stringsOf(check['tags']), ...stringsOf(group?.['tags'])])] };
    }),
  );
}

function stringsOf(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}

/** When an update says it happened: its public date, else when it was posted. */
export function updateTime(update: IncidentUpdateState): string {
  return update.publicIncidentUpdateDate ?? update.created_at;
}

function newestFirst(updates: readonly IncidentUpdateState[]): IncidentUpdateState[] {
  return [...updates].sort((a, b) => (updateTime(a) < updateTime(b) ? 1 : updateTime(a) > updateTime(b) ? -1 : 0));
}
