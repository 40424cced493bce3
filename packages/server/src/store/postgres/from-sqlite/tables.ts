/**
 * What `vigil server migrate-data` does with each table of a SQLite server database: copied into the
 * PostgreSQL table that keeps the same rows (each engine's own layout: the PostgreSQL migrations say
 * where a table differs, and the copy fills those columns as the PostgreSQL engine's writes do), left
 * behind on purpose (short-lived or rebuilt: `SKIPPED_TABLES`), or, for every other table, refused
 * while it holds rows, since the PostgreSQL schema cannot take them yet.
 *
 * Ids, `seq` orders and keys are copied as they are, so every reference between rows (a check's
 * group, a result's series, an incident's check) stays right; the sequences behind them are moved
 * past the copied values afterwards (copy.ts).
 */
import { matchedColumns } from '../documents.js';
import { checkStateOf } from '../../check-status-rules.js';
import { servedName, servicesShown, type StatusPageDocument } from '../../status-page-ports.js';
import { DOCUMENT_KINDS, type DocumentKind, type ResourceDocument } from '../../document-ports.js';

type SourceRow = Record<string, unknown>;

/** One source table copied row for row into one target table. */
export interface TableCopy {
  /** How the report names the rows. */
  readonly kind: string;
  readonly source: string;
  readonly target: string;
  /** The source columns read (the source's `rowid` is read beside them, for paging, unless `key` is given). */
  readonly select: string;
  /** A source table WITHOUT ROWID: the columns of its primary key, which it is paged by instead (each among `select`'s). */
  readonly key?: readonly string[];
  /** The target columns written, in the order `values` gives them. */
  readonly columns: readonly string[];
  readonly values: (row: SourceRow) => unknown[];
  /** The target column is GENERATED ALWAYS: the copied value is written with OVERRIDING SYSTEM VALUE. */
  readonly overriding?: boolean;
  /** A column numbered by a sequence (serial or identity), moved past the highest value copied. */
  readonly sequence?: string;
}

const bool = (value: unknown): boolean => value === 1 || value === 1n || value === true;

/** A table both engines keep with the same columns, copied value for value. */
function sameColumns(kind: string, table: string, columns: readonly string[]): TableCopy {
  return { kind, source: table, target: table, select: columns.join(', '), columns, values: (row) => columns.map((column) => row[column]) };
}

function documentCopy(kind: DocumentKind): TableCopy {
  const extra = Object.keys(matchedColumns(kind, { id: 0 }));
  return {
    kind,
    source: kind,
    target: kind,
    select: 'seq, account_id, id, doc',
    columns: ['seq', 'account_id', 'id', 'doc', ...extra],
    values: (row) => {
      const columns = matchedColumns(kind, JSON.parse(row['doc'] as string) as ResourceDocument);
      return [row['seq'], row['account_id'], row['id'], row['doc'], ...extra.map((name) => columns[name])];
    },
    sequence: 'seq',
  };
}

