/**
 * What a check's group adds to it at run time, as the real service does it. Both callers of the
 * runner need this: `vigil test` (from the loaded project) and the service's scheduler (from stored
 * rows), so it lives here, beside the executors that consume its output.
 *
 * The rules (Checkly's "API check defaults" and "variable hierarchy" documentation):
 * - `apiCheckDefaults.url` is not prepended: it is the `{{GROUP_BASE_URL}}` variable, which the
 *   check's url (or anything else that interpolates) may use.
 * - Headers and query parameters of the group are added; the check's win for the same name
 *   (headers compared case-insensitively, as HTTP does).
 * - The group's assertions are appended to the check's.
 * - The group's basic auth applies when the check sends none (empty username).
 * - The group's setup/teardown script runs when the check has none of its own.
 * - Variables: the check's win over the group's (the caller puts config and command-line ones
 *   around these; see `RunContext.variables`).
 * - A group's retry strategy replaces its checks' own, unless it is `FALLBACK` ("let each check
 *   decide"); a group with none (`null`) retries none of them. Checks do not copy the group's
 *   strategy into their own payloads (as in Checkly), so it applies here.
 */
import { interpolate } from './variables.js';

export interface KeyValue {
  key: string;
  value: string;
}

export interface VariableLike {
  key: string;
  value: string | null;
  secret?: boolean;
}

/** The group fields that change how its checks run (a subset of the group's wire payload). */
export interface GroupRunDefaults {
  apiCheckDefaults?: {
    url?: string;
    headers?: KeyValue[];
    queryParameters?: KeyValue[];
    assertions?: unknown[];
    basicAuth?: { username: string; password: string } | null;
  } | null;
  environmentVariables?: VariableLike[] | null;
  localSetupScript?: string | null;
  localTearDownScript?: string | null;
  retryStrategy?: unknown;
}

/** The variable that carries the group's base URL, as on the real service. */
export const GROUP_BASE_URL = 'GROUP_BASE_URL';

/**
 * The check payload the runner should execute: `check` with its group's request defaults and
 * scripts merged in. Returns a new object; neither input is changed. Only API checks take request
 * defaults; every check type takes the group's scripts.
 */
export function applyGroupDefaults(check: Record<string, unknown>, group: GroupRunDefaults | undefined): Record<string, unknown> {
  if (!group) return check;
  const merged: Record<string, unknown> = { ...check };
  const defaults = group.apiCheckDefaults ?? undefined;
  if (check.checkType === 'API' && defaults && typeof check.request === 'object' && check.request !== null) {
    const request = { ...(check.request as Record<string, unknown>) };
    request.headers = mergeByKey(defaults.headers ?? [], asKeyValues(request.headers), (key) => key.toLowerCase());
    request.queryParameters = mergeByKey(defaults.queryParameters ?? [], asKeyValues(request.queryParameters), (key) => key);
    request.assertions = [...(Array.isArray(request.assertions) ? request.assertions : []), ...(defaults.assertions ?? [])];
    const ownAuth = request.basicAuth as { username?: string } | null | undefined;
    if ((!ownAuth || !ownAuth.username) && defaults.basicAuth?.username) request.basicAuth = { ...defaults.basicAuth };
    merged.request = request;
  }
  if (group.retryStrategy !== undefined && group.retryStrategy !== 'FALLBACK') {
    merged.retryStrategy = group.retryStrategy;
    // The service's doubleCheck default would still retry once after the group's "none".
    if (group.retryStrategy === null) merged.doubleCheck = false;
  }
  if (!check.localSetupScript && group.localSetupScript) merged.localSetupScript = group.localSetupScript;
  if (!check.localTearDownScript && group.localTearDownScript) merged.localTearDownScript = group.localTearDownScript;
  return merged;
}

/**
 * The group's own variables, in lookup order after the check's: its environment variables, then
 * `GROUP_BASE_URL` when the group has a base URL.
 */
export function groupVariables(group: GroupRunDefaults | undefined): VariableLike[] {
  if (!group) return [];
  const variables = [...(group.environmentVariables ?? [])];
  const base = group.apiCheckDefaults?.url;
  if (base) variables.push({ key: GROUP_BASE_URL, value: base });
  return variables;
}

/**
 * A group's base URL may itself use variables (`{{ENVIRONMENT_URL}}/api`), so `{{GROUP_BASE_URL}}`
 * must resolve to a URL in one step: its value is interpolated from the other variables (the whole
 * list, in lookup order) first. Returns a new list; other variables are unchanged.
 */
export function resolveGroupBaseUrl<T extends { key: string; value: string }>(variables: readonly T[]): T[] {
  const others = new Map<string, string>();
  for (const variable of variables) if (variable.key !== GROUP_BASE_URL && !others.has(variable.key)) others.set(variable.key, variable.value);
  return variables.map((variable) =>
    variable.key === GROUP_BASE_URL && variable.value.includes('{{')
      ? { ...variable, value: interpolate(variable.value, others) }
      : variable,
  );
}

function asKeyValues(value: unknown): KeyValue[] {
  return Array.isArray(value) ? (value as KeyValue[]) : [];
}

/** The group's entries whose key the check does not set, then the check's own, in order. */
function mergeByKey(fromGroup: readonly KeyValue[], own: readonly KeyValue[], normalise: (key: string) => string): KeyValue[] {
  const ownKeys = new Set(own.map((entry) => normalise(entry.key)));
  return [...fromGroup.filter((entry) => !ownKeys.has(normalise(entry.key))), ...own];
}
