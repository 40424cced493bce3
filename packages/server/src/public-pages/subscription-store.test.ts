/** The form's limits as the subscribers port counts the submissions the key hashes, on a clock the test sets. */
import { afterEach, describe, expect, it } from 'vitest';
import { Store } from '../store/index.js';
import { sqlitePorts } from '../store/sqlite/index.js';
import { SubscriptionKey, type SubscribeLimits } from './subscription-store.js';

const HOUR = 3_600_000;
const T0 = Date.UTC(2026, 2, 1);
const LIMITS: SubscribeLimits = { perAddressPerDay: 3, perClientPerHour: 10, perPagePerHour: 100 };
let store: Store | undefined;
afterEach(() => store?.close());

function subscriptions(): SubscriptionKey {
  store = new Store(':memory:');
  return new SubscriptionKey(sqlitePorts(store).subscribers);
}

const ask = async (subs: SubscriptionKey, overrides: { address?: string; client?: string; page?: string; nowMs?: number; limits?: Partial<SubscribeLimits> } = {}) =>
  sqlitePorts(store!).subscribers.admit(await subs.formSubmission({ pageKey: overrides.page ?? 'acme/p', address: overrides.address ?? 'a@example.com', client: overrides.client ?? '10.0.0.1', nowMs: overrides.nowMs ?? T0, limits: { ...LIMITS, ...overrides.limits } }));

/** Submissions one after the other, as they arrive. */
async function askEach(subs: SubscriptionKey, each: Array<Parameters<typeof ask>[1]>): Promise<boolean[]> {
  const answers: boolean[] = [];
  for (const overrides of each) answers.push(await ask(subs, overrides));
  return answers;
}

describe('the subscription form limits', () => {
  it('mail one address three times a day, whatever its case and page, and again a day later', async () => {
    const subs = subscriptions();
    const answers = await askEach(subs, ['a@example.com', 'A@EXAMPLE.COM', 'a@example.com', 'a@example.com'].map((address, i) => ({ address, page: `acme/p${i}`, client: `10.0.0.${i}` })));
    expect(answers).toEqual([true, true, true, false]);
    expect(await ask(subs, { nowMs: T0 + 24 * HOUR + 1 })).toBe(true);
  });

  it('count every submission of a client, mailed or not, for an hour', async () => {
    const subs = subscriptions();
    const answers = await askEach(subs, Array.from({ length: 11 }, (_, i) => ({ address: `x${i % 2}@example.com` })));
    expect(answers.filter(Boolean)).toHaveLength(6);
    expect(await ask(subs, { address: 'fresh@example.com' })).toBe(false);
    expect(await ask(subs, { address: 'fresh@example.com', nowMs: T0 + HOUR + 1 })).toBe(true);
  });

  it('cap the mails of one page per hour across clients and addresses', async () => {
    const subs = subscriptions();
    const answers = await askEach(subs, Array.from({ length: 4 }, (_, i) => ({ address: `p${i}@example.com`, client: `10.1.0.${i}`, limits: { perPagePerHour: 3 } })));
    expect(answers).toEqual([true, true, true, false]);
    expect(await ask(subs, { address: 'other@example.com', page: 'acme/other', limits: { perPagePerHour: 3 } })).toBe(true);
  });

  it('keep one signing key per database', async () => {
    const subs = subscriptions();
    const secret = await subs.secret();
    expect(secret).toHaveLength(32);
    expect((await new SubscriptionKey(sqlitePorts(store!).subscribers).secret()).equals(secret)).toBe(true);
  });

  it('read the key again after a failed read, and keep it once read', async () => {
    let reads = 0;
    const key = new SubscriptionKey({
      secret: async () => {
        reads += 1;
        if (reads === 1) throw new Error('the database is not reachable');
        return Buffer.alloc(32, 7);
      },
    });
    await expect(key.secret()).rejects.toThrow('the database is not reachable');
    expect((await key.secret()).equals(Buffer.alloc(32, 7))).toBe(true);
    await key.secret();
    expect(reads).toBe(2);
  });
});
