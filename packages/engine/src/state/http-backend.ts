/**
 * The `http` backend: state on a server speaking Terraform's http backend protocol, so a team shares
 * one state and one lock from every checkout and CI job. GET reads the document (404 or 204: none
 * yet); LOCK takes the lock with a lock-info body (200 taken; 423 or 409 with the holder's lock info
 * when held); the update method (POST) writes the whole document to `address?ID=<lock id>`; UNLOCK
 * releases; DELETE removes the document. The rules on lineage and serial are the local backend's
 * (document.ts); the server may enforce them too (409), and the lock ID lets it refuse a writer
 * whose lock was broken.
 *
 * A server whose locks expire unless renewed (the service backend's `vigil server` says so with
 * `ttlSeconds` in the lock info it answers) gets the same LOCK again every third of that time while
 * the lock is held. A waiter names when the holder's lock expires, and reports an expired one as
 * stale: a vigil that still ran would have renewed it, wherever it runs.
 */
import { randomUUID } from 'node:crypto';
import { hostname, userInfo } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseStateDocument, serialForWrite, serializeState } from './document.js';
import { StateError } from './errors.js';
import { lockInfoOf, parseHolder, ttlSecondsOf, type ReportedHolder } from './http-lock-info.js';
import { createHttpTransport, describeReply, displayAddress, type HttpReply, type HttpStateCredentials } from './http-transport.js';
import { isDeadOnThisHost } from './lock-file.js';
import { lockedError } from './lock-wait.js';
import type { LockHolder, LockOptions, LockOwner, StateBackend, StateDocument, StateLock, StateWriteOptions } from './types.js';
import { inTurn } from './in-turn.js';

export interface HttpBackendOptions {
  /** The document's URL: GET, the update method and DELETE go there. */
  address: string;
  /** Where LOCK goes; default `address`. */
  lockAddress?: string;
  /** Where UNLOCK goes; default `lockAddress`, else `address`. */
  unlockAddress?: string;
  lockMethod?: string;
  unlockMethod?: string;
  updateMethod?: string;
  /** From the environment, never from the config file: they must not end up in a repository. */
  credentials?: HttpStateCredentials;
  /** Retries of a request that failed on the network or with a 5xx/429 (default 2, as Terraform). */
  retryMax?: number;
  retryWaitMinMs?: number;
  retryWaitMaxMs?: number;
  /** Sent with every request. */
  headers?: Record<string, string>;
  /** The command that breaks the lock, quoted in lock errors. */
  unlockCommand?: string;
  /** Recorded in the lock info's `Version`. */
  version?: string;
  /** The first wait between two LOCK attempts while the lock is held (ms); it doubles up to 2 s. */
  pollMs?: number;
  /** Asks a server whose locks expire to let this one live that long without renewal (default: the server's choice). */
  lockTtlSeconds?: number;
}

const MAX_POLL_MS = 2000;
/** Renewals come this many times per TTL, so one or two lost on the way do not let the lock lapse. */
const RENEWALS_PER_TTL = 3;

function currentUser(): string {
  try {
    return userInfo().username;
  } catch {
    return process.env['USER'] ?? 'unknown';
  }
}

