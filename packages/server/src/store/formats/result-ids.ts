/**
 * Result ids the store can derive instead of keeping. A derived id is a UUID (version 8, so never
 * equal to a runner's random version 4 one) spelling out where its row is:
 *
 *   tttttttt-tttt-8kkk-8hhh-hhhhhhhhhhhh
 *
 * `t`: the result's `created_at` in epoch ms (48 bits, so ids sort by time like version 7 ones),
 * `k`: which result of that check and millisecond it is (almost always 0), `h`: 60 bits of a hash of
 * the check id, so the same instant of two checks gives two ids. Its row keeps only `k` (an integer
 * that SQLite stores in no bytes for 0 and 1), and a look-up by id is a look-up by (check, time)
 * on the time index: neither a 16-byte column nor an index on ids is needed for it.
 *
 * Results are given derived ids when the service stores a run (result-row-codec.ts `storeRunTries`); ids that
 * are not derived (seeded, imported, stored before) are kept as they are.
 */
import { createHash } from 'node:crypto';

/** More than one result of a check in one millisecond is already rare; 4,096 is what `kkk` holds. */
export const MAX_DISCRIMINATOR = 0xfff;
const DERIVED = /^([0-9a-f]{8})-([0-9a-f]{4})-8([0-9a-f]{3})-8([0-9a-f]{3})-([0-9a-f]{12})$/;
const MAX_MS = 2 ** 48;

const hashes = new Map<string, string>();

/** The 15 hex digits an id of `checkId` ends with (cached: the same checks come back all day). */
function checkHash(checkId: string): string {
  let hash = hashes.get(checkId);
  if (hash === undefined) {
    if (hashes.size >= 100_000) hashes.clear();
    hash = createHash('sha256').update(`vigil check result ${checkId}`).digest('hex').slice(0, 15);
    hashes.set(checkId, hash);
  }
  return hash;
}

/** The derived id of result `k` of `checkId` created at `createdMs`. */
export function derivedResultId(checkId: string, createdMs: number, k: number): string {
  if (!Number.isSafeInteger(createdMs) || createdMs < 0 || createdMs >= MAX_MS || !Number.isInteger(k) || k < 0 || k > MAX_DISCRIMINATOR) {
    throw new Error(`no derived result id for time ${createdMs} and discriminator ${k}; this is a bug in vigil`);
  }
  const time = createdMs.toString(16).padStart(12, '0');
  const hash = checkHash(checkId);
  return `${time.slice(0, 8)}-${time.slice(8)}-8${k.toString(16).padStart(3, '0')}-8${hash.slice(0, 3)}-${hash.slice(3)}`;
}

/** Whether a time can be spelled in a derived id at all (48 bits of epoch ms). */
export function derivableTime(createdMs: number): boolean {
  return Number.isSafeInteger(createdMs) && createdMs >= 0 && createdMs < MAX_MS;
}

/** Where a derived id of `checkId` points, or undefined for any other id (another check's included). */
export function parseDerivedId(checkId: string, id: string): { createdMs: number; k: number } | undefined {
  const match = DERIVED.exec(id);
  if (!match) return undefined;
  const hash = checkHash(checkId);
  if (match[4] !== hash.slice(0, 3) || match[5] !== hash.slice(3)) return undefined;
  return { createdMs: Number.parseInt(match[1]! + match[2]!, 16), k: Number.parseInt(match[3]!, 16) };
}
