/**
 * The private-location port (agent-ports.ts) in PostgreSQL (migrations.ts, step 21): locations as
 * their documents with the slug beside them, whose unique constraint refuses a second location of one
 * slug in an account even from a transaction that committed meanwhile; keys as SHA-256 digests.
 */
import { sql, type Kysely } from 'kysely';
import {
  checkDigest,
  checkPrivateLocation,
  checkPrivateLocationKey,
  PrivateLocationSlugTaken,
  type PrivateLocationDocument,
  type PrivateLocationKeyHolder,
  type PrivateLocationKeyRecord,
  type PrivateLocations,
} from '../agent-ports.js';
import { privateLocationKeyOf, type PrivateLocationKeyRow } from '../formats/private-location-key-row.js';
import { positive, text } from '../port-rules.js';
import type { PostgresSchema } from './database.js';

/** On the pool, or on a unit of work's transaction. */
export class PostgresPrivateLocations implements PrivateLocations {
  readonly #db: Kysely<PostgresSchema>;

  constructor(db: Kysely<PostgresSchema>) {
    this.#db = db;
  }

  async insert(accountId: string, location: PrivateLocationDocument): Promise<void> {
    checkPrivateLocation(accountId, location);
    try {
      await sql`
        INSERT INTO private_locations (account_id, id, slug_name, doc)
        VALUES (${accountId}, ${location.id}, ${location.slugName}, ${JSON.stringify(location)})`.execute(this.#db);
    } catch (error) {
      const failure = error as { code?: unknown; constraint?: unknown } | null;
      if (failure?.code === '23505' && failure.constraint === 'private_locations_slug') throw new PrivateLocationSlugTaken(location.slugName);
      throw error;
    }
  }

  async get(accountId: string, id: string): Promise<PrivateLocationDocument | undefined> {
    text('accountId', accountId);
    text('privateLocationId', id, 255);
    const { rows } = await sql<{ doc: string }>`SELECT doc FROM private_locations WHERE account_id = ${accountId} AND id = ${id}`.execute(this.#db);
    return rows[0] === undefined ? undefined : (JSON.parse(rows[0].doc) as PrivateLocationDocument);
  }

  async page(accountId: string, paging: { limit: number; page: number }): Promise<{ items: PrivateLocationDocument[]; total: number }> {
    text('accountId', accountId);
    positive('limit', paging.limit);
    positive('page', paging.page);
    const offset = (paging.page - 1) * paging.limit;
    const { rows } = await sql<{ doc: string | null; total: string }>`
      SELECT page.doc, counted.total FROM (SELECT count(*) AS total FROM private_locations WHERE account_id = ${accountId}) AS counted
      LEFT JOIN LATERAL (
        SELECT doc, seq FROM private_locations WHERE account_id = ${accountId} ORDER BY seq LIMIT ${paging.limit} OFFSET ${offset}
      ) AS page ON true
      ORDER BY page.seq`.execute(this.#db);
    return { items: rows.flatMap((row) => (row.doc === null ? [] : [JSON.parse(row.doc) as PrivateLocationDocument])), total: Number(rows[0]?.total ?? 0) };
  }

  async replace(accountId: string, location: PrivateLocationDocument): Promise<boolean> {
    checkPrivateLocation(accountId, location);
    const result = await sql`
      UPDATE private_locations SET doc = ${JSON.stringify(location)}, slug_name = ${location.slugName}
      WHERE account_id = ${accountId} AND id = ${location.id}`.execute(this.#db);
    return Number(result.numAffectedRows ?? 0) > 0;
  }

  async remove(accountId: string, id: string): Promise<string[] | undefined> {
    text('accountId', accountId);
    text('privateLocationId', id, 255);
    // One statement, so the keys go with the location in any transaction, a unit's or none.
    const { rows } = await sql<{ removed: string; keys: string[] | null }>`
      WITH location AS (DELETE FROM private_locations WHERE account_id = ${accountId} AND id = ${id} RETURNING 1)
      , keys AS (
        DELETE FROM private_location_keys WHERE account_id = ${accountId} AND private_location_id = ${id} AND EXISTS (SELECT 1 FROM location)
        RETURNING id, seq
      )
      SELECT (SELECT count(*) FROM location) AS removed, (SELECT array_agg(id ORDER BY seq) FROM keys) AS keys`.execute(this.#db);
    return Number(rows[0]?.removed ?? 0) > 0 ? (rows[0]?.keys ?? []) : undefined;
  }

  async addKey(accountId: string, key: PrivateLocationKeyRecord, digest: Uint8Array): Promise<void> {
    checkPrivateLocationKey(accountId, key, digest);
    await sql`
      INSERT INTO private_location_keys (id, account_id, private_location_id, key_digest, masked_key, created_at)
      VALUES (${key.id}, ${accountId}, ${key.privateLocationId}, ${Buffer.from(digest)}, ${key.maskedKey}, ${key.createdAt})`.execute(this.#db);
  }

  async keysOf(accountId: string, privateLocationId: string): Promise<PrivateLocationKeyRecord[]> {
    text('accountId', accountId);
    text('privateLocationId', privateLocationId, 255);
    const { rows } = await sql<PrivateLocationKeyRow>`
      SELECT id, private_location_id, masked_key, created_at FROM private_location_keys
      WHERE account_id = ${accountId} AND private_location_id = ${privateLocationId} ORDER BY seq`.execute(this.#db);
    return rows.map(privateLocationKeyOf);
  }

  async removeKey(accountId: string, privateLocationId: string, keyId: string): Promise<boolean> {
    text('accountId', accountId);
    text('privateLocationId', privateLocationId, 255);
    text('keyId', keyId, 255);
    const result = await sql`
      DELETE FROM private_location_keys WHERE account_id = ${accountId} AND private_location_id = ${privateLocationId} AND id = ${keyId}`.execute(this.#db);
    return Number(result.numAffectedRows ?? 0) > 0;
  }

  async keyHolder(digest: Uint8Array): Promise<PrivateLocationKeyHolder | undefined> {
    checkDigest(digest);
    const { rows } = await sql<PrivateLocationKeyHolder>`
      SELECT key.id AS "keyId", key.account_id AS "accountId", key.private_location_id AS "privateLocationId", location.slug_name AS "slugName"
      FROM private_location_keys AS key
      JOIN private_locations AS location ON location.account_id = key.account_id AND location.id = key.private_location_id
      WHERE key.key_digest = ${Buffer.from(digest)}`.execute(this.#db);
    const row = rows[0];
    return row === undefined ? undefined : { accountId: row.accountId, privateLocationId: row.privateLocationId, keyId: row.keyId, slugName: row.slugName };
  }
}
