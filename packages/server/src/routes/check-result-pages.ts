/**
 * `GET /v2/check-results/{checkId}` (newest first, cursor paging, `fields` projection),
 * `GET /v1/check-results/{checkId}/{checkResultId}` and `GET /v1/error-groups/{id}`: the reads the
 * Checkly CLI's `checks get` makes.
 *
 * The cursor (`nextId`) is the position of the last entry sent, `<created_ms>.<id>` base64url
 * encoded: results inserted meanwhile (newer) never shift later pages, unlike page numbers. The
 * check-results port walks newest first from the cursor and stops as soon as it has one entry more
 * than `limit`, so a page costs the same on a check with thousands of results. The v2 window has no
 * default bounds (retention bounds it), unlike v1's six hours.
 */
import { ENDPOINTS } from '@vigil/schema';
import type { Hono } from 'hono';
import { getCheck } from '../domain/checks.js';
import { badRequest, notFound } from '../http/errors.js';
import type { AppEnv } from '../http/types.js';
import { presentResult } from '../readside/check-results.js';
import { storedMoment } from './check-results.js';
import { present as presentErrorGroup } from './error-groups.js';
import type { RouteContext } from './index.js';

interface Position {
  createdMs: number;
  id: string;
}

export function encodeCursor(position: Position): string {
  return Buffer.from(`${position.createdMs}.${position.id}`, 'utf8').toString('base64url');
}

/** Ids are at most this long: a position naming a longer one was never given out. */
const MAX_RESULT_ID_LENGTH = 255;

export function decodeCursor(cursor: string): Position | undefined {
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  const dot = text.indexOf('.');
  const createdMs = Number(text.slice(0, dot));
  if (dot <= 0 || !Number.isSafeInteger(createdMs) || createdMs < 0 || dot === text.length - 1) return undefined;
  const id = text.slice(dot + 1);
  return id.length > MAX_RESULT_ID_LENGTH ? undefined : { createdMs, id };
}

/** The entry with only the asked fields; `createdAt` is the real service's alias of `created_at`. */
function project(doc: Record<string, unknown>, fields: readonly string[] | undefined): Record<string, unknown> {
  if (fields === undefined || fields.length === 0) return doc;
  const entry: Record<string, unknown> = {};
  for (const field of fields) {
    const value = field === 'createdAt' ? doc['created_at'] : doc[field];
    if (value !== undefined) entry[field] = value;
  }
  return entry;
}

export function register(_app: Hono<AppEnv>, ctx: RouteContext): void {
  ctx.routeUnit(ENDPOINTS['checkResults.listV2'], async ({ tx, account, params, query }) => {
    const check = await getCheck(tx, account.id, params.checkId);
    if (query.from !== undefined && query.to !== undefined && query.to <= query.from) {
      throw badRequest('"to" must be greater than "from"', { source: 'query', keys: ['to'] });
    }
    const after = query.nextId === undefined ? undefined : decodeCursor(query.nextId);
    if (query.nextId !== undefined && !after) {
      throw badRequest('"nextId" is not a cursor this service gave out; pass the nextId of the previous page', { source: 'query', keys: ['nextId'] });
    }
    // A filter naming another type than the check's matches none of its results.
    if (query.checkType !== undefined && query.checkType !== String(check['checkType'])) return { length: 0, entries: [], nextId: null };
    // One entry more than the page: whether there is a next page, without a count.
    const found = await tx.checkResults.newestFirst(account.id, params.checkId, {
      limit: query.limit + 1,
      before: after,
      fromMs: query.from === undefined ? undefined : storedMoment(query.from * 1000),
      toMs: query.to === undefined ? undefined : storedMoment(query.to * 1000),
      location: query.location,
      hasFailures: query.hasFailures,
      resultType: query.resultType === 'ALL' ? undefined : query.resultType,
    });
    const picked = found.slice(0, query.limit);
    const last = picked.at(-1);
    return {
      length: picked.length,
      entries: picked.map((doc) => project(presentResult(doc), query.fields)),
      nextId: found.length > query.limit && last ? encodeCursor({ createdMs: Date.parse(last.created_at), id: last.id }) : null,
    };
  });

  ctx.routeUnit(ENDPOINTS['checkResults.get'], async ({ tx, account, params }) => {
    // No stored result has a longer id (the port refuses one as a caller's bug).
    const result = params.checkResultId.length <= MAX_RESULT_ID_LENGTH ? await tx.checkResults.find(account.id, params.checkId, params.checkResultId) : undefined;
    if (!result) throw notFound('Check result', params.checkResultId);
    return presentResult(result) as never;
  });

  ctx.routeUnit(ENDPOINTS['errorGroups.get'], async ({ tx, account, params }) => {
    const group = await tx.errorGroups.find(account.id, params.id);
    if (!group) throw notFound('Error group', params.id);
    return presentErrorGroup(group);
  });
}