/** Plain copies, in an order where what a row refers to is copied before it (not enforced by keys, but kept tidy). */
export const TABLE_COPIES: readonly TableCopy[] = [
  ...DOCUMENT_KINDS.map(documentCopy),
  {
    kind: 'alert subscriptions',
    source: 'alert_subscriptions',
    target: 'alert_subscriptions',
    select: 'account_id, channel_id, owner_kind, owner_id, activated',
    columns: ['account_id', 'channel_id', 'owner_kind', 'owner_id', 'activated'],
    // Written in the source's order, so `seq` keeps each owner's subscriptions in the order written.
    values: (row) => [row['account_id'], row['channel_id'], row['owner_kind'], row['owner_id'], bool(row['activated'])],
  },
  {
    kind: 'status pages',
    source: 'status_pages',
    target: 'status_pages',
    select: 'account_id, id, doc, url, custom_domain',
    columns: ['seq', 'account_id', 'id', 'doc', 'url', 'custom_domain', 'shown_services'],
    // SQLite orders pages by rowid; it becomes `seq`. url and custom_domain are folded as a save folds them.
    values: (row) => {
      const page = JSON.parse(row['doc'] as string) as StatusPageDocument;
      return [row['rowid'], row['account_id'], row['id'], row['doc'], servedName(page['url']), servedName(page['customDomain']), servicesShown(page)];
    },
    overriding: true,
    sequence: 'seq',
  },
  {
    kind: 'status-page subscriptions',
    source: 'status_page_subscriptions',
    target: 'status_page_subscriptions',
    select: 'seq, account_id, status_page_id, id, doc',
    columns: ['seq', 'account_id', 'status_page_id', 'id', 'doc'],
    values: (row) => [row['seq'], row['account_id'], row['status_page_id'], row['id'], row['doc']],
    overriding: true,
    sequence: 'seq',
  },
  {
    kind: 'incidents',
    source: 'incidents',
    target: 'incidents',
    select: 'seq, account_id, id, state',
    columns: ['seq', 'account_id', 'id', 'state', 'last_status'],
    values: (row) => [row['seq'], row['account_id'], row['id'], row['state'], (JSON.parse(row['state'] as string) as { lastUpdateStatus: string }).lastUpdateStatus],
    overriding: true,
    sequence: 'seq',
  },
  sameColumns('incidents opened by checks', 'check_incidents', ['account_id', 'check_id', 'incident_id']),
  {
    kind: 'check statuses',
    source: 'check_statuses',
    target: 'check_statuses',
    select: 'account_id, check_id, doc, state',
    columns: ['account_id', 'check_id', 'doc', 'state'],
    // A status written before SQLite kept the state in a column has none there: it is read off the document.
    values: (row) => [row['account_id'], row['check_id'], row['doc'], row['state'] ?? checkStateOf(JSON.parse(row['doc'] as string) as Parameters<typeof checkStateOf>[0])],
  },
  {
    kind: 'error groups',
    source: 'error_groups',
    target: 'error_groups',
    select: 'seq, account_id, id, check_id, error_hash, state',
    columns: ['seq', 'account_id', 'id', 'check_id', 'error_hash', 'state'],
    values: (row) => [row['seq'], row['account_id'], row['id'], row['check_id'], row['error_hash'], row['state']],
    overriding: true,
    sequence: 'seq',
  },
  sameColumns('alert states', 'alert_states', ['account_id', 'check_id', 'doc', 'version']),
  {
    kind: 'notifications',
    source: 'alert_notifications',
    target: 'alert_notifications',
    select:
      'seq, account_id, id, check_id, alert_channel_id, channel_type, alert_type, delivery, attempts, next_attempt_ms, created_ms, settled_ms, last_error, notification_result, doc, lease_owner, lease_until_ms',
    columns: [
      'seq', 'account_id', 'id', 'check_id', 'alert_channel_id', 'channel_type', 'alert_type', 'delivery', 'attempts',
      'next_attempt_ms', 'created_ms', 'settled_ms', 'last_error', 'notification_result', 'doc', 'lease_owner', 'lease_until_ms',
    ],
    values: (row) => [
      row['seq'], row['account_id'], row['id'], row['check_id'], row['alert_channel_id'], row['channel_type'], row['alert_type'], row['delivery'], row['attempts'],
      row['next_attempt_ms'], row['created_ms'], row['settled_ms'], row['last_error'], row['notification_result'], row['doc'], row['lease_owner'], row['lease_until_ms'],
    ],
    sequence: 'seq',
  },
  sameColumns('certificate alert days', 'ssl_expiry_alerts', ['account_id', 'check_id', 'alert_channel_id', 'day']),
  sameColumns('heartbeat timings', 'heartbeat_timings', ['account_id', 'check_id', 'period_ms', 'grace_ms', 'anchor_ms', 'next_due_ms']),
  sameColumns('heartbeat deadlines', 'heartbeat_deadlines', ['account_id', 'check_id', 'reported_due_ms', 'reported_by', 'lease_until_ms', 'claimed_anchor_ms']),
  {
    kind: 'heartbeat pings',
    source: 'heartbeat_events',
    target: 'heartbeat_events',
    select: 'account_id, id, check_id, at_ms, doc, pending, lease_owner, lease_until_ms',
    columns: ['seq', 'account_id', 'id', 'check_id', 'at_ms', 'doc', 'pending', 'lease_owner', 'lease_until_ms'],
    // SQLite's rowid is the order pings were stored (what claims follow): it becomes `seq`.
    values: (row) => [row['rowid'], row['account_id'], row['id'], row['check_id'], row['at_ms'], row['doc'], bool(row['pending']), row['lease_owner'], row['lease_until_ms']],
    overriding: true,
    sequence: 'seq',
  },
  sameColumns('slot claim marks', 'slot_claims', ['account_id', 'check_id', 'location', 'due_ms', 'claimed_ms', 'prior_due_ms', 'finished_due_ms', 'finished_ms']),
  sameColumns('periodic jobs', 'periodic_jobs', ['name', 'last_run_ms', 'last_owner']),
  {
    kind: 'dashboards',
    source: 'dashboards',
    target: 'dashboards',
    select: 'seq, account_id, id, doc, dashboard_id, custom_url, custom_domain',
    columns: ['seq', 'account_id', 'id', 'doc', 'dashboard_id', 'custom_url', 'custom_domain'],
    // The id is a text column in SQLite's collection layout and a number in PostgreSQL's.
    values: (row) => [row['seq'], row['account_id'], Number(row['id']), row['doc'], row['dashboard_id'], row['custom_url'], row['custom_domain']],
    overriding: true,
    sequence: 'seq',
  },
  sameColumns('project states', 'state_documents', ['account_id', 'project', 'lineage', 'serial', 'doc', 'updated_ms']),
  sameColumns('project state locks', 'state_locks', ['account_id', 'project', 'lock_id', 'info', 'created_ms', 'expires_ms']),
  sameColumns('account profiles', 'account_profiles', ['account_id', 'doc']),
  {
    kind: 'group triggers',
    source: 'check_group_triggers',
    target: 'check_group_triggers',
    // The trigger's public id is in its document; SQLite's `id` column only feeds the id counters (copy.ts).
    select: 'account_id, group_id, doc',
    columns: ['account_id', 'group_id', 'doc'],
    values: (row) => [row['account_id'], row['group_id'], row['doc']],
  },
  {
    kind: 'private locations',
    source: 'private_locations',
    target: 'private_locations',
    select: 'seq, account_id, id, doc',
    columns: ['seq', 'account_id', 'id', 'slug_name', 'doc'],
    values: (row) => [row['seq'], row['account_id'], row['id'], (JSON.parse(row['doc'] as string) as { slugName: string }).slugName, row['doc']],
    overriding: true,
    sequence: 'seq',
  },
  {
    kind: 'private location keys',
    source: 'private_location_keys',
    target: 'private_location_keys',
    select: 'seq, id, account_id, private_location_id, key_digest, masked_key, created_at',
    columns: ['seq', 'id', 'account_id', 'private_location_id', 'key_digest', 'masked_key', 'created_at'],
    values: (row) => [row['seq'], row['id'], row['account_id'], row['private_location_id'], row['key_digest'], row['masked_key'], row['created_at']],
    overriding: true,
    sequence: 'seq',
  },
  {
    kind: 'agent runs',
    source: 'agent_runs',
    target: 'agent_runs',
    select: 'account_id, slot_key, check_id, location, due_ms, job, queued_ms, lease_id, agent_id, lease_expires_ms, handouts, finished_ms, outcome',
    columns: ['account_id', 'slot_key', 'check_id', 'location', 'due_ms', 'job', 'queued_ms', 'lease_id', 'agent_id', 'lease_expires_ms', 'handouts', 'finished_ms', 'outcome'],
    values: (row) => [
      row['account_id'], row['slot_key'], row['check_id'], row['location'], row['due_ms'], row['job'], row['queued_ms'],
      row['lease_id'], row['agent_id'], row['lease_expires_ms'], row['handouts'], row['finished_ms'], row['outcome'],
    ],
  },
  {
    kind: 'subscription form submissions',
    source: 'subscribe_requests',
    target: 'subscribe_requests',
    select: 'seq, at_ms, page_key, address_key, client_key, mailed',
    columns: ['seq', 'at_ms', 'page_key', 'address_key', 'client_key', 'mailed'],
    values: (row) => [row['seq'], row['at_ms'], row['page_key'], row['address_key'], row['client_key'], bool(row['mailed'])],
    overriding: true,
    sequence: 'seq',
  },
  sameColumns('service secrets', 'service_secrets', ['name', 'value']),
  {
    kind: 'service id',
    source: 'service_identity',
    target: 'service_identity',
    // Clients' state names the service by this id (vigil state retarget checks it): it moves with the data.
    select: 'id',
    columns: ['singleton', 'id'],
    values: (row) => [true, row['id']],
  },
];

