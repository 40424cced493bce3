/**
 * The SQL of the check list's filters (`GET /v1/checks`): tags, type, name search, an API check's
 * URL and a status. Kept beside the collection that runs them, so no other layer writes SQL.
 */
import type { Filter } from './collection.js';
import type { CheckState } from './statuses.js';

/**
 * Every given tag must be present. One condition whatever the number of tags, with the tags as one
 * JSON parameter: a condition per tag made each distinct count a new cached statement (940 counts
 * grew the server to 2.2 GB) and ~950 tags nested past SQLite's expression depth (a 500).
 */
const ALL_TAGS_PRESENT = "NOT EXISTS (SELECT 1 FROM json_each(?) AS wanted WHERE wanted.value NOT IN (SELECT value FROM json_each(doc, '$.tags')))";

/**
 * The SQL filters of `GET /v1/checks`. `status` keeps the checks whose last run is in that state:
 * one read of the statuses' state index (step 30 of migrations/). Statuses change without a write
 * to the checks, so that filter is `volatile`: the collection does not remember its totals.
 */
export function checkFilters(
  query: { tag?: string | string[] | undefined; checkType?: string | undefined; search?: string | undefined; apiCheckUrlFilterPattern?: string | undefined },
  status?: { readonly accountId: string; readonly state: CheckState },
): Filter[] {
  const filters: Filter[] = [];
  const tags = query.tag === undefined ? [] : Array.isArray(query.tag) ? query.tag : [query.tag];
  if (tags.length > 0) filters.push({ sql: ALL_TAGS_PRESENT, values: [JSON.stringify(tags)] });
  if (query.checkType !== undefined) filters.push({ sql: 'check_type = ?', values: [query.checkType] });
  // instr, not LIKE: `%` and `_` in a search are plain characters.
  if (query.search) filters.push({ sql: "instr(lower(json_extract(doc, '$.name')), lower(?)) > 0", values: [query.search] });
  if (query.apiCheckUrlFilterPattern) {
    filters.push({ sql: "check_type = 'API' AND instr(lower(json_extract(doc, '$.request.url')), lower(?)) > 0", values: [query.apiCheckUrlFilterPattern] });
  }
  if (status !== undefined) {
    filters.push({ sql: 'id IN (SELECT check_id FROM check_statuses WHERE account_id = ? AND state = ?)', values: [status.accountId, status.state], volatile: true });
  }
  return filters;
}
