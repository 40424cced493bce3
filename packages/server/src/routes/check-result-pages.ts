/**
 * `GET /v2/check-results/{checkId}` (newest first, cursor paging, `fields` projection),
 * `GET /v1/check-results/{checkId}/{checkResultId}` and `GET /v1/error-groups/{id}`: the reads the
 * Checkly CLI's `checks get` makes.
 *
 * The cursor (`nextId`) is the position of the last entry sent, `<created_ms>.<id>` base64url
 * encoded: results inserted meanwhile (newer) never shift later pages, unlike page numbers. The
 * SQL walks newest first from the cursor and stops as soon as it has one entry more than `limit`,
 * so a page costs the same on a check with thousands of results. The v2 window has no default
 * bounds (retention bounds it), unlike v1's six hours.
 */
import { ENDPOINTS, type CheckResultsV2Query } from '@vigil/schema';
import type { Hono } from 'hono';
import { badRequest, notFound } from '../http/errors.js';
import type { AppEnv } from '../http/types.js';
import { presentResult } from '../readside/check-results.js';
import type { ResultFacts } from '../readside/result-facts.js';
import { present as presentErrorGroup } from './error-groups.js';
import type { RouteContext } from './index.js';

interface Position {
  createdMs: number;
  id: string;
}

export function encodeCursor(position: Position): string {
  return Buffer.from(`${position.createdMs}.${position.id}`, 'utf8').toString('base64url');
}

export function decodeCursor(cursor: string): Position | undefined {
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  const dot = text.indexOf('.');
  const createdMs = Number(text.slice(0, dot));
  if (dot <= 0 || !Number.isSafeInteger(createdMs) || dot === text.length - 1) return undefined;
  return { createdMs, id: text.slice(dot + 1) };
}

/** Whether a stored result passes the query's filters (the window is applied in SQL). */
function matches(facts: ResultFacts, query: CheckResultsV2Query, checkType: string): boolean {
  if (query.checkType !== undefined && query.checkType !== checkType) return false;
  if (query.resultType !== 'ALL' && facts.resultType !== query.resultType) return false;
  if (query.location !== undefined && facts.runLocation !== query.location) return false;
  if (query.hasFailures !== undefined && facts.hasFailures !== query.hasFailures) return false;
  return true;
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
  const { results } = ctx.repositories.readSide;

  ctx.route(ENDPOINTS['checkResults.listV2'], ({ account, params, query }) => {
    const check = ctx.store.checks.get(account.id, params.checkId);
    if (!check) throw notFound('Check', params.checkId);
    if (query.from !== undefined && query.to !== undefined && query.to <= query.from) {
      throw badRequest('"to" must be greater than "from"', { source: 'query', keys: ['to'] });
    }
    const after = query.nextId === undefined ? undefined : decodeCursor(query.nextId);
    if (query.nextId !== undefined && !after) {
      throw badRequest('"nextId" is not a cursor this service gave out; pass the nextId of the previous page', { source: 'query', keys: ['nextId'] });
    }
    const fromMs = (query.from ?? 0) * 1000;
    const toMs = query.to === undefined ? Number.MAX_SAFE_INTEGER : query.to * 1000;
    // No cursor: start past the newest possible row ('\uffff' sorts after every id at the same instant).
    const start = after ?? { createdMs: Number.MAX_SAFE_INTEGER, id: '\uffff' };
    const checkType = String(check['checkType']);
    const picked: Array<{ id: string; createdMs: number; doc: Record<string, unknown> }> = [];
    let more = false;
    for (const entry of results.newestFirst(account.id, params.checkId, fromMs, toMs, start)) {
      if (!matches(entry.facts, query, checkType)) continue;
      if (picked.length === query.limit) {
        more = true;
        break;
      }
      picked.push({ id: entry.facts.id, createdMs: entry.facts.createdAt, doc: entry.document() });
    }
    const last = picked.at(-1);
    return {
      length: picked.length,
      entries: picked.map((entry) => project(presentResult(entry.doc), query.fields)),
      nextId: more && last ? encodeCursor(last) : null,
    };
  });

  ctx.route(ENDPOINTS['checkResults.get'], ({ account, params }) => {
    const result = results.result(account.id, params.checkId, params.checkResultId);
    if (!result) throw notFound('Check result', params.checkResultId);
    return presentResult(result) as never;
  });

  ctx.route(ENDPOINTS['errorGroups.get'], ({ account, params }) => {
    const group = results.errorGroup(account.id, params.id);
    if (!group) throw notFound('Error group', params.id);
    return presentErrorGroup(group);
  });
}
