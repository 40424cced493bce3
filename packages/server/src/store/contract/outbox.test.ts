/** The notification outbox port, the same assertions on every engine (see engines.ts). */
import { describe, expect, it } from 'vitest';
import type { QueuedNotification } from '../ports.js';
import { enginesUnderTest, twoReplicas } from './engines.js';

const engines = enginesUnderTest();
const NOW = Date.UTC(2026, 10, 1);
const LEASE = 60_000;

function notification(index: number): QueuedNotification {
  return {
    id: `n-${String(index).padStart(4, '0')}`,
    accountId: 'acc',
    checkId: `check-${index % 7}`,
    alertChannelId: 1 + (index % 3),
    channelType: 'WEBHOOK',
    alertType: 'ALERT_FAILURE',
    doc: JSON.stringify({ index }),
  };
}

const ids = (list: ReadonlyArray<{ id: string }>) => list.map((entry) => entry.id).sort();

describe.each(engines)('notification outbox on $name', (engine) => {
  it('hands each of 100 due notifications to exactly one of two replicas claiming at once', async () => {
    const [a, b] = await twoReplicas(engine);
    const all = Array.from({ length: 100 }, (_, i) => notification(i));
    for (const entry of all) await a.outbox.enqueue(entry, NOW);
    const rounds = await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 === 0 ? a : b).outbox.claimDue(`replica-${i % 2}`, NOW, LEASE, 15)));
    const claimed = rounds.flat();
    expect(claimed).toHaveLength(100);
    expect(ids(claimed)).toEqual(ids(all));
    expect(await b.outbox.claimDue('replica-1', NOW, LEASE, 10)).toEqual([]);
  });

  it('claims oldest first, and leaves notifications that are not due yet', async () => {
    const [a] = await twoReplicas(engine);
    await a.outbox.enqueue(notification(2), NOW + 10);
    await a.outbox.enqueue(notification(1), NOW);
    await a.outbox.enqueue(notification(3), NOW + 5_000);
    const claimed = await a.outbox.claimDue('replica-0', NOW + 10, LEASE, 10);
    expect(claimed.map((entry) => [entry.id, entry.attempts, entry.leaseUntilMs])).toEqual([
      ['n-0001', 0, NOW + 10 + LEASE],
      ['n-0002', 0, NOW + 10 + LEASE],
    ]);
    expect(claimed[0]).toMatchObject({ accountId: 'acc', checkId: 'check-1', alertChannelId: 2, channelType: 'WEBHOOK', alertType: 'ALERT_FAILURE', doc: '{"index":1}' });
  });

  it('gives a dead replica\'s notification to another once its lease ran out, and refuses the late settle of the first', async () => {
    const [a, b] = await twoReplicas(engine);
    await a.outbox.enqueue(notification(1), NOW);
    expect(ids(await a.outbox.claimDue('replica-a', NOW, LEASE, 5))).toEqual(['n-0001']);
    // While the lease holds, nobody else gets it.
    expect(await b.outbox.claimDue('replica-b', NOW + LEASE - 1, LEASE, 5)).toEqual([]);
    // replica-a died mid-delivery: at the lease's end replica-b takes over and delivers.
    expect(ids(await b.outbox.claimDue('replica-b', NOW + LEASE, LEASE, 5))).toEqual(['n-0001']);
    expect(await b.outbox.settle('replica-b', 'n-0001', { delivery: 'SENT', attempts: 1, error: null, result: '200 OK' }, NOW + LEASE + 5)).toBe(true);
    // replica-a comes back and tries to record its own outcome: too late, the outcome stands.
    expect(await a.outbox.settle('replica-a', 'n-0001', { delivery: 'FAILED', attempts: 1, error: 'timeout', result: null }, NOW + LEASE + 9)).toBe(false);
    expect(await a.outbox.find('n-0001')).toEqual({ delivery: 'SENT', attempts: 1, leaseOwner: null });
    expect(await a.outbox.claimDue('replica-a', NOW + 10 * LEASE, LEASE, 5)).toEqual([]);
  });

  it('defers a failed attempt to its next moment, releasing the lease, and counts the attempts', async () => {
    const [a, b] = await twoReplicas(engine);
    await a.outbox.enqueue(notification(1), NOW);
    await a.outbox.claimDue('replica-a', NOW, LEASE, 5);
    expect(await b.outbox.defer('replica-b', 'n-0001', { attempts: 1, nextAttemptMs: NOW + 2_000, error: 'HTTP 503' })).toBe(false);
    expect(await a.outbox.defer('replica-a', 'n-0001', { attempts: 1, nextAttemptMs: NOW + 2_000, error: 'HTTP 503' })).toBe(true);
    expect(await a.outbox.find('n-0001')).toEqual({ delivery: 'PENDING', attempts: 1, leaseOwner: null });
    expect(await b.outbox.claimDue('replica-b', NOW + 1_999, LEASE, 5)).toEqual([]);
    const [again] = await b.outbox.claimDue('replica-b', NOW + 2_000, LEASE, 5);
    expect(again).toMatchObject({ id: 'n-0001', attempts: 1 });
  });

  it('releases a lease given up without an outcome: due again at once for another replica, its attempts unchanged', async () => {
    const [a, b] = await twoReplicas(engine);
    await a.outbox.enqueue(notification(1), NOW);
    await a.outbox.claimDue('replica-a', NOW, LEASE, 5);
    expect(await a.outbox.defer('replica-a', 'n-0001', { attempts: 2, nextAttemptMs: NOW + 1_000, error: 'HTTP 503' })).toBe(true);
    await a.outbox.claimDue('replica-a', NOW + 1_000, LEASE, 5);
    expect(await b.outbox.release('replica-b', 'n-0001')).toBe(false);
    expect(await a.outbox.release('replica-a', 'n-0001')).toBe(true);
    expect(await a.outbox.release('replica-a', 'n-0001')).toBe(false);
    expect(await a.outbox.find('n-0001')).toEqual({ delivery: 'PENDING', attempts: 2, leaseOwner: null });
    const [again] = await b.outbox.claimDue('replica-b', NOW + 1_000, LEASE, 5);
    expect(again).toMatchObject({ id: 'n-0001', attempts: 2 });
    await expect(b.outbox.release('', 'n-0001')).rejects.toThrow('lease owner must be a string of 1 to 200 characters, got ""');
  });

  it('refuses a second notification with the same id', async () => {
    const [a, b] = await twoReplicas(engine);
    await a.outbox.enqueue(notification(1), NOW);
    await expect(b.outbox.enqueue(notification(1), NOW)).rejects.toThrow();
    expect(await a.outbox.claimDue('replica-a', NOW, LEASE, 5)).toHaveLength(1);
  });

  it.each([
    ['an empty owner', { owner: '', now: NOW, lease: LEASE, limit: 5 }, 'lease owner must be a string of 1 to 200 characters, got ""'],
    ['a fractional moment', { owner: 'r', now: NOW + 0.5, lease: LEASE, limit: 5 }, `nowMs must be a whole number of milliseconds since the epoch, got ${NOW + 0.5}`],
    ['a lease of 0', { owner: 'r', now: NOW, lease: 0, limit: 5 }, 'leaseMs must be a whole number of at least 1, got 0'],
    ['a limit of 0', { owner: 'r', now: NOW, lease: LEASE, limit: 0 }, 'limit must be a whole number of at least 1, got 0'],
  ])('refuses a claim with %s', async (_name, claim, message) => {
    const [a] = await twoReplicas(engine);
    await expect(a.outbox.claimDue(claim.owner, claim.now, claim.lease, claim.limit)).rejects.toThrow(message);
  });

  it('refuses to queue a notification without a channel', async () => {
    const [a] = await twoReplicas(engine);
    await expect(a.outbox.enqueue({ ...notification(1), alertChannelId: 0 }, NOW)).rejects.toThrow('alertChannelId must be a whole number of at least 1, got 0');
  });

  it("lists an account's notifications to channels newest first, narrowed by time, channel, check and failure, a page at a time with the total", async () => {
    const [a, b] = await twoReplicas(engine);
    // Queued at NOW + index, two of them at the same moment; notification 5 is another account's.
    for (const index of [0, 1, 2, 3, 4, 6]) await a.outbox.enqueue(notification(index), NOW + index);
    await a.outbox.enqueue(notification(7), NOW + 6);
    await a.outbox.enqueue({ ...notification(5), accountId: 'other' }, NOW + 5);
    // A subscriber's mail shares the outbox, but is no channel's notification.
    await a.outbox.enqueue({ id: 'mail-1', accountId: 'acc', checkId: '', alertChannelId: 0, channelType: 'STATUS_PAGE_SUBSCRIBER', alertType: 'INCIDENT_UPDATE', doc: '{}' }, NOW + 3);
    for (const claimed of await a.outbox.claimDue('r', NOW + 10, LEASE, 100)) {
      if (claimed.id === 'n-0001') await a.outbox.settle('r', claimed.id, { delivery: 'FAILED', attempts: 3, error: 'HTTP 500', result: null }, NOW + 20);
      if (claimed.id === 'n-0002') await a.outbox.settle('r', claimed.id, { delivery: 'UNDELIVERABLE', attempts: 1, error: 'bad URL', result: null }, NOW + 21);
      if (claimed.id === 'n-0003') await a.outbox.settle('r', claimed.id, { delivery: 'SENT', attempts: 1, error: null, result: '{"status":200}' }, NOW + 22);
    }
    const all = { fromMs: NOW, toMs: NOW + 100, limit: 100, page: 1 };
    const listed = await b.outbox.log('acc', all);
    expect(listed.total).toBe(7);
    // The later queued first at the same moment.
    expect(listed.items.map((item) => item.id)).toEqual(['n-0007', 'n-0006', 'n-0004', 'n-0003', 'n-0002', 'n-0001', 'n-0000']);
    expect(listed.items.find((item) => item.id === 'n-0001')).toEqual({
      ...notification(1),
      delivery: 'FAILED',
      attempts: 3,
      createdMs: NOW + 1,
      settledMs: NOW + 20,
      lastError: 'HTTP 500',
      result: null,
    });
    expect(listed.items.find((item) => item.id === 'n-0003')).toMatchObject({ delivery: 'SENT', result: '{"status":200}', settledMs: NOW + 22 });
    expect(listed.items.find((item) => item.id === 'n-0004')).toMatchObject({ delivery: 'PENDING', attempts: 0, settledMs: null, lastError: null });
    const page = async (query: Partial<typeof all> & { alertChannelId?: number; checkId?: string; failed?: boolean }) => {
      const { items, total } = await b.outbox.log('acc', { ...all, ...query });
      return { ids: items.map((item) => item.id), total };
    };
    expect(await page({ limit: 3, page: 2 })).toEqual({ ids: ['n-0003', 'n-0002', 'n-0001'], total: 7 });
    expect(await page({ limit: 3, page: 4 })).toEqual({ ids: [], total: 7 });
    expect(await page({ fromMs: NOW + 1, toMs: NOW + 4 })).toEqual({ ids: ['n-0003', 'n-0002', 'n-0001'], total: 3 });
    expect(await page({ alertChannelId: 2 })).toEqual({ ids: ['n-0007', 'n-0004', 'n-0001'], total: 3 });
    expect(await page({ checkId: 'check-6' })).toEqual({ ids: ['n-0006'], total: 1 });
    expect(await page({ failed: true })).toEqual({ ids: ['n-0002', 'n-0001'], total: 2 });
    expect(await page({ failed: false, alertChannelId: 1 })).toEqual({ ids: ['n-0006', 'n-0003', 'n-0000'], total: 3 });
    expect(await b.outbox.log('other', all)).toMatchObject({ total: 1, items: [{ id: 'n-0005', accountId: 'other' }] });
    expect(await b.outbox.log('nobody', all)).toEqual({ items: [], total: 0 });
  });

  it('refuses a bad query of the log with an error that names it', async () => {
    const [a] = await twoReplicas(engine);
    const all = { fromMs: NOW, toMs: NOW + 100, limit: 10, page: 1 };
    await expect(a.outbox.log('', all)).rejects.toThrow('accountId must be a string that is not empty, got ""');
    await expect(a.outbox.log('acc', { ...all, fromMs: -1 })).rejects.toThrow('fromMs must be a whole number of milliseconds since the epoch, got -1');
    await expect(a.outbox.log('acc', { ...all, toMs: 1.5 })).rejects.toThrow('toMs must be a whole number of milliseconds since the epoch, got 1.5');
    await expect(a.outbox.log('acc', { ...all, alertChannelId: 0 })).rejects.toThrow('alertChannelId must be a whole number of at least 1, got 0');
    await expect(a.outbox.log('acc', { ...all, checkId: '' })).rejects.toThrow('checkId must be a string that is not empty, got ""');
    await expect(a.outbox.log('acc', { ...all, failed: 'yes' as unknown as boolean })).rejects.toThrow('failed must be true, false or absent, got "yes"');
    await expect(a.outbox.log('acc', { ...all, limit: 0 })).rejects.toThrow('limit must be a whole number of at least 1, got 0');
    await expect(a.outbox.log('acc', { ...all, page: 0 })).rejects.toThrow('page must be a whole number of at least 1, got 0');
  });
});
