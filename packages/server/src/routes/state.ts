/**
 * `/v1/state/{project}`: where `vigil plan`/`apply` keep a project's state on the service it targets
 * (the `service` state backend), so a team shares one state and one lock instead of committing
 * `.vigil/state.json`. The calls are Terraform's http state backend protocol, so the same client code
 * (and tools that already speak it) work against it:
 *
 * - `GET` → 200 with the document as stored, or 404 when there is none.
 * - `POST ?ID=<lock id>` stores a document. While the project is locked, only with the holder's id
 *   (423 otherwise, naming the holder). A document's `lineage` never changes (409) and its `serial`
 *   only grows (409); re-sending the stored document unchanged answers 200, so a retry after a lost
 *   response is harmless.
 * - `LOCK` (or `POST …/lock`) with lock info `{ID, Operation, Info, Who, Version, Created, Path}` →
 *   200 when taken (or already held under that ID), 423 with the holder's lock info when held.
 *   A lock expires `ttlSeconds` after it was taken (the lock info may ask for 1 to 3600 s; default
 *   300) unless its holder renews it by sending LOCK again under its ID. Every lock info the service
 *   answers with carries `ttlSeconds`, `expiresAt` and `expired`, so a waiter can tell a holder that
 *   is still working from one that was killed, on any machine. An expired lock stays held (the
 *   journal it guarded may need finishing): a person breaks it with an UNLOCK.
 * - `UNLOCK` (or `POST …/unlock`) with the lock info of the lock to release → 200; 423 with the
 *   holder's when another id holds it. Breaking a dead client's lock is an UNLOCK with its id, which
 *   the 423 of a LOCK attempt tells.
 * - `DELETE` removes the document (same lock rule as POST).
 *
 * Every call is per account (the API key's), like every other resource. Each write is a unit of work
 * over the project-states port (store/project-state-ports.ts) that first takes the project's turn, so
 * replicas of the service sharing a database decide on one project one after the other, each on what
 * the other committed: they answer the same 409s and 423s one process does.
 */
import type { Context, Hono } from 'hono';
import { readJsonBody } from '../http/body.js';
import { HttpError, badRequest } from '../http/errors.js';
import type { AppEnv } from '../http/types.js';
import type { HeldLock } from '../store/project-state-ports.js';
import type { RouteContext } from './index.js';

export const STATE_PATH_PREFIX = '/v1/state/';
/** State documents grow with the project (about 1.5 kB a resource): room for tens of thousands. */
export const MAX_STATE_BYTES = 64 * 1024 * 1024;
const MAX_LOCK_INFO_BYTES = 64 * 1024;
const MAX_PROJECT_LENGTH = 200;
/** Long enough that a holder renewing every third of it rides out a slow network; short enough that a killed apply's lock reads as stale within minutes. */
export const DEFAULT_LOCK_TTL_SECONDS = 300;
const MAX_LOCK_TTL_SECONDS = 3600;

function projectOf(c: Context<AppEnv>): string {
  const project = c.req.param('project') ?? '';
  // eslint-disable-next-line no-control-regex
  if (project === '' || project.length > MAX_PROJECT_LENGTH || /[\u0000-\u001f\u007f]/.test(project)) {
    throw badRequest(`the project must be 1 to ${MAX_PROJECT_LENGTH} printable characters`, { source: 'params', keys: ['project'] });
  }
  return project;
}

function objectBody(json: unknown, what: string): Record<string, unknown> {
  if (json === null || typeof json !== 'object' || Array.isArray(json)) throw badRequest(`the body must be ${what} (a JSON object)`);
  return json as Record<string, unknown>;
}

/** A lock's info as the client sent it; its `ID` names the lock. */
function lockIdOf(info: Record<string, unknown>): string {
  const id = info['ID'];
  if (typeof id !== 'string' || id === '' || id.length > 200) throw badRequest('"ID" of the lock info must be a string of 1 to 200 characters', { source: 'payload', keys: ['ID'] });
  return id;
}

/** How long a lock lasts without renewal: what its lock info asks for, else the default. */
function ttlSecondsOf(info: Record<string, unknown>): number {
  const ttl = info['ttlSeconds'];
  if (ttl === undefined) return DEFAULT_LOCK_TTL_SECONDS;
  if (typeof ttl !== 'number' || !Number.isSafeInteger(ttl) || ttl < 1 || ttl > MAX_LOCK_TTL_SECONDS) {
    throw badRequest(`"ttlSeconds" of the lock info must be a whole number of seconds from 1 to ${MAX_LOCK_TTL_SECONDS}`, { source: 'payload', keys: ['ttlSeconds'] });
  }
  return ttl;
}

