/**
 * The `s3` backend: the state document as one object in an S3 bucket (AWS, or an S3-compatible store
 * at `endpoint`), locked the way Terraform's S3 backend locks without DynamoDB: the lock is an object
 * `<key>.lock` created with `If-None-Match: *`, which S3 refuses (412) while it exists, holding
 * Terraform's lock info with vigil's owner in it. The document is written with `If-Match` on the ETag
 * vigil read or last wrote (`If-None-Match: *` for the first write), so a writer that did not take
 * the lock, or whose lock was broken, is refused instead of overwriting someone else's write.
 *
 * Each write sends the whole document (S3 has no append), as the http backend does; the apply
 * journal is in the document. The store must implement conditional writes: AWS S3 does since 2024;
 * a store that ignores the headers would let two holders in, which `lock()` partly catches by reading
 * the lock back.
 */
import { randomUUID } from 'node:crypto';
import { hostname, userInfo } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseStateDocument, serialForWrite, serializeState } from './document.js';
import { StateError } from './errors.js';
import { lockInfoOf, parseHolder } from './http-lock-info.js';
import { waitForLock, type LockAttempt } from './lock-wait.js';
import { encodeRfc3986, signRequest, type AwsCredentials } from './s3-signing.js';
import type { LockOptions, LockOwner, StateBackend, StateDocument, StateLock, StateWriteOptions } from './types.js';
import { inTurn } from './in-turn.js';

export interface S3BackendOptions {
  bucket: string;
  key: string;
  region: string;
  /** An S3-compatible endpoint, addressed path-style (`<endpoint>/<bucket>/<key>`); default AWS, virtual-hosted. */
  endpoint?: string;
  credentials: AwsCredentials;
  unlockCommand?: string;
  version?: string;
  pollMs?: number;
  /** Retries of a request that failed on the network or with a 5xx/429 (default 2). */
  retryMax?: number;
}

interface S3Reply {
  status: number;
  text: string;
  etag: string | undefined;
}

function currentUser(): string {
  try {
    return userInfo().username;
  } catch {
    return process.env['USER'] ?? 'unknown';
  }
}

/** `403: AccessDenied (Access Denied)` from S3's XML error body, escaped onto one line. */
function describeS3Reply(reply: S3Reply): string {
  const code = /<Code>([^<]*)<\/Code>/.exec(reply.text)?.[1];
  const message = /<Message>([^<]*)<\/Message>/.exec(reply.text)?.[1];
  const detail = code === undefined ? reply.text.trim().slice(0, 200) : `${code}${message ? ` (${message})` : ''}`;
  const safe = Array.from(detail.replace(/\s+/g, ' '), (char) => (char.codePointAt(0)! < 32 || char.codePointAt(0) === 127 ? '?' : char)).join('');
  return `${reply.status}${safe === '' ? '' : `: ${safe}`}`;
}