/**
 * Target tables a PostgreSQL server fills by merely starting (its periodic jobs, the start of its
 * heartbeat monitoring, its slot claims, its id and link-signing secret): they do not make a target
 * "hold data", and the copy replaces them with the source's.
 */
export const SERVICE_BOOKKEEPING_TARGETS = ['periodic_jobs', 'heartbeat_ping_start', 'slot_claims', 'service_identity', 'service_secrets'] as const;

/** Source tables left behind on purpose, and why (the report lists the ones that had rows). */
export const SKIPPED_TABLES: Readonly<Record<string, string>> = {
  migrations: "the SQLite schema's own record; the target has its own",
  idempotency_keys: 'replays of retried requests, kept for minutes',
  rate_windows: 'rate-limit windows, which restart',
  agent_presence: "runner agents' presence, which each agent writes again at its next poll",
  document_changes: 'the change feed replicas follow; the target starts its own',
  document_changes_pruned: 'the change feed replicas follow; the target starts its own',
};

/** Source tables whose rows the copy carries in some other shape (copy.ts and results.ts). */
export const FOLDED_TABLES = [
  'id_counters',
  'id_floors',
  'heartbeat_ping_cursor',
  'status_page_revision',
  'result_series',
  'check_results_locations',
  'check_results_references',
  'check_results',
  'result_rollups_hourly',
  'result_rollups_daily',
  'rollup_horizons',
] as const;