/** The holder's lock info as it sent it, with when the lock lapses unless renewed. */
function lockInfoOfHolder(holder: HeldLock, nowMs: number): string {
  // Stored only after it parsed as an object (lockIdOf), so this cannot fail.
  const info = JSON.parse(holder.info) as Record<string, unknown>;
  const ttlSeconds = ttlSecondsOf(info);
  const expiresMs = holder.expiresMs ?? holder.createdMs + ttlSeconds * 1000;
  return JSON.stringify({ ...info, ttlSeconds, expiresAt: new Date(expiresMs).toISOString(), expired: expiresMs <= nowMs });
}

function locked(c: Context<AppEnv>, holder: HeldLock): Response {
  return c.body(lockInfoOfHolder(holder, Date.now()), 423, { 'content-type': 'application/json' });
}

export function register(app: Hono<AppEnv>, ctx: RouteContext): void {
  const { ports } = ctx.repositories;
  const path = `${STATE_PATH_PREFIX}:project`;

  app.get(path, async (c) => {
    const stored = await ports.projectStates.get(c.get('account').id, projectOf(c));
    if (!stored) throw new HttpError(404, `no state is stored for project "${projectOf(c)}"`);
    return c.body(stored.doc, 200, { 'content-type': 'application/json', 'cache-control': 'no-store' });
  });

  app.post(path, async (c) => {
    const accountId = c.get('account').id;
    const project = projectOf(c);
    const { text, json } = await readJsonBody(c.req.raw, c.env?.incoming, MAX_STATE_BYTES);
    const document = objectBody(json, 'a state document');
    const { lineage, serial } = document;
    if (typeof lineage !== 'string' || lineage === '') throw badRequest('"lineage" must be a non-empty string', { source: 'payload', keys: ['lineage'] });
    if (typeof serial !== 'number' || !Number.isSafeInteger(serial) || serial < 0) throw badRequest('"serial" must be a whole number of at least 0', { source: 'payload', keys: ['serial'] });
    const lockId = c.req.query('ID');
    return ports.transaction(async ({ projectStates }) => {
      await projectStates.takeTurn(accountId, project);
      const holder = await projectStates.held(accountId, project);
      if (holder && holder.lockId !== lockId) return locked(c, holder);
      const stored = await projectStates.get(accountId, project);
      if (stored) {
        if (stored.lineage !== lineage) {
          throw new HttpError(409, `the document's lineage "${lineage}" is not the stored state's "${stored.lineage}": it belongs to another state`);
        }
        if (serial === stored.serial && text === stored.doc) return c.body(null, 200);
        if (serial <= stored.serial) {
          throw new HttpError(409, `the document's serial ${serial} is not newer than the stored state's ${stored.serial}: state moved on since it was read`);
        }
      }
      await projectStates.put(accountId, project, { lineage, serial, doc: text }, Date.now());
      return c.body(null, 200);
    });
  });

  app.delete(path, (c) => {
    const accountId = c.get('account').id;
    const project = projectOf(c);
    const lockId = c.req.query('ID');
    return ports.transaction(async ({ projectStates }) => {
      await projectStates.takeTurn(accountId, project);
      const holder = await projectStates.held(accountId, project);
      if (holder && holder.lockId !== lockId) return locked(c, holder);
      if (!(await projectStates.remove(accountId, project))) throw new HttpError(404, `no state is stored for project "${project}"`);
      return c.body(null, 200);
    });
  });

  const lock = async (c: Context<AppEnv>) => {
    const accountId = c.get('account').id;
    const project = projectOf(c);
    const { text, json } = await readJsonBody(c.req.raw, c.env?.incoming, MAX_LOCK_INFO_BYTES);
    const info = objectBody(json, 'the lock info');
    const lockId = lockIdOf(info);
    const ttlSeconds = ttlSecondsOf(info);
    const nowMs = Date.now();
    const { taken, holder } = await ports.transaction(async ({ projectStates }) => {
      await projectStates.takeTurn(accountId, project);
      return projectStates.lock(accountId, project, { lockId, info: text, nowMs, expiresMs: nowMs + ttlSeconds * 1000 });
    });
    if (taken || holder.lockId === lockId) return c.body(lockInfoOfHolder(holder, nowMs), 200, { 'content-type': 'application/json' });
    return locked(c, holder);
  };
  const unlock = async (c: Context<AppEnv>) => {
    const accountId = c.get('account').id;
    const project = projectOf(c);
    const { json } = await readJsonBody(c.req.raw, c.env?.incoming, MAX_LOCK_INFO_BYTES);
    const lockId = lockIdOf(objectBody(json, 'the lock info'));
    return ports.transaction(async ({ projectStates }) => {
      await projectStates.takeTurn(accountId, project);
      const holder = await projectStates.held(accountId, project);
      if (!holder || (await projectStates.unlock(accountId, project, lockId))) return c.body(null, 200);
      return locked(c, holder);
    });
  };
  app.on('LOCK', path, lock);
  app.on('UNLOCK', path, unlock);
  // For proxies and clients that cannot send methods other than the usual ones.
  app.post(`${path}/lock`, lock);
  app.post(`${path}/unlock`, unlock);
}

