/**
 * Alert channels: list, get, and the extension create, update and delete, each a unit of work over
 * the storage ports (see the top of index.ts).
 */
import { ENDPOINTS } from '@vigil/schema';
import type { Hono } from 'hono';
import { createChannel, deleteChannel, getChannel, listChannels, presentChannel, updateChannel } from '../domain/alert-channels.js';
import type { AppEnv } from '../http/types.js';
import type { RouteContext } from './index.js';

export function register(_app: Hono<AppEnv>, ctx: RouteContext): void {
  ctx.routeUnit(ENDPOINTS['alertChannels.create'], async ({ tx, account, body }) => presentChannel(tx, account.id, await createChannel(tx, account.id, body)));
  ctx.routeUnit(ENDPOINTS['alertChannels.list'], ({ tx, account, query }) => listChannels(tx, account.id, { limit: query.limit, page: query.page }));
  ctx.routeUnit(ENDPOINTS['alertChannels.get'], async ({ tx, account, params }) => presentChannel(tx, account.id, await getChannel(tx, account.id, params.id)));
  ctx.routeUnit(ENDPOINTS['alertChannels.update'], async ({ tx, account, params, body }) =>
    presentChannel(tx, account.id, await updateChannel(tx, account.id, params.id, body)),
  );
  ctx.routeUnit(ENDPOINTS['alertChannels.delete'], ({ tx, account, params }) => deleteChannel(tx, account.id, params.id));
}
