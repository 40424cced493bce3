/**
 * The lock-info JSON of Terraform's http backend protocol (`{ID, Operation, Info, Who, Version,
 * Created, Path}`), sent with LOCK and UNLOCK and answered by a server with the holder's when the
 * lock is taken. Vigil puts its own `LockOwner` (pid, host, user, command, createdAt) in `Info`, so a
 * vigil waiting on a lock, or breaking it, can name the process that holds it; a lock taken by
 * another client of the protocol is described from its other fields. A server whose locks expire
 * unless renewed (`vigil server`) adds `ttlSeconds`, `expiresAt` and `expired` to the lock info it
 * answers with; a holder may ask for its `ttlSeconds`.
 */
import { describeOwner } from './lock-file.js';
import type { LockHolder, LockOwner } from './types.js';

export interface TerraformLockInfo {
  ID: string;
  Operation: string;
  Info: string;
  Who: string;
  Version: string;
  Created: string;
  Path: string;
  ttlSeconds?: number;
}

export function lockInfoOf(owner: LockOwner, version: string, ttlSeconds?: number): TerraformLockInfo {
  const { id, ...rest } = owner;
  return {
    ...(ttlSeconds === undefined ? {} : { ttlSeconds }),
    ID: id,
    Operation: owner.command,
    Info: JSON.stringify(rest),
    Who: `${owner.user}@${owner.host}`,
    Version: version,
    Created: owner.createdAt,
    Path: '',
  };
}

/** A holder as a server reported it: its lock ID (needed to unlock it), the JSON to send back, and who it is. */
export interface ReportedHolder extends LockHolder {
  id?: string;
  /** The lock info exactly as the server sent it: UNLOCK with it removes that lock. */
  raw: string;
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** Reads the lock info a server answered a LOCK with (423/409); tolerant, since any server may answer. */
export function parseHolder(body: string): ReportedHolder {
  let info: Record<string, unknown> = {};
  try {
    const parsed: unknown = JSON.parse(body);
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) info = parsed as Record<string, unknown>;
  } catch {
    // Not JSON: the lock is held, by someone the server does not name.
  }
  const id = text(info['ID']);
  const expiry = expiryOf(info);
  const owner = ownerOf(id, text(info['Info']));
  if (owner) return { id: owner.id, raw: body, owner, description: describeOwner(owner), ...expiry };
  const who = text(info['Who']);
  const details = [text(info['Operation']) && `"${text(info['Operation'])}"`, text(info['Created']) && `since ${text(info['Created'])}`, id && `lock ID ${id}`]
    .filter((part): part is string => typeof part === 'string')
    .join(', ');
  const description = who === undefined && details === '' ? 'an unknown holder (the server did not say who)' : `${who ?? 'an unknown holder'}${details === '' ? '' : ` (${details})`}`;
  return { ...(id === undefined ? {} : { id }), raw: body, description, ...expiry };
}

/** How long a server lets a lock live without renewal, from the lock info it answered a LOCK with. */
export function ttlSecondsOf(body: string): number | undefined {
  try {
    const ttl = (JSON.parse(body) as { ttlSeconds?: unknown }).ttlSeconds;
    return typeof ttl === 'number' && Number.isFinite(ttl) && ttl > 0 ? ttl : undefined;
  } catch {
    return undefined;
  }
}

function expiryOf(info: Record<string, unknown>): Pick<ReportedHolder, 'expiresAt' | 'expired'> {
  const expiresAt = text(info['expiresAt']);
  if (expiresAt === undefined || Number.isNaN(Date.parse(expiresAt))) return {};
  // The server's verdict, when it gives one, is free of any skew between its clock and this one's.
  const expired = typeof info['expired'] === 'boolean' ? info['expired'] : Date.parse(expiresAt) <= Date.now();
  return { expiresAt, expired };
}

function ownerOf(id: string | undefined, info: string | undefined): LockOwner | undefined {
  if (id === undefined || info === undefined) return undefined;
  try {
    const parsed = JSON.parse(info) as Partial<LockOwner>;
    if (typeof parsed.pid !== 'number' || typeof parsed.host !== 'string') return undefined;
    return {
      id,
      pid: parsed.pid,
      host: parsed.host,
      user: String(parsed.user ?? 'unknown'),
      command: String(parsed.command ?? 'unknown'),
      createdAt: String(parsed.createdAt ?? 'an unknown time'),
    };
  } catch {
    return undefined;
  }
}
