/**
 * The check a typed read (analytics, a heartbeat's events) is about, looked up through the unit's
 * documents port: another type, or another tenant's check, answers exactly like a missing one.
 */
import { notFound } from '../http/errors.js';
import type { StoredDoc } from '../store/index.js';
import type { TransactionPorts } from '../store/ports.js';

/** Ids the documents port accepts; any other names no check (the port would refuse it as a bug). */
function isCheckId(id: string): boolean {
  return id.length > 0 && id.length <= 255;
}

/** The account's check `id` of `checkType`, or a 404 naming it as `label` ("Heartbeat check", "DNS monitor"). */
export async function checkOfType(tx: TransactionPorts, accountId: string, id: string, checkType: string, label: string): Promise<StoredDoc> {
  const check = isCheckId(id) ? ((await tx.documents.get('checks', accountId, id)) as StoredDoc | undefined) : undefined;
  if (!check || check['checkType'] !== checkType) throw notFound(label, id);
  return check;
}

/** The account's check `id` of any type; undefined when it has none. */
export async function anyCheck(tx: TransactionPorts, accountId: string, id: string): Promise<StoredDoc | undefined> {
  return isCheckId(id) ? ((await tx.documents.get('checks', accountId, id)) as StoredDoc | undefined) : undefined;
}