export function createS3Backend(options: S3BackendOptions): StateBackend {
  const encodedKey = options.key.split('/').map(encodeRfc3986).join('/');
  const objectUrl = (suffix: string) => {
    if (options.endpoint !== undefined) return new URL(`${options.endpoint.replace(/\/+$/, '')}/${options.bucket}/${encodedKey}${suffix}`);
    return new URL(`https://${options.bucket}.s3.${options.region}.amazonaws.com/${encodedKey}${suffix}`);
  };
  const stateUrl = objectUrl('');
  const lockUrl = objectUrl(encodeRfc3986('.lock'));
  const location = `s3 state s3://${options.bucket}/${options.key}${options.endpoint === undefined ? '' : ` at ${new URL(options.endpoint).origin}`}`;
  const unlockCommand = options.unlockCommand ?? 'vigil state unlock --force';
  const version = options.version ?? 'vigil';
  const retryMax = options.retryMax ?? 2;
  const secrets = [options.credentials.secretAccessKey, options.credentials.sessionToken].filter((secret): secret is string => !!secret);
  const redact = (text: string) => secrets.reduce((result, secret) => result.split(secret).join('(redacted)'), text);

  async function request(method: string, url: URL, headers: Record<string, string> = {}, body?: string): Promise<S3Reply> {
    for (let attempt = 0; ; attempt += 1) {
      const signed = signRequest({ method, url, headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) }, ...(body === undefined ? {} : { body }), credentials: options.credentials, region: options.region, now: new Date() });
      let reply: S3Reply;
      try {
        const response = await fetch(url, { method, headers: signed, ...(body === undefined ? {} : { body }), redirect: 'error' });
        reply = { status: response.status, text: await response.text(), etag: response.headers.get('etag') ?? undefined };
      } catch (error) {
        if (attempt >= retryMax) {
          const cause = error instanceof Error ? ((error.cause as Error | undefined)?.message ?? error.message) : String(error);
          throw new StateError('state-io', redact(`cannot reach ${location}: ${method} ${url.origin}${url.pathname} failed (${cause})`), { cause: error });
        }
        await sleep(200 * 2 ** attempt);
        continue;
      }
      if (attempt >= retryMax || (reply.status < 500 && reply.status !== 429)) return reply;
      await sleep(200 * 2 ** attempt);
    }
  }

  function failure(doing: string, method: string, reply: S3Reply): StateError {
    const credentials = reply.status === 403 ? ' (check AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN, and the bucket policy)' : '';
    const unsupported = reply.status === 501 ? ' (this store does not implement conditional writes, which the s3 backend needs for its lock)' : '';
    return new StateError('state-io', redact(`cannot ${doing} ${location}: ${method} answered ${describeS3Reply(reply)}${credentials}${unsupported}`));
  }

  async function readObject(): Promise<{ document: StateDocument | undefined; etag: string | undefined }> {
    const reply = await request('GET', stateUrl);
    if (reply.status === 404) return { document: undefined, etag: undefined };
    if (reply.status !== 200) throw failure('read', 'GET', reply);
    return { document: parseStateDocument(reply.text, location), etag: reply.etag };
  }

  async function readLock(): Promise<{ text: string; etag: string | undefined } | undefined> {
    const reply = await request('GET', lockUrl);
    if (reply.status === 404) return undefined;
    if (reply.status !== 200) throw failure('read the lock of', 'GET', reply);
    return { text: reply.text, etag: reply.etag };
  }

  function newOwner(command: string): LockOwner {
    return { id: randomUUID(), pid: process.pid, host: hostname(), user: currentUser(), command, createdAt: new Date().toISOString() };
  }

  async function tryLock(owner: LockOwner): Promise<LockAttempt<string | undefined>> {
    const body = JSON.stringify(lockInfoOf(owner, version));
    const reply = await request('PUT', lockUrl, { 'if-none-match': '*' }, body);
    // 409: AWS's answer to a conditional write racing another one on the same key; the lock is someone's.
    if (reply.status !== 200 && reply.status !== 412 && reply.status !== 409) throw failure('lock', 'PUT', reply);
    const current = await readLock();
    if (current === undefined) return { taken: false };
    const holder = parseHolder(current.text);
    // Ours: taken now, or by a retried PUT whose first answer was lost.
    if (holder.id === owner.id) return { taken: true, value: current.etag };
    if (reply.status === 200) {
      throw new StateError(
        'state-io',
        `${location}: the store accepted the lock object but then showed ${holder.description} in it, so it does not honour If-None-Match on PUT and cannot lock this state`,
      );
    }
    return { taken: false, holder: { ...(holder.owner ? { owner: holder.owner } : {}), description: holder.description } };
  }

  async function releaseLock(owner: LockOwner, lockEtag: string | undefined): Promise<void> {
    const current = await readLock();
    if (current === undefined || parseHolder(current.text).id !== owner.id) return; // broken and maybe retaken: not ours to remove
    const reply = await request('DELETE', lockUrl, lockEtag === undefined ? {} : { 'if-match': lockEtag });
    if (reply.status !== 204 && reply.status !== 200 && reply.status !== 404 && reply.status !== 412) throw failure('unlock', 'DELETE', reply);
  }

  async function lock(lockOptions: LockOptions): Promise<StateLock> {
    const owner = newOwner(lockOptions.command);
    const lockEtag = await waitForLock({ ...lockOptions, location, unlockCommand, ...(options.pollMs === undefined ? {} : { pollMs: options.pollMs }), attempt: () => tryLock(owner) });
    try {
      const stored = await readObject();
      return createLock(owner, lockEtag, stored);
    } catch (error) {
      await releaseLock(owner, lockEtag).catch(() => undefined);
      throw error;
    }
  }

  function createLock(owner: LockOwner, lockEtag: string | undefined, stored: { document: StateDocument | undefined; etag: string | undefined }): StateLock {
    let serial = stored.document?.serial ?? 0;
    let lineage = stored.document?.lineage;
    let etag = stored.etag;
    let released = false;
    const run = inTurn();

    async function assertStillLocked(): Promise<void> {
      const current = await readLock();
      if (current === undefined || parseHolder(current.text).id !== owner.id) {
        const now = current === undefined ? 'nobody holds it now' : `it is held by ${parseHolder(current.text).description} now`;
        throw new StateError(
          'state-locked',
          `lost the lock on state ${location} (${now}; it was broken, e.g. by vigil state unlock --force); not writing, so whoever holds it now is not overwritten`,
        );
      }
    }

    async function writeNow(document: StateDocument, writeOptions: StateWriteOptions = {}): Promise<void> {
      if (released) throw new Error('this is a bug in vigil: state written after its lock was released');
      const next = { ...document, serial: serialForWrite({ lineage, serial }, document, { ...writeOptions, location }) };
      await assertStillLocked();
      const text = `${serializeState(next)}\n`;
      const reply = await request('PUT', stateUrl, etag === undefined ? { 'if-none-match': '*' } : { 'if-match': etag }, text);
      if (reply.status === 412 || reply.status === 409) {
        // A retried PUT whose first answer was lost finds its own document there.
        const now = await request('GET', stateUrl);
        if (now.status === 200 && now.text === text) {
          etag = now.etag;
        } else {
          throw new StateError(
            'state-serial-stale',
            `refusing to write state ${location}: it changed since this lock read it (${etag === undefined ? 'it did not exist' : `ETag ${etag}`}), so something wrote it without the lock; not overwriting it`,
          );
        }
      } else if (reply.status !== 200) {
        throw failure('write', 'PUT', reply);
      } else {
        etag = reply.etag ?? (await request('HEAD', stateUrl)).etag;
      }
      serial = next.serial;
      lineage = next.lineage;
    }

    return {
      get serial() {
        return serial;
      },
      canAppendSteps: false,
      write(document, writeOptions) {
        return run(() => writeNow(document, writeOptions));
      },
      async release() {
        if (released) return;
        released = true;
        await run.settled();
        await releaseLock(owner, lockEtag);
      },
    };
  }

  return {
    describe: () => location,
    read: async () => (await readObject()).document,
    lock,
    async lockHolder() {
      const current = await readLock();
      if (current === undefined) return undefined;
      const holder = parseHolder(current.text);
      return { ...(holder.owner ? { owner: holder.owner } : {}), description: holder.description };
    },
    async forceUnlock(options) {
      // Its locks never expire: only an explicit --force removes one.
      if (options?.onlyExpired) return { removed: false };
      const current = await readLock();
      if (current === undefined) return { removed: false };
      const reply = await request('DELETE', lockUrl);
      if (reply.status !== 204 && reply.status !== 200 && reply.status !== 404) throw failure('unlock', 'DELETE', reply);
      const holder = parseHolder(current.text);
      return { removed: true, ...(holder.owner ? { owner: holder.owner } : {}), holder: holder.description };
    },
  };
}
