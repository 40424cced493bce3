/**
 * The http state backend against a real `vigil server`, whose state locks expire unless renewed: a
 * holder renews its lock for as long as it holds it, so a waiter is never told a working holder is
 * stale; a lock nobody renews is reported stale with when it expired (at once, or to a waiter while
 * it waits); and only an expired lock is removed by an unlock limited to expired ones.
 */
import { randomUUID } from 'node:crypto';
import { createHttpBackend, emptyState, isStateError, type LockHolder } from '@vigil/engine';
import { startServer, type RunningServer } from '@vigil/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../support/cli.js';

const API_KEY = 'vigil-local';
let service: RunningServer;

beforeAll(async () => {
  service = await startServer({ port: 0, dataDir: ':memory:', scheduler: false });
});

afterAll(async () => {
  await service.close();
});

const address = (project: string) => `${service.url}/v1/state/${project}`;

function backend(project: string, lockTtlSeconds?: number, pollMs = 20) {
  return createHttpBackend({
    address: address(project),
    credentials: { token: API_KEY },
    pollMs,
    retryWaitMinMs: 1,
    retryWaitMaxMs: 5,
    ...(lockTtlSeconds === undefined ? {} : { lockTtlSeconds }),
  });
}

/** A lock as a vigil killed on another machine left it: taken once, never renewed. */
async function abandonedLock(project: string, ttlSeconds: number): Promise<string> {
  const info = { pid: 4242, host: 'build-7', user: 'ci', command: 'vigil apply', createdAt: '2026-11-22T03:00:00.000Z' };
  const response = await fetch(`${address(project)}/lock`, {
    method: 'POST',
    headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ ID: randomUUID(), Operation: 'vigil apply', Info: JSON.stringify(info), Who: 'ci@build-7', Version: '1', Created: info.createdAt, Path: '', ttlSeconds }),
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as { expiresAt: string }).expiresAt;
}

const OWNER = 'pid 4242 on build-7 (user ci, "vigil apply", since 2026-11-22T03:00:00.000Z)';

async function failure(run: () => Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await run();
  } catch (error) {
    if (isStateError(error)) return { code: error.code, message: error.message };
    throw error;
  }
  throw new Error('expected a StateError');
}

describe('state locks on vigil server, which expire unless renewed', () => {
  it('renews a held lock, so a waiter past its TTL still sees a live holder told by when it expires', async () => {
    const holderBackend = backend('renewed', 1);
    const held = await holderBackend.lock({ timeoutMs: 0, command: 'vigil apply' });
    const seen: LockHolder[] = [];
    const waiter = backend('renewed');
    // Waits three TTLs: without renewals the lock would have expired twice over.
    const refused = await failure(() => waiter.lock({ timeoutMs: 3000, command: 'vigil apply', onWait: (holder) => seen.push(holder) }));
    expect(refused.code).toBe('state-locked');
    expect(refused.message).toMatch(/gave up after waiting 3s \(--lock-timeout\)/);
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ expired: false, description: expect.stringMatching(/^pid \d+ on /) });
    expect(Date.parse(seen[0]!.expiresAt!)).toBeGreaterThan(0);
    expect(await holderBackend.lockHolder()).toMatchObject({ expired: false });
    await held.write(emptyState({ project: 'renewed', target: { baseUrl: 'http://127.0.0.1:4010', accountId: 'acme' } }));
    await held.release();
    expect(await holderBackend.lockHolder()).toBeUndefined();
  }, 30_000);

  it('reports a lock nobody renewed as stale at once, naming its holder and when it expired', async () => {
    const expiresAt = await abandonedLock('abandoned', 1);
    const state = backend('abandoned');
    await waitFor('the abandoned lock to expire', async () => ((await state.lockHolder())?.expired ? true : undefined), { intervalMs: 100 });
    expect(await failure(() => state.lock({ timeoutMs: 0, command: 'vigil apply' }))).toEqual({
      code: 'state-lock-stale',
      message:
        `state http state at ${address('abandoned')} is locked by ${OWNER}, but that lock expired at ${expiresAt} without being renewed (a running vigil renews its lock), ` +
        'so it is stale: its holder was killed or lost its connection. If no other vigil is using this state, remove the lock with: vigil state unlock --force',
    });
  });

  it('tells a waiter again when the lock it waits for expires, and fails as stale when its wait runs out', async () => {
    const expiresAt = await abandonedLock('lapsing', 1);
    const seen: LockHolder[] = [];
    const refused = await failure(() => backend('lapsing').lock({ timeoutMs: 2500, command: 'vigil apply', onWait: (holder) => seen.push(holder) }));
    expect(seen).toEqual([
      { owner: expect.objectContaining({ pid: 4242, host: 'build-7' }), description: OWNER, expiresAt, expired: false },
      { owner: expect.objectContaining({ pid: 4242, host: 'build-7' }), description: OWNER, expiresAt, expired: true },
    ]);
    expect(refused.code).toBe('state-lock-stale');
  });

  it('tells a waiter the lock lapsed even when the poll that sees it is the one its wait runs out at', async () => {
    const expiresAt = await abandonedLock('lapsing-at-deadline', 1);
    const seen: LockHolder[] = [];
    // Polls far apart: the second poll is the deadline's, after the one-second lock expired.
    const waiter = backend('lapsing-at-deadline', undefined, 60_000);
    const refused = await failure(() => waiter.lock({ timeoutMs: 1500, command: 'vigil apply', onWait: (holder) => seen.push(holder) }));
    expect(seen.map((holder) => ({ expiresAt: holder.expiresAt, expired: holder.expired }))).toEqual([
      { expiresAt, expired: false },
      { expiresAt, expired: true },
    ]);
    expect(refused.code).toBe('state-lock-stale');
  });

  it('unlocks only an expired lock when asked to, naming its holder and its expiry', async () => {
    const live = backend('unlock-live');
    const held = await live.lock({ timeoutMs: 0, command: 'vigil apply' });
    expect(await live.forceUnlock({ onlyExpired: true })).toMatchObject({ removed: false, expired: false, holder: expect.stringMatching(/^pid \d+ on /) });
    expect(await live.lockHolder()).toMatchObject({ expired: false });
    await held.release();

    const expiresAt = await abandonedLock('unlock-expired', 1);
    const expired = backend('unlock-expired');
    await waitFor('the abandoned lock to expire', async () => ((await expired.lockHolder())?.expired ? true : undefined), { intervalMs: 100 });
    expect(await expired.forceUnlock({ onlyExpired: true })).toEqual({ removed: true, owner: expect.objectContaining({ pid: 4242 }), holder: OWNER, expiresAt, expired: true });
    expect(await expired.lockHolder()).toBeUndefined();
  });
});
