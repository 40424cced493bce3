/** Rules shared by every stored resource: PUT merge and secret hiding. */
import type { StoredDoc } from '../store/index.js';

/**
 * PUT merge: every field the body carries replaces the stored one (a list is replaced whole, so `[]`
 * clears it; `null` clears a nullable field such as `groupId`); omitted fields stay as they are.
 * Fields the service owns (`id`, timestamps) are never taken from the body.
 */
export function mergeUpdate(stored: StoredDoc, body: Record<string, unknown>): StoredDoc {
  const merged: StoredDoc = { ...stored };
  for (const [field, value] of Object.entries(body)) {
    if (value === undefined || field === 'id' || field === 'created_at' || field === 'updated_at') continue;
    merged[field] = value;
  }
  return merged;
}

/** Whether `hideSecretValues` changes the document (kept as the checks' `has_secret` column). */
export function hasSecretValues(doc: Record<string, unknown>): boolean {
  const variables = doc['environmentVariables'];
  return Array.isArray(variables) && variables.some((variable) => (variable as { secret?: unknown } | null)?.secret === true);
}

/** Secret environment variables are returned with `value: null` (their value is write-only). */
export function hideSecretValues(doc: StoredDoc): StoredDoc {
  if (!hasSecretValues(doc)) return doc;
  const variables = doc['environmentVariables'] as unknown[];
  return {
    ...doc,
    environmentVariables: variables.map((variable) =>
      (variable as { secret?: boolean }).secret === true ? { ...(variable as object), value: null } : variable,
    ),
  };
}

/** `{field: null}` for each field; spread under a create body so sent values win. */
export function nullsForAbsent(fields: readonly string[]): Record<string, null> {
  return Object.fromEntries(fields.map((field) => [field, null]));
}
