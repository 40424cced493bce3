/**
 * Read-only lists: maintenance windows, alert channels and status pages, each saying whether Vigil
 * code manages it.
 *
 * Which file declares a resource is not recorded anywhere the service can see: `vigil apply` sends
 * the resource's fields only, and the project state records each resource's address (`kind:logicalId`)
 * and remote id, not its source file. So a list says "managed by code" with the project and address
 * when a project keeps its state on this service (the `service` state backend, routes/state.ts) and
 * that state holds the resource; for projects whose state is a local file the service cannot know,
 * and says nothing. Changes belong in the code that declares them, so these pages offer no edits.
 */
import type { Hono } from 'hono';
import type { AppEnv } from '../http/types.js';
import type { DashboardReads } from '../store/dashboard-read-ports.js';
import type { DocumentKind } from '../store/document-ports.js';
import type { StoredDoc } from '../store/index.js';
import type { StoragePorts } from '../store/ports.js';
import { html, timeTag, type SafeHtml } from './html.js';
import { renderPage, type Section } from './layout.js';
import { page, signedIn, type DashboardDeps } from './web.js';

export interface ResourcesDeps extends DashboardDeps {
  readonly ports: StoragePorts;
}

/** Read this many at a time; the lists have no paging, so a list reads on until the last one. */
const READ_BATCH = 1000;
/** Status pages listed at most, as before they were read through the ports. */
const STATUS_PAGES_MAX = 1000;

export interface ManagedBy {
  readonly project: string;
  readonly address: string;
}

/** Resources of one kind held in the account's state documents on this service, by remote id. */
export class ManagedResources {
  readonly #reads: DashboardReads;

  constructor(reads: DashboardReads) {
    this.#reads = reads;
  }

  async of(accountId: string, kind: string): Promise<Map<string, ManagedBy>> {
    const rows = await this.#reads.stateResourcesOfKind(accountId, kind);
    return new Map(rows.filter((row) => row.remoteId !== null).map((row) => [row.remoteId!, { project: row.project, address: row.address }]));
  }
}

function managedCell(managed: ManagedBy | undefined): SafeHtml {
  if (!managed) return html`<span class="meta">not in a project state on this service</span>`;
  return html`Managed by code: project <strong>${managed.project}</strong>, <code>${managed.address}</code>`;
}

interface Column {
  readonly heading: string;
  readonly cell: (doc: StoredDoc) => SafeHtml | string;
}

function listPage(title: string, section: Section, docs: readonly StoredDoc[], columns: readonly Column[], managed: Map<string, ManagedBy>): SafeHtml {
  const intro = html`<p class="meta">Read-only: change these in the code that declares them and run <code>vigil apply</code>.</p>`;
  if (docs.length === 0) return html`<h1>${title}</h1>${intro}<p class="empty">None.</p>`;
  const rows = docs.map((doc) => html`<tr>${columns.map((column) => html`<td>${column.cell(doc)}</td>`)}<td>${managedCell(managed.get(String(doc.id)))}</td></tr>`);
  void section;
  return html`<h1>${title}</h1>${intro}<div class="scroll"><table><thead><tr>${columns.map((column) => html`<th scope="col">${column.heading}</th>`)}<th scope="col">Managed by</th></tr></thead>
<tbody>${rows}</tbody></table></div>`;
}

const text = (doc: StoredDoc, key: string) => (doc[key] === undefined || doc[key] === null ? '' : String(doc[key]));
const list = (doc: StoredDoc, key: string) => (Array.isArray(doc[key]) ? (doc[key] as unknown[]).map(String).join(', ') : '');

export function registerResources(app: Hono<AppEnv>, deps: ResourcesDeps): void {
  const { ports } = deps;
  const documents = (kind: DocumentKind) => async (accountId: string) => {
    const docs: StoredDoc[] = [];
    for (let after = 0; ; ) {
      const batch = await ports.documents.pageAfter(kind, accountId, after, READ_BATCH);
      for (const entry of batch) docs.push(entry.doc as StoredDoc);
      if (batch.length < READ_BATCH) return docs;
      after = batch.at(-1)!.seq;
    }
  };
  const managed = new ManagedResources(deps.ports.dashboardReads);

  const serve = (path: string, title: string, section: Section, kind: string, load: (accountId: string) => Promise<StoredDoc[]>, columns: readonly Column[]) => {
    app.get(path, async (c) => {
      const who = signedIn(c, deps);
      if (who instanceof Response) return who;
      const accountId = who.session.accountId;
      const body = listPage(title, section, await load(accountId), columns, await managed.of(accountId, kind));
      return page(c, renderPage({ title, viewer: who.viewer, section, body }));
    });
  };

  serve('/dashboard/maintenance-windows', 'Maintenance windows', 'maintenance-windows', 'maintenance-window', documents('maintenance_windows'), [
    { heading: 'Name', cell: (doc) => text(doc, 'name') },
    { heading: 'Starts', cell: (doc) => timeTag(text(doc, 'startsAt')) },
    { heading: 'Ends', cell: (doc) => timeTag(text(doc, 'endsAt')) },
    { heading: 'Repeats', cell: (doc) => (doc['repeatUnit'] ? `every ${text(doc, 'repeatInterval') || '1'} ${text(doc, 'repeatUnit').toLowerCase()}` : 'no') },
    { heading: 'Tags', cell: (doc) => list(doc, 'tags') },
  ]);
  serve('/dashboard/alert-channels', 'Alert channels', 'alert-channels', 'alert-channel', documents('alert_channels'), [
    { heading: 'Id', cell: (doc) => String(doc.id) },
    { heading: 'Type', cell: (doc) => text(doc, 'type') },
    // Only the channel's name-like fields: its config holds webhook URLs and keys that a page must not show.
    { heading: 'Name', cell: (doc) => String((doc['config'] as Record<string, unknown> | undefined)?.['name'] ?? (doc['config'] as Record<string, unknown> | undefined)?.['address'] ?? '') },
    { heading: 'Sends', cell: (doc) => ['sendFailure', 'sendRecovery', 'sendDegraded'].filter((key) => doc[key] === true).map((key) => key.slice(4).toLowerCase()).join(', ') },
  ]);
  serve('/dashboard/status-pages', 'Status pages', 'status-pages', 'status-page', async (accountId) => (await ports.statusPages.pageAfter(accountId, 0, STATUS_PAGES_MAX)).map((entry) => entry.page as unknown as StoredDoc), [
    { heading: 'Name', cell: (doc) => html`<a href="/status/${encodeURIComponent(text(doc, 'url'))}">${text(doc, 'name')}</a>` },
    { heading: 'Address', cell: (doc) => html`<code>/status/${text(doc, 'url')}</code>` },
    { heading: 'Custom domain', cell: (doc) => text(doc, 'customDomain') },
  ]);
}
