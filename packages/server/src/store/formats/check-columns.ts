import { hasSecretValues } from '../../domain/documents.js';

/** A value copied from a document into its own column at every write, so queries read a plain column. */
export interface DocumentColumn {
  readonly column: string;
  readonly value: (doc: Record<string, unknown>) => string | number | null;
}

/**
 * Check fields that list filters and the 409/`checks` look-ups query (SQLite step 4), and whether the
 * check's response differs from its stored document (SQLite step 5): copied from the document into
 * columns of the same names at every write, on every engine.
 */
export const CHECK_COLUMNS: readonly DocumentColumn[] = [
  { column: 'check_type', value: (doc) => (typeof doc['checkType'] === 'string' ? doc['checkType'] : null) },
  { column: 'group_id', value: (doc) => (typeof doc['groupId'] === 'number' ? doc['groupId'] : null) },
  {
    column: 'service_id',
    value: (doc) => {
      const serviceId = (doc['triggerIncident'] as { serviceId?: unknown } | null | undefined)?.serviceId;
      return typeof serviceId === 'string' ? serviceId : null;
    },
  },
  { column: 'has_secret', value: (doc) => (hasSecretValues(doc) ? 1 : 0) },
];
