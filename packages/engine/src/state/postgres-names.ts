/**
 * The names the postgres state backend uses: the table of a project, its advisory-lock key, and the
 * connection string as messages show it (without its password or query).
 */
import { createHash } from 'node:crypto';
import { StateError } from './errors.js';

/**
 * The table of a project's state: `vigil_state_` and the logical id, when the id is already a plain
 * lower-case identifier of at most 40 characters (`shop` → `vigil_state_shop`). Otherwise its
 * letters are lower-cased, every other character becomes `_`, it is cut at 40 characters and the
 * first 8 hex digits of the SHA-256 of the exact id are appended (`Shop/EU` →
 * `vigil_state_shop_eu_<hash>`), so two ids never share a table and the name stays within
 * PostgreSQL's 63 bytes. The name is always quoted where it is used.
 */
export function stateTableName(workspace: string): string {
  const slug = workspace.toLowerCase().replace(/[^a-z0-9_]/g, '_');
  if (slug === workspace && slug.length <= 40) return `vigil_state_${slug}`;
  const hash = createHash('sha256').update(workspace, 'utf8').digest('hex').slice(0, 8);
  return `vigil_state_${slug.slice(0, 40)}_${hash}`;
}

/** The second advisory-lock key: 31 bits of the table name's hash (a collision only makes two projects take turns). */
export function advisoryKey(table: string): number {
  return createHash('sha256').update(`vigil-state:${table}`, 'utf8').digest().readUInt32BE(0) & 0x7fffffff;
}

/** `postgres://user@host:port/database`: what messages show of a connection string. */
export function displayConnectionString(connectionString: string): string {
  let url: URL;
  try {
    url = new URL(connectionString);
  } catch {
    throw new StateError('state-io', 'the postgres state connection string is not a URL (postgres://user@host:5432/database)');
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') throw new StateError('state-io', 'the postgres state connection string must start with postgres://');
  const user = url.username === '' ? '' : `${url.username}@`;
  return `postgres://${user}${url.host}${url.pathname}`;
}

export function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}
