/**
 * Status pages: create, list (by cursor, as the real document pages them), get, update, delete.
 * The rules (service-wide names, card services, card identity) are in domain/status-pages.ts; the
 * public page visitors read is rendered by public-pages/. Each is a unit of work over the storage
 * ports (see the top of index.ts): the status-page port and, for the cards' services, the documents port.
 */
import { ENDPOINTS } from '@vigil/schema';
import type { Hono } from 'hono';
import { createStatusPage, deleteStatusPage, getStatusPage, presentStatusPage, updateStatusPage, type StatusPageDoc } from '../domain/status-pages.js';
import { badRequest } from '../http/errors.js';
import type { AppEnv } from '../http/types.js';
import type { RouteContext } from './index.js';

/** The row number a `nextId` stands for; 0 (from the start) without one. */
function cursorOf(nextId: string | undefined): number {
  if (nextId === undefined) return 0;
  const after = Number(Buffer.from(nextId, 'base64url').toString('utf8'));
  if (!Number.isSafeInteger(after) || after < 1) {
    throw badRequest('"nextId" is not a cursor this service gave out; pass the nextId of the previous page', { source: 'query', keys: ['nextId'] });
  }
  return after;
}

export function register(_app: Hono<AppEnv>, ctx: RouteContext): void {
  ctx.routeUnit(ENDPOINTS['statusPages.create'], async ({ tx, account, body }) => presentStatusPage(tx, account.id, await createStatusPage(tx, account.id, body)));
  // Oldest first; the cursor is the row's number in the order of creation, so a page created or
  // deleted meanwhile never makes a later page of the list skip or repeat one.
  ctx.routeUnit(ENDPOINTS['statusPages.list'], async ({ tx, account, query }) => {
    const rows = await tx.statusPages.pageAfter(account.id, cursorOf(query.nextId), query.limit + 1);
    const shown = rows.slice(0, query.limit);
    const last = shown.at(-1);
    const entries = [];
    for (const row of shown) entries.push(await presentStatusPage(tx, account.id, row.page as StatusPageDoc));
    return {
      length: shown.length,
      entries,
      nextId: rows.length > query.limit && last ? Buffer.from(String(last.seq), 'utf8').toString('base64url') : null,
    };
  });
  ctx.routeUnit(ENDPOINTS['statusPages.get'], async ({ tx, account, params }) => presentStatusPage(tx, account.id, await getStatusPage(tx, account.id, params.statusPageId)));
  ctx.routeUnit(ENDPOINTS['statusPages.update'], async ({ tx, account, params, body }) =>
    presentStatusPage(tx, account.id, await updateStatusPage(tx, account.id, params.statusPageId, body)),
  );
  ctx.routeUnit(ENDPOINTS['statusPages.delete'], async ({ tx, account, params }) => {
    await deleteStatusPage(tx, account.id, params.statusPageId);
  });
}
