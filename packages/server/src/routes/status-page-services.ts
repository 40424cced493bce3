/**
 * Status-page services: create, list, get, update, delete. A service's `checks` are the checks whose
 * `triggerIncident.serviceId` points at it; deleting a service those checks still use is refused
 * (409, naming them), the same rule as for groups, so no check is left pointing at nothing. So is
 * deleting a service a status page's card shows (the real document says nothing of either), naming
 * the pages, so no card is left showing nothing in its place.
 *
 * Each is a unit of work over the storage ports (see the top of index.ts); the pages showing a
 * service are the status-page port's `showingService`.
 */
import { ENDPOINTS } from '@vigil/schema';
import type { Hono } from 'hono';
import { mergeUpdate } from '../domain/documents.js';
import { badRequest, conflict, notFound } from '../http/errors.js';
import type { AppEnv } from '../http/types.js';
import type { StoredDoc } from '../store/index.js';
import type { TransactionPorts } from '../store/ports.js';
import type { RouteContext } from './index.js';

/** Checks read per page when listing a service's checks (all of them are listed). */
const CHECKS_PAGE = 500;

/** The checks of the account that open incidents on the service, oldest first. */
export async function checksOfService(tx: TransactionPorts, accountId: string, serviceId: string): Promise<Array<{ id: string; name: unknown }>> {
  const checks: Array<{ id: string; name: unknown }> = [];
  for (let page = 1; ; page++) {
    const { items, total } = await tx.documents.page('checks', accountId, { serviceId, limit: CHECKS_PAGE, page });
    checks.push(...items.map((check) => ({ id: String(check.id), name: check['name'] ?? null })));
    if (items.length === 0 || checks.length >= total) return checks;
  }
}

/** Ids the ports accept for a service; any other names no service (the ports would refuse it as a bug). */
const isServiceId = (id: unknown): id is string => typeof id === 'string' && id.length > 0 && id.length <= 255;

export function register(_app: Hono<AppEnv>, ctx: RouteContext): void {
  const present = async (tx: TransactionPorts, accountId: string, doc: StoredDoc): Promise<StoredDoc> => ({
    ...doc,
    accountId,
    checks: await checksOfService(tx, accountId, String(doc.id)),
  });
  const find = async (tx: TransactionPorts, accountId: string, id: string): Promise<StoredDoc> => {
    const doc = isServiceId(id) ? await tx.documents.get('services', accountId, id) : undefined;
    if (!doc) throw notFound('Status-page service', id);
    return doc as StoredDoc;
  };

  ctx.routeUnit(ENDPOINTS['statusPageServices.create'], async ({ tx, account, body }) => {
    const now = new Date().toISOString();
    return present(tx, account.id, (await tx.documents.insert('services', account.id, (id) => ({ ...body, id, created_at: now, updated_at: null }))) as StoredDoc);
  });
  // Oldest first, as every list; the cursor is the row's insertion sequence, so a service created or
  // deleted meanwhile never makes a later page skip or repeat one.
  ctx.routeUnit(ENDPOINTS['statusPageServices.list'], async ({ tx, account, query }) => {
    const after = query.nextId === undefined ? 0 : Number(Buffer.from(query.nextId, 'base64url').toString('utf8'));
    if (!Number.isSafeInteger(after) || (query.nextId !== undefined && after < 1)) {
      throw badRequest('"nextId" is not a cursor this service gave out; pass the nextId of the previous page', { source: 'query', keys: ['nextId'] });
    }
    const rows = await tx.documents.pageAfter('services', account.id, after, query.limit + 1);
    const page = rows.slice(0, query.limit);
    const last = page.at(-1);
    const entries: StoredDoc[] = [];
    for (const row of page) entries.push(await present(tx, account.id, row.doc as StoredDoc));
    return {
      length: page.length,
      entries,
      nextId: rows.length > query.limit && last ? Buffer.from(String(last.seq), 'utf8').toString('base64url') : null,
    };
  });
  ctx.routeUnit(ENDPOINTS['statusPageServices.get'], async ({ tx, account, params }) => present(tx, account.id, await find(tx, account.id, params.id)));
  ctx.routeUnit(ENDPOINTS['statusPageServices.update'], async ({ tx, account, params, body }) => {
    const merged = mergeUpdate(await find(tx, account.id, params.id), body);
    merged['updated_at'] = new Date().toISOString();
    await tx.documents.replace('services', account.id, merged);
    return present(tx, account.id, merged);
  });
  // Refused while a check opens incidents on the service or a status page's card shows it, so nothing
  // is left pointing at a service that is gone; the reads and the delete are one transaction.
  ctx.routeUnit(ENDPOINTS['statusPageServices.delete'], async ({ tx, account, params }) => {
    await find(tx, account.id, params.id);
    const users = await checksOfService(tx, account.id, params.id);
    if (users.length > 0) {
      throw conflict(`Status-page service ${params.id} is still used by checks: ${users.map((check) => check.id).join(', ')}`);
    }
    const pages = await tx.statusPages.showingService(account.id, params.id);
    if (pages.length > 0) {
      throw conflict(`Status-page service ${params.id} is still shown on status pages: ${pages.map((page) => `${JSON.stringify(page.name)} (${page.id})`).join(', ')}`);
    }
    await tx.documents.remove('services', account.id, params.id);
  });
}
