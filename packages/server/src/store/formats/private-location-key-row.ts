/**
 * A private location's key as both engines' `private_location_keys` tables return it (the same
 * columns on each), and the record the port answers with: one mapping, so the engines cannot drift.
 */
import type { PrivateLocationKeyRecord } from '../agent-ports.js';

export interface PrivateLocationKeyRow {
  id: string;
  private_location_id: string;
  masked_key: string;
  created_at: string;
}

export function privateLocationKeyOf(row: PrivateLocationKeyRow): PrivateLocationKeyRecord {
  return { id: row.id, privateLocationId: row.private_location_id, maskedKey: row.masked_key, createdAt: row.created_at };
}
