/**
 * `GET /metrics`: the Prometheus text exposition of the service (metrics/index.ts).
 *
 * Who sees what: an account's API key sees that account's checks and incidents only (as every
 * other route, so a tenant learns nothing of another); the operator's metrics token (`vigil
 * server --metrics-token`) sees every configured account's, plus the scheduler, notifications,
 * HTTP and process metrics, which describe the whole service and so belong to no tenant.
 * The auth middleware in app.ts tells the two apart (`operator`).
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { Context, Hono } from 'hono';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import { routePath } from 'hono/route';
import type { AccountRegistry } from '../accounts.js';
import type { AppEnv } from '../http/types.js';
import { expositionStream, linesOfPiece } from '../metrics/exposition.js';
import type { MetricsView, ServiceMetrics } from '../metrics/index.js';

export const METRICS_PATH = '/metrics';

/** Whether `token` is the metrics token; compares digests so the time taken says nothing of the token. */
export function isMetricsToken(token: string, metricsToken: string | undefined): boolean {
  if (metricsToken === undefined) return false;
  const digest = (text: string) => createHash('sha256').update(text).digest();
  return timingSafeEqual(digest(token), digest(metricsToken));
}

/**
 * The route a request matched as registered (`/v1/checks/:id`), `unmatched` when none did: a label
 * value per route, never per URL, so neither ids nor unknown paths a client sends add series.
 */
export function routeTemplateOf(c: Context<AppEnv>): string {
  const path = routePath(c, -1);
  return path === '' || path.includes('*') ? 'unmatched' : path;
}

/**
 * `writeToSocket`: whether the operator's scrape may write its pieces to the Node response itself
 * (below). Not while faults are injected: a dropped request must end before any response byte.
 */
export function register(app: Hono<AppEnv>, metrics: ServiceMetrics, accounts: AccountRegistry, options: { writeToSocket: boolean }): void {
  app.get(METRICS_PATH, async (c) => {
    const view: MetricsView = c.get('operator') === true
      ? { kind: 'operator', accountIds: accounts.all().map((account) => account.id) }
      : { kind: 'account', accountId: c.get('account').id };
    const { contentType, chunks, done } = await metrics.scrape(view);
    const headers = { 'content-type': contentType, 'cache-control': 'no-store' };
    // The pieces' memory is reused once the scrape is done (metrics/checks.ts): when the Node
    // response closes, sent whole or cut short, as its socket then holds none of it any more.
    const response = c.env?.outgoing;
    if (response) {
      if (response.closed) done();
      else response.once('close', done);
    }
    const outgoing = options.writeToSocket && view.kind === 'operator' ? response : undefined;
    if (outgoing) {
      // Under @hono/node-server the pieces go to the socket as they are (no copy, no web stream:
      // through one, each piece was a read, a write and a wait for the socket to drain, and small
      // pieces were copied into batches first). Kept pieces are handed over at once; a piece left
      // for later is written once the socket has taken what came before it, so that writing it
      // overlaps the transfer. The operator's view only: an account's scrape gets rate-limit
      // headers after this handler, which a response already sent can't.
      // Corked between waits, so the kept pieces before a wait leave in one gathered write.
      outgoing.writeHead(200, headers);
      outgoing.cork();
      try {
        for (const chunk of chunks) {
          if (outgoing.destroyed) return RESPONSE_ALREADY_SENT; // the scraper went away
          if (typeof chunk === 'function' && outgoing.writableNeedDrain) {
            outgoing.uncork();
            if (!(await drained(outgoing))) return RESPONSE_ALREADY_SENT;
            outgoing.cork();
          }
          const lines = linesOfPiece(chunk);
          if (lines.length > 0) outgoing.write(lines);
        }
        outgoing.end();
        outgoing.uncork();
      } catch (error) {
        // The status line is gone already: end the response short, so the scraper sees a failed scrape.
        outgoing.destroy(error as Error);
      }
      return RESPONSE_ALREADY_SENT;
    }
    // Streamed, not joined: the pieces are kept between scrapes, and one body of tens of MiB
    // would be a copy made before the first byte leaves and collected after the last.
    // Without a Node response (the app called in process, as tests do) the scrape is never done:
    // a reader of the body may hold its pieces as they are for as long as it likes.
    return c.body(expositionStream(chunks), 200, headers);
  });
}

/** Whether the response drained and can take more; false once it closed (the scraper went away). */
function drained(outgoing: ServerResponse): Promise<boolean> {
  if (outgoing.destroyed) return Promise.resolve(false);
  return new Promise((resolve) => {
    const done = (value: boolean) => () => {
      outgoing.off('drain', onDrain);
      outgoing.off('close', onClose);
      resolve(value);
    };
    const onDrain = done(true);
    const onClose = done(false);
    outgoing.on('drain', onDrain);
    outgoing.on('close', onClose);
  });
}
