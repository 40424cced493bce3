/**
 * Status pages: create, list (by cursor, as the real document pages them), get, update, delete.
 * The rules (service-wide names, card services, card identity) are in domain/status-pages.ts; the
 * public page visitors read is rendered by public-pages/.
 */
import { ENDPOINTS } from '@vigil/schema';
import type { Hono } from 'hono';
import { createStatusPage, deleteStatusPage, getStatusPage, presentStatusPage, updateStatusPage, type StatusPageDeps } from '../domain/status-pages.js';
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
  const deps: StatusPageDeps = { store: ctx.store, pages: ctx.repositories.readSide.pages };

  ctx.route(ENDPOINTS['statusPages.create'], ({ account, body }) => presentStatusPage(deps, account.id, createStatusPage(deps, account.id, body)));
  // Oldest first; the cursor is the row's number, so a page created or deleted meanwhile never
  // makes a later page of the list skip or repeat one.
  ctx.route(ENDPOINTS['statusPages.list'], ({ account, query }) => {
    const rows = deps.pages.statusPagesAfter(account.id, cursorOf(query.nextId), query.limit + 1);
    const shown = rows.slice(0, query.limit);
    const last = shown.at(-1);
    return {
      length: shown.length,
      entries: shown.map((row) => presentStatusPage(deps, account.id, row.page)),
      nextId: rows.length > query.limit && last ? Buffer.from(String(last.seq), 'utf8').toString('base64url') : null,
    };
  });
  ctx.route(ENDPOINTS['statusPages.get'], ({ account, params }) => presentStatusPage(deps, account.id, getStatusPage(deps, account.id, params.statusPageId)));
  ctx.route(ENDPOINTS['statusPages.update'], ({ account, params, body }) =>
    presentStatusPage(deps, account.id, updateStatusPage(deps, account.id, params.statusPageId, body)),
  );
  ctx.route(ENDPOINTS['statusPages.delete'], ({ account, params }) => {
    deleteStatusPage(deps, account.id, params.statusPageId);
  });
}