/**
 * The calls in `GET /openapi.json` (they are not in the endpoint table, whose methods are the usual
 * ones). OpenAPI has no place for the LOCK and UNLOCK methods, so the document lists their POST
 * forms, which behave the same.
 */
export function stateOpenApiPaths(): Record<string, Record<string, unknown>> {
  const project = { name: 'project', in: 'path', required: true, schema: { type: 'string', minLength: 1, maxLength: MAX_PROJECT_LENGTH }, description: "The project's logical id" };
  const lockId = { name: 'ID', in: 'query', required: false, schema: { type: 'string' }, description: 'The id of the lock the caller holds' };
  const terraformLockInfo = {
    ID: { type: 'string', minLength: 1, maxLength: 200 },
    Operation: { type: 'string' },
    Info: { type: 'string' },
    Who: { type: 'string' },
    Version: { type: 'string' },
    Created: { type: 'string' },
    Path: { type: 'string' },
  };
  const lockInfo = {
    required: true,
    content: {
      'application/json': {
        schema: {
          type: 'object',
          required: ['ID'],
          properties: {
            ...terraformLockInfo,
            ttlSeconds: {
              type: 'integer',
              minimum: 1,
              maximum: MAX_LOCK_TTL_SECONDS,
              default: DEFAULT_LOCK_TTL_SECONDS,
              description: 'Vigil extension: how long the lock lasts unless its holder renews it by sending LOCK again with the same ID',
            },
          },
        },
      },
    },
  };
  const heldLock = {
    type: 'object',
    required: ['ID', 'ttlSeconds', 'expiresAt', 'expired'],
    properties: {
      ...terraformLockInfo,
      ttlSeconds: { type: 'integer', description: 'Vigil extension: how long the lock lasts without renewal' },
      expiresAt: { type: 'string', format: 'date-time', description: 'Vigil extension: when the lock lapses unless its holder renews it' },
      expired: {
        type: 'boolean',
        description: 'Vigil extension: the holder did not renew the lock in time (it was killed or lost the service); the lock stays held until an UNLOCK with its ID breaks it',
      },
    },
  };
  const heldBy = { description: "Locked by another: the body is the holder's lock info", content: { 'application/json': { schema: heldLock } } };
  const error = (description: string) => ({ description, content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorBody' } } } });
  const lockOperation = (summary: string, operationId: string, done: Record<string, unknown>) => ({
    operationId,
    summary,
    tags: ['state'],
    parameters: [project],
    requestBody: lockInfo,
    responses: { 200: done, 400: error('The lock info has no ID, or a ttlSeconds out of range'), 423: heldBy },
  });
  const paths: Record<string, Record<string, unknown>> = {
    [`${STATE_PATH_PREFIX}{project}`]: {
      get: { operationId: 'state.get', summary: "A project's state document (Terraform http backend protocol)", tags: ['state'], parameters: [project], responses: { 200: { description: 'The document as stored', content: { 'application/json': { schema: { type: 'object' } } } }, 404: error('No state is stored') } },
      post: {
        operationId: 'state.put',
        summary: "Stores a project's state document",
        tags: ['state'],
        parameters: [project, lockId],
        requestBody: { required: true, content: { 'application/json': { schema: { type: 'object', required: ['lineage', 'serial'], properties: { lineage: { type: 'string', minLength: 1 }, serial: { type: 'integer', minimum: 0 } } } } } },
        responses: { 200: { description: 'Stored' }, 400: error('Not a state document'), 409: error('Another lineage, or a serial not newer than the stored one'), 413: error(`Larger than ${MAX_STATE_BYTES} bytes`), 423: heldBy },
      },
      delete: { operationId: 'state.delete', summary: "Removes a project's state document", tags: ['state'], parameters: [project, lockId], responses: { 200: { description: 'Removed' }, 404: error('No state is stored'), 423: heldBy } },
    },
    [`${STATE_PATH_PREFIX}{project}/lock`]: {
      post: lockOperation("Locks a project's state, or renews the caller's lock (also as method LOCK on the state's URL)", 'state.lock', {
        description: 'Taken or renewed: the body is the lock info with its expiry',
        content: { 'application/json': { schema: heldLock } },
      }),
    },
    [`${STATE_PATH_PREFIX}{project}/unlock`]: { post: lockOperation("Unlocks a project's state (also as method UNLOCK on the state's URL)", 'state.unlock', { description: 'Unlocked' }) },
  };
  return paths;
}
