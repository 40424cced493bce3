/** Alert channels: list, get, and the extension create, update and delete. */
import { ENDPOINTS } from '@vigil/schema';
import type { Hono } from 'hono';
import { createChannel, deleteChannel, getChannel, presentChannel, updateChannel } from '../domain/alert-channels.js';
import type { AppEnv } from '../http/types.js';
import type { RouteContext } from './index.js';

export function register(_app: Hono<AppEnv>, ctx: RouteContext): void {
  const { store } = ctx;

  ctx.route(ENDPOINTS['alertChannels.create'], ({ account, body }) => presentChannel(store, account.id, createChannel(store, account.id, body)));
  ctx.route(ENDPOINTS['alertChannels.list'], ({ account, query }) => {
    const page = store.alertChannels.page(account.id, { limit: query.limit, page: query.page });
    return { items: page.items.map((doc) => presentChannel(store, account.id, doc)), total: page.total };
  });
  ctx.route(ENDPOINTS['alertChannels.get'], ({ account, params }) => presentChannel(store, account.id, getChannel(store, account.id, params.id)));
  ctx.route(ENDPOINTS['alertChannels.update'], ({ account, params, body }) =>
    presentChannel(store, account.id, updateChannel(store, account.id, params.id, body)),
  );
  ctx.route(ENDPOINTS['alertChannels.delete'], ({ account, params }) => deleteChannel(store, account.id, params.id));
}
