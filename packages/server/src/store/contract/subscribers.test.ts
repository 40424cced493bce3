/** The subscription form's port, the same assertions on every engine (see engines.ts). */
import { describe, expect, it } from 'vitest';
import type { StoragePorts } from '../ports.js';
import type { FormSubmission } from '../subscriber-ports.js';
import { enginesUnderTest, twoReplicas } from './engines.js';

const engines = enginesUnderTest();
const NOW = Date.UTC(2026, 10, 1, 12);
const HOUR = 3_600_000;
const LIMITS = { perAddressPerDay: 2, perClientPerHour: 3, perPagePerHour: 5 };

const submission = (overrides: Partial<FormSubmission> = {}): FormSubmission => ({ pageKey: 'page-1', addressKey: 'address-1', clientKey: 'client-1', nowMs: NOW, limits: LIMITS, ...overrides });
const pending = (id: string, address: string) => ({ id, type: 'EMAIL', address, status: 'PENDING', created_at: '2026-11-01T00:00:00.000Z', updated_at: null });

async function withPage(ports: StoragePorts): Promise<void> {
  await ports.statusPages.save('acme', { id: 'p1', name: 'Acme status', url: 'acme', cards: [] });
}

describe.each(engines)('status-page subscribers on $name', (engine) => {
  it('makes one secret per database, the same for every replica however many ask at once', async () => {
    const [a, b] = await twoReplicas(engine);
    const secrets = await Promise.all([a, b, a, b].map((replica, index) => replica.subscribers.secret('links', () => Buffer.alloc(32, index + 1))));
    expect(secrets[0]).toHaveLength(32);
    for (const secret of secrets) expect(secret.equals(secrets[0]!)).toBe(true);
    expect((await b.subscribers.secret('other', () => Buffer.alloc(32, 9))).equals(Buffer.alloc(32, 9))).toBe(true);
  });

  it('mails an address twice a day, counts a client’s submissions an hour, and forgets a day later', async () => {
    const [a, b] = await twoReplicas(engine);
    expect(await a.subscribers.admit(submission())).toBe(true);
    expect(await b.subscribers.admit(submission({ clientKey: 'client-2' }))).toBe(true);
    // The address had its two mails: recorded, not mailed.
    expect(await a.subscribers.admit(submission({ clientKey: 'client-3' }))).toBe(false);
    expect(await a.subscribers.admit(submission({ addressKey: 'address-2' }))).toBe(true);
    expect(await b.subscribers.admit(submission({ addressKey: 'address-3' }))).toBe(true);
    // client-1 sent three this hour: refused, and not counted for the page either.
    expect(await b.subscribers.admit(submission({ addressKey: 'address-4' }))).toBe(false);
    expect(await a.subscribers.admit(submission({ addressKey: 'address-4', clientKey: 'client-4', nowMs: NOW + HOUR }))).toBe(true);
    expect(await a.subscribers.admit(submission({ nowMs: NOW + 24 * HOUR }))).toBe(true);
  });

  it('stops a page at its mails per hour, also when two replicas admit at once', async () => {
    const [a, b] = await twoReplicas(engine);
    const outcomes = await Promise.all(
      Array.from({ length: 12 }, (_, index) => (index % 2 === 0 ? a : b).subscribers.admit(submission({ addressKey: `address-${index}`, clientKey: `client-${index}` }))),
    );
    expect(outcomes.filter(Boolean)).toHaveLength(LIMITS.perPagePerHour);
  });

  it('finds a subscription by address without case and by id, confirms it and removes it, seen from another replica', async () => {
    const [a, b] = await twoReplicas(engine);
    await withPage(a);
    await a.statusPages.addSubscription('acme', 'p1', pending('s1', 'Ann@Example.com'));
    expect(await b.subscribers.byAddress('acme', 'p1', 'ann@example.COM')).toEqual(pending('s1', 'Ann@Example.com'));
    expect(await b.subscribers.byAddress('acme', 'p2', 'ann@example.com')).toBeUndefined();
    expect(await b.subscribers.byId('acme', 'p1', 's1')).toEqual(pending('s1', 'Ann@Example.com'));
    expect(await b.subscribers.markVerified('acme', 'p1', 's1', '2026-11-02T00:00:00.000Z')).toBe(true);
    const verified = await a.subscribers.byId('acme', 'p1', 's1');
    expect(verified).toEqual({ ...pending('s1', 'Ann@Example.com'), status: 'VERIFIED', updated_at: '2026-11-02T00:00:00.000Z' });
    // The document's keys keep their order, as the subscriptions list answers them.
    expect(Object.keys(verified!)).toEqual(Object.keys(pending('s1', 'x')));
    expect(await a.subscribers.markVerified('acme', 'p1', 'nope', '2026-11-02T00:00:00.000Z')).toBe(false);
    expect(await b.subscribers.remove('acme', 'p1', 's1')).toBe(true);
    expect(await b.subscribers.remove('acme', 'p1', 's1')).toBe(false);
    expect(await a.subscribers.byId('acme', 'p1', 's1')).toBeUndefined();
  });

  it('commits a submission, its subscription and its verification mail together, or none of them', async () => {
    const [a, b] = await twoReplicas(engine);
    await withPage(a);
    const mail = { id: 'mail-1', accountId: 'acme', checkId: '', alertChannelId: 0, channelType: 'STATUS_PAGE_SUBSCRIBER', alertType: 'SUBSCRIPTION_VERIFICATION', doc: '{}' };
    const failed = a.transaction(async (tx) => {
      await tx.subscribers.admit(submission());
      await tx.statusPages.addSubscription('acme', 'p1', pending('s1', 'ann@example.com'));
      await tx.outbox.enqueue(mail, NOW);
      throw new Error('the page could not be answered');
    });
    await expect(failed).rejects.toThrow('the page could not be answered');
    expect(await b.subscribers.byId('acme', 'p1', 's1')).toBeUndefined();
    expect(await b.outbox.find('mail-1')).toBeUndefined();
    await a.transaction(async (tx) => {
      expect(await tx.subscribers.admit(submission())).toBe(true);
      await tx.statusPages.addSubscription('acme', 'p1', pending('s1', 'ann@example.com'));
      await tx.outbox.enqueue(mail, NOW);
    });
    expect(await b.subscribers.byId('acme', 'p1', 's1')).toMatchObject({ status: 'PENDING' });
    expect(await b.outbox.find('mail-1')).toMatchObject({ delivery: 'PENDING' });
  });

  it('refuses input the engines could not store', async () => {
    const [a] = await twoReplicas(engine);
    await expect(a.subscribers.admit(submission({ clientKey: '' }))).rejects.toThrow('clientKey must be a string of 1 to 255 characters, got ""');
    await expect(a.subscribers.admit(submission({ limits: { ...LIMITS, perPagePerHour: 0 } }))).rejects.toThrow('perPagePerHour must be a whole number of at least 1, got 0');
    await expect(a.subscribers.byAddress('acme', 'p1', '')).rejects.toThrow('address must be a string of 1 to 1000 characters, got ""');
  });
});