function withoutCredentials(address: string, field: string): URL {
  let url: URL;
  try {
    url = new URL(address);
  } catch {
    throw new StateError('state-io', `the http state ${field} is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new StateError('state-io', `the http state ${field} ${displayAddress(url)} is not an http(s) URL`);
  // Credentials come from the environment; a URL's user info would also be refused by fetch.
  url.username = '';
  url.password = '';
  return url;
}

const ok = (status: number) => status >= 200 && status < 300;

export function createHttpBackend(options: HttpBackendOptions): StateBackend {
  const address = withoutCredentials(options.address, 'address');
  const lockAddress = withoutCredentials(options.lockAddress ?? options.address, 'lockAddress');
  const unlockAddress = withoutCredentials(options.unlockAddress ?? options.lockAddress ?? options.address, 'unlockAddress');
  const lockMethod = options.lockMethod ?? 'LOCK';
  const unlockMethod = options.unlockMethod ?? 'UNLOCK';
  const updateMethod = options.updateMethod ?? 'POST';
  const location = `http state at ${displayAddress(address)}`;
  const unlockCommand = options.unlockCommand ?? 'vigil state unlock --force';
  const version = options.version ?? 'vigil';
  const transport = createHttpTransport({
    credentials: options.credentials ?? {},
    retryMax: options.retryMax ?? 2,
    retryWaitMinMs: options.retryWaitMinMs ?? 1000,
    retryWaitMaxMs: options.retryWaitMaxMs ?? 30_000,
    ...(options.headers === undefined ? {} : { headers: options.headers }),
    userAgent: `vigil/${version}`,
  });
  const { redact } = transport;

  function failure(doing: string, method: string, reply: HttpReply): StateError {
    const credentials = reply.status === 401 || reply.status === 403 ? ' (check VIGIL_STATE_HTTP_USERNAME / VIGIL_STATE_HTTP_PASSWORD or VIGIL_STATE_HTTP_TOKEN, or the API key for the service backend)' : '';
    return new StateError('state-io', `cannot ${doing} ${location}: ${method} answered ${describeReply(reply, redact)}${credentials}`);
  }

  function withId(url: URL, id: string): URL {
    const copy = new URL(url);
    copy.searchParams.set('ID', id);
    return copy;
  }

  async function read(): Promise<StateDocument | undefined> {
    const reply = await transport.request('GET', address);
    if (reply.status === 404 || reply.status === 204) return undefined;
    if (!ok(reply.status)) throw failure('read', 'GET', reply);
    // Terraform's servers answer an empty 200 for a state never written.
    if (reply.text.trim() === '') return undefined;
    return parseStateDocument(reply.text, location);
  }

  /** One LOCK: taken, or held by the holder the server names. */
  const ownLockInfo = (owner: LockOwner) => JSON.stringify(lockInfoOf(owner, version, options.lockTtlSeconds));

  /** One LOCK: taken (with how long the server keeps it without renewal, if it says), or held by the holder the server names. */
  async function tryLock(owner: LockOwner): Promise<{ taken: true; ttlSeconds?: number | undefined } | { taken: false; holder: ReportedHolder }> {
    const reply = await transport.request(lockMethod, lockAddress, ownLockInfo(owner));
    if (ok(reply.status)) return { taken: true, ttlSeconds: ttlSecondsOf(reply.text) };
    if (reply.status === 423 || reply.status === 409) {
      const holder = parseHolder(reply.text);
      // A retried LOCK whose first answer was lost finds the lock held by itself.
      if (holder.id === owner.id) return { taken: true, ttlSeconds: ttlSecondsOf(reply.text) };
      return { taken: false, holder };
    }
    throw failure('lock', lockMethod, reply);
  }

  async function unlockWith(body: string): Promise<HttpReply> {
    return transport.request(unlockMethod, unlockAddress, body);
  }

  const waitOptions = (timeoutMs: number) => ({ location, unlockCommand, timeoutMs });

  function newOwner(command: string): LockOwner {
    return { id: randomUUID(), pid: process.pid, host: hostname(), user: currentUser(), command, createdAt: new Date().toISOString() };
  }

  async function lock(lockOptions: LockOptions): Promise<StateLock> {
    const owner = newOwner(lockOptions.command);
    const deadline = Date.now() + lockOptions.timeoutMs;
    let pollMs = options.pollMs ?? 250;
    // What the waiter was last told: who holds the lock, and whether it had expired.
    let announced: { id: string | undefined; expired: boolean } | undefined;
    let ttlSeconds: number | undefined;
    for (;;) {
      const attempt = await tryLock(owner);
      if (attempt.taken) {
        ttlSeconds = attempt.ttlSeconds;
        break;
      }
      const remaining = deadline - Date.now();
      const dead = attempt.holder.owner !== undefined && isDeadOnThisHost(attempt.holder.owner);
      const expired = attempt.holder.expired === true;
      // An expired lock is waited for only when asked to: its holder may yet come back and renew it.
      if (dead) throw lockedError(waitOptions(lockOptions.timeoutMs), attempt.holder);
      // Told once (unless it is not waiting at all), and again when the lock it waits for lapses, even
      // when the poll that sees the lapse is also the one its wait runs out at: the waiter can act on it.
      const lapsed = announced !== undefined && expired && !(announced.id === attempt.holder.id && announced.expired);
      if ((announced === undefined && remaining > 0) || lapsed) {
        announced = { id: attempt.holder.id, expired };
        const { raw: _raw, id: _id, ...holder } = attempt.holder;
        lockOptions.onWait?.(holder);
      }
      if (remaining <= 0) throw lockedError(waitOptions(lockOptions.timeoutMs), attempt.holder);
      // Jitter keeps two waiters from asking in lockstep; the doubling spares the server.
      await sleep(Math.min(remaining, pollMs * (0.5 + Math.random())));
      pollMs = Math.min(MAX_POLL_MS, pollMs * 2);
    }
    try {
      return createLock(owner, await read(), ttlSeconds);
    } catch (error) {
      await unlockWith(ownLockInfo(owner)).catch(() => undefined);
      throw error;
    }
  }

  function createLock(owner: LockOwner, stored: StateDocument | undefined, ttlSeconds: number | undefined): StateLock {
    let serial = stored?.serial ?? 0;
    let lineage = stored?.lineage;
    let released = false;
    // One request at a time, in call order, so the last write called is the one stored.
    const run = inTurn();
    const renewal = ttlSeconds === undefined ? undefined : renewWhileHeld(owner, ttlSeconds);

    async function writeNow(document: StateDocument, writeOptions: StateWriteOptions = {}): Promise<void> {
      if (released) throw new Error('this is a bug in vigil: state written after its lock was released');
      const taken = renewal?.lostTo();
      if (taken !== undefined) throw lostLock(taken.description);
      const next = { ...document, serial: serialForWrite({ lineage, serial }, document, { ...writeOptions, location }) };
      if (writeOptions.force && lineage !== undefined && next.lineage !== lineage) {
        // A server refuses a document of another lineage (409): a forced replacement removes the old one first.
        const removed = await transport.request('DELETE', withId(address, owner.id));
        if (!ok(removed.status) && removed.status !== 404) throw failure('replace', 'DELETE', removed);
      }
      const reply = await transport.request(updateMethod, withId(address, owner.id), `${serializeState(next)}\n`);
      if (reply.status === 423) throw lostLock(parseHolder(reply.text).description);
      if (reply.status === 409) {
        throw new StateError(
          'state-lineage-mismatch',
          `${location} refused the write of serial ${next.serial} (lineage ${next.lineage}): ${describeReply(reply, redact)}. ` +
            'It holds a document of another lineage or a newer serial: someone else wrote it, or it belongs to another project.',
        );
      }
      if (!ok(reply.status)) throw failure('write', updateMethod, reply);
      serial = next.serial;
      lineage = next.lineage;
    }

    return {
      get serial() {
        return serial;
      },
      // Each write sends the whole document: the protocol has no way to append journal steps.
      canAppendSteps: false,
      write(document, writeOptions) {
        return run(() => writeNow(document, writeOptions));
      },
      async release() {
        if (released) return;
        released = true;
        await run.settled();
        // A renewal arriving after the UNLOCK would take the lock again.
        await renewal?.stop();
        const reply = await unlockWith(ownLockInfo(owner));
        // 409/423: the lock was broken and is someone else's now; theirs is left alone.
        if (!ok(reply.status) && reply.status !== 404 && reply.status !== 409 && reply.status !== 423) throw failure('unlock', unlockMethod, reply);
      },
    };
  }

  function lostLock(holder: string): StateError {
    return new StateError(
      'state-locked',
      `lost the lock on state ${location}: the server says it is held by ${holder} (it was broken, e.g. by vigil state unlock --force); not writing, so whoever holds it now is not overwritten`,
    );
  }

  /**
   * Sends the same LOCK again every third of the TTL until stopped. A renewal the server refuses
   * (someone broke the lock and took it) is kept, for the next write to refuse; one lost on the
   * network is left to the next.
   */
  function renewWhileHeld(owner: LockOwner, ttlSeconds: number): { lostTo(): ReportedHolder | undefined; stop(): Promise<void> } {
    let lostTo: ReportedHolder | undefined;
    let inFlight: Promise<void> = Promise.resolve();
    let timer: NodeJS.Timeout | undefined;
    let stopped = false;
    const schedule = () => {
      if (stopped) return;
      timer = setTimeout(() => {
        inFlight = tryLock(owner).then(
          (attempt) => {
            if (attempt.taken) schedule();
            else lostTo = attempt.holder;
          },
          () => schedule(),
        );
      }, (ttlSeconds * 1000) / RENEWALS_PER_TTL);
      // The renewals keep the lock, not the process: a command that is done exits.
      timer.unref();
    };
    schedule();
    return {
      lostTo: () => lostTo,
      async stop() {
        stopped = true;
        clearTimeout(timer);
        await inFlight;
      },
    };
  }

  /**
   * The protocol has no call that reads a lock: a LOCK attempt learns it. When it succeeds nobody
   * held the lock, and it is released again at once.
   */
  async function probe(): Promise<ReportedHolder | undefined> {
    const owner = newOwner('vigil state unlock (checking who holds the lock)');
    const attempt = await tryLock(owner);
    if (!attempt.taken) return attempt.holder;
    const reply = await unlockWith(ownLockInfo(owner));
    if (!ok(reply.status)) throw failure('unlock', unlockMethod, reply);
    return undefined;
  }

  const expiryOf = (holder: ReportedHolder) => (holder.expiresAt === undefined ? {} : { expiresAt: holder.expiresAt, expired: holder.expired === true });

  return {
    describe: () => location,
    read,
    lock,
    async lockHolder(): Promise<LockHolder | undefined> {
      const holder = await probe();
      if (holder === undefined) return undefined;
      return { ...(holder.owner ? { owner: holder.owner } : {}), description: holder.description, ...expiryOf(holder) };
    },
    async forceUnlock(unlockOptions) {
      const holder = await probe();
      if (holder === undefined) return { removed: false };
      const found = { ...(holder.owner ? { owner: holder.owner } : {}), holder: holder.description, ...expiryOf(holder) };
      if (unlockOptions?.onlyExpired && holder.expired !== true) return { removed: false, ...found, expired: false };
      if (holder.id === undefined) {
        throw new StateError('state-io', `${location} is locked by ${holder.description}, but the server did not send the lock's ID, so vigil cannot unlock it; remove the lock on the server`);
      }
      // UNLOCK with the holder's own lock info is what its owner would send.
      const reply = await unlockWith(holder.raw);
      if (!ok(reply.status)) throw failure('unlock', unlockMethod, reply);
      return { removed: true, ...found };
    },
  };
}
