/** The heartbeat-ping port, the same assertions on every engine (see engines.ts). */
import { describe, expect, it } from 'vitest';
import type { StoragePorts, StoredPing } from '../ports.js';
import { enginesUnderTest, twoReplicas } from './engines.js';

const engines = enginesUnderTest();
const NOW = Date.UTC(2026, 10, 1);
const LEASE = 60_000;

/** The `index`th ping of `check`, its id naming both so failures read as which ping of which check. */
function ping(check: number, index: number, accountId = 'acc'): StoredPing {
  const id = `hb-${check}-ping-${index}`;
  const atMs = NOW - 1_000_000 + index;
  return { accountId, checkId: `hb-${check}`, id, atMs, doc: JSON.stringify({ id, state: 'RECEIVED', timestamp: new Date(atMs).toISOString() }) };
}

const idsOf = (pings: readonly StoredPing[]) => pings.map((stored) => stored.id);

async function recordAll(ports: StoragePorts, pings: readonly StoredPing[]): Promise<void> {
  for (const stored of pings) expect(await ports.heartbeatPings.record(stored)).toBe(true);
}

describe.each(engines)('heartbeat pings on $name', (engine) => {
  it('hands each of 60 pings of 20 checks out once between two replicas claiming at once, no check to both, each check in its order', async () => {
    const [a, b] = await twoReplicas(engine);
    // Stored round by round: each check's three pings are apart, among the other checks' pings.
    const all = [0, 1, 2].flatMap((index) => Array.from({ length: 20 }, (_, check) => ping(check, index)));
    await recordAll(a, all.filter((_, index) => index % 2 === 0));
    for (const stored of all.filter((_, index) => index % 2 === 1)) await b.heartbeatPings.record(stored);
    const handedOut: StoredPing[] = [];
    for (let round = 0; handedOut.length < all.length; round += 1) {
      expect(round).toBeLessThan(10);
      const claims = await Promise.all(Array.from({ length: 8 }, (_, i) => (i % 2 === 0 ? a : b).heartbeatPings.claim(`replica-${i % 2}`, NOW, LEASE, 7)));
      // Within a round every lease is live: a check's pings are all in one claim or none.
      const holders = new Map<string, number>();
      for (const [index, claim] of claims.entries()) {
        for (const claimed of claim) {
          expect(holders.get(claimed.checkId) ?? index).toBe(index);
          holders.set(claimed.checkId, index);
        }
      }
      for (const [index, claim] of claims.entries()) {
        expect(await (index % 2 === 0 ? a : b).heartbeatPings.processed(claim, `replica-${index % 2}`)).toEqual(claim.map(() => true));
        handedOut.push(...claim);
      }
    }
    expect(idsOf(handedOut).sort()).toEqual(idsOf(all).sort());
    for (let check = 0; check < 20; check += 1) {
      expect(idsOf(handedOut.filter((claimed) => claimed.checkId === `hb-${check}`))).toEqual([0, 1, 2].map((index) => ping(check, index).id));
    }
    expect(await a.heartbeatPings.claim('replica-0', NOW + 10 * LEASE, LEASE, 100)).toEqual([]);
  });

  it('hands out pings in the order stored, as stored, up to the limit, and a check whose pings are held not at all', async () => {
    const [a, b] = await twoReplicas(engine);
    await recordAll(a, [ping(1, 0), ping(2, 0), ping(1, 1), ping(1, 2), ping(2, 1)]);
    const first = await a.heartbeatPings.claim('replica-a', NOW, LEASE, 2);
    expect(first).toEqual([ping(1, 0), ping(2, 0)]);
    // Both checks are held: their newer pings wait for the confirm, even for the holder.
    expect(await b.heartbeatPings.claim('replica-b', NOW, LEASE, 10)).toEqual([]);
    expect(await a.heartbeatPings.claim('replica-a', NOW, LEASE, 10)).toEqual([]);
    await b.heartbeatPings.record(ping(3, 0));
    expect(await b.heartbeatPings.claim('replica-b', NOW, LEASE, 10)).toEqual([ping(3, 0)]);
    expect(await a.heartbeatPings.processed(first, 'replica-a')).toEqual([true, true]);
    expect(idsOf(await b.heartbeatPings.claim('replica-b', NOW, LEASE, 10))).toEqual(idsOf([ping(1, 1), ping(1, 2), ping(2, 1)]));
  });

  it('hands a check whose lease ran out unconfirmed to another caller, with its newer pings after, and refuses the late confirm', async () => {
    const [a, b] = await twoReplicas(engine);
    await recordAll(a, [ping(1, 0), ping(2, 0)]);
    const held = await a.heartbeatPings.claim('replica-a', NOW, LEASE, 10);
    expect(await b.heartbeatPings.progress('acc', ping(1, 0).id)).toEqual({ processed: false, owner: 'replica-a', leaseUntilMs: NOW + LEASE });
    await b.heartbeatPings.record(ping(1, 1));
    expect(await b.heartbeatPings.claim('replica-b', NOW + LEASE - 1, LEASE, 10)).toEqual([]);
    // replica-a died holding them: its pings, oldest first, and the newer one of the same check.
    const taken = await b.heartbeatPings.claim('replica-b', NOW + LEASE, LEASE, 10);
    expect(idsOf(taken)).toEqual(idsOf([ping(1, 0), ping(2, 0), ping(1, 1)]));
    expect(await a.heartbeatPings.processed(held, 'replica-a')).toEqual([false, false]);
    expect(await b.heartbeatPings.progress('acc', ping(1, 0).id)).toEqual({ processed: false, owner: 'replica-b', leaseUntilMs: NOW + 2 * LEASE });
    expect(await b.heartbeatPings.processed(taken, 'replica-b')).toEqual([true, true, true]);
    expect(await a.heartbeatPings.progress('acc', ping(1, 0).id)).toEqual({ processed: true, owner: 'replica-b', leaseUntilMs: null });
    expect(await b.heartbeatPings.processed(taken, 'replica-b')).toEqual([false, false, false]);
    expect(await a.heartbeatPings.claim('replica-a', NOW + 10 * LEASE, LEASE, 10)).toEqual([]);
  });

  it('answers one confirm per ping: false for one never claimed, or claimed by another', async () => {
    const [a, b] = await twoReplicas(engine);
    await recordAll(a, [ping(1, 0), ping(2, 0), ping(3, 0)]);
    const [first] = await a.heartbeatPings.claim('replica-a', NOW, LEASE, 1);
    const [second] = await b.heartbeatPings.claim('replica-b', NOW, LEASE, 1);
    expect(await a.heartbeatPings.processed([first!, second!, ping(3, 0)], 'replica-a')).toEqual([true, false, false]);
    expect(await b.heartbeatPings.processed([], 'replica-b')).toEqual([]);
    expect(await b.heartbeatPings.progress('acc', ping(3, 0).id)).toEqual({ processed: false, owner: null, leaseUntilMs: null });
    expect(await b.heartbeatPings.progress('acc', 'no-such-ping')).toBeUndefined();
  });

  it('stores a ping id once per account: a repeat changes nothing, not even a processed ping', async () => {
    const [a, b] = await twoReplicas(engine);
    await recordAll(a, [ping(1, 0)]);
    expect(await b.heartbeatPings.record({ ...ping(1, 0), doc: '{"other":true}' })).toBe(false);
    const claimed = await b.heartbeatPings.claim('replica-b', NOW, LEASE, 10);
    expect(claimed).toEqual([ping(1, 0)]);
    await b.heartbeatPings.processed(claimed, 'replica-b');
    expect(await a.heartbeatPings.record(ping(1, 0))).toBe(false);
    expect(await a.heartbeatPings.claim('replica-a', NOW, LEASE, 10)).toEqual([]);
  });

  it('keeps accounts apart: the same ping id and check id in two accounts are two pings of two checks', async () => {
    const [a, b] = await twoReplicas(engine);
    await recordAll(a, [ping(1, 0, 'acc-1'), ping(1, 0, 'acc-2')]);
    expect(await a.heartbeatPings.claim('replica-a', NOW, LEASE, 1)).toEqual([ping(1, 0, 'acc-1')]);
    expect(await b.heartbeatPings.claim('replica-b', NOW, LEASE, 10)).toEqual([ping(1, 0, 'acc-2')]);
    expect(await a.heartbeatPings.processed([ping(1, 0, 'acc-2')], 'replica-a')).toEqual([false]);
  });

  it('skips every ping stored before the first start on the database, once: later pings, and later starts, skip nothing', async () => {
    const [a, b] = await twoReplicas(engine);
    await recordAll(a, [ping(1, 0), ping(2, 0)]);
    const starts = await Promise.all([a.heartbeatPings.startOnce(), b.heartbeatPings.startOnce()]);
    expect(starts.sort()).toEqual([false, true]);
    expect(await a.heartbeatPings.progress('acc', ping(1, 0).id)).toEqual({ processed: true, owner: null, leaseUntilMs: null });
    // Stored while monitoring was stopped, after it first started: handed out when it starts again.
    await recordAll(b, [ping(1, 1)]);
    expect(await b.heartbeatPings.startOnce()).toBe(false);
    expect(await a.heartbeatPings.claim('replica-a', NOW, LEASE, 10)).toEqual([ping(1, 1)]);
  });

  it("lists a check's pings in a range oldest first, ties by id in byte order, claimed, processed or not", async () => {
    const [a, b] = await twoReplicas(engine);
    const tie = { ...ping(1, 5), id: 'hb-1-Z' };
    const lower = { ...ping(1, 5), id: 'hb-1-a' };
    await recordAll(a, [ping(1, 9), lower, ping(1, 0), tie, ping(2, 3), ping(1, 3, 'other'), ping(1, 20)]);
    await b.heartbeatPings.claim('r', NOW, LEASE, 1);
    expect(await b.heartbeatPings.ofCheck('acc', 'hb-1', ping(1, 0).atMs, ping(1, 20).atMs)).toEqual([ping(1, 0), tie, lower, ping(1, 9)]);
    expect(await a.heartbeatPings.ofCheck('acc', 'hb-1', ping(1, 6).atMs, NOW)).toEqual([ping(1, 9), ping(1, 20)]);
    expect(await a.heartbeatPings.ofCheck('acc', 'hb-1', NOW, NOW + 1)).toEqual([]);
    expect(await a.heartbeatPings.ofCheck('other', 'hb-1', 0, NOW)).toEqual([ping(1, 3, 'other')]);
    // Inside a unit of work too, where the events route reads them.
    expect(await a.transaction((tx) => tx.heartbeatPings.ofCheck('acc', 'hb-2', 0, NOW))).toEqual([ping(2, 3)]);
    await expect(a.heartbeatPings.ofCheck('acc', 'hb-1', -1, NOW)).rejects.toThrow('fromMs must be a whole number of milliseconds since the epoch, got -1');
    await expect(a.heartbeatPings.ofCheck('acc', '', 0, NOW)).rejects.toThrow('checkId must be a string that is not empty, got ""');
  });

  it('refuses bad pings, claims and confirms with errors that name them', async () => {
    const [a] = await twoReplicas(engine);
    await expect(a.heartbeatPings.record({ ...ping(1, 0), accountId: '' })).rejects.toThrow('accountId must be a string that is not empty, got ""');
    await expect(a.heartbeatPings.record({ ...ping(1, 0), id: '' })).rejects.toThrow('ping id must be a string that is not empty, got ""');
    await expect(a.heartbeatPings.record({ ...ping(1, 0), checkId: '' })).rejects.toThrow('checkId must be a string that is not empty, got ""');
    await expect(a.heartbeatPings.record({ ...ping(1, 0), atMs: 1.5 })).rejects.toThrow('atMs must be a whole number of milliseconds since the epoch, got 1.5');
    await expect(a.heartbeatPings.record({ ...ping(1, 0), doc: undefined as unknown as string })).rejects.toThrow("doc must be the event's JSON text, got undefined");
    await expect(a.heartbeatPings.claim('', NOW, LEASE, 10)).rejects.toThrow('claim owner must be a string of 1 to 200 characters, got ""');
    await expect(a.heartbeatPings.claim('r', -1, LEASE, 10)).rejects.toThrow('nowMs must be a whole number of milliseconds since the epoch, got -1');
    await expect(a.heartbeatPings.claim('r', NOW, 0, 10)).rejects.toThrow('leaseMs must be a whole number of at least 1, got 0');
    await expect(a.heartbeatPings.claim('r', NOW, LEASE, 0)).rejects.toThrow('limit must be a whole number of at least 1, got 0');
    await expect(a.heartbeatPings.processed([ping(1, 0)], 'x'.repeat(201))).rejects.toThrow('claim owner must be a string of 1 to 200 characters, got a string of 201 characters');
    await expect(a.heartbeatPings.processed([ping(1, 0), ping(1, 0)], 'r')).rejects.toThrow('ping "hb-1-ping-0" of account "acc" is listed twice in one confirm');
    await expect(a.heartbeatPings.progress('acc', '')).rejects.toThrow('ping id must be a string that is not empty, got ""');
    expect(await a.heartbeatPings.claim('r', NOW, LEASE, 10)).toEqual([]);
  });

  it('finds a heartbeat monitor by its ping token in any account, with its last ping, and lists every monitor so', async () => {
    const [a, b] = await twoReplicas(engine);
    const heartbeat = async (accountId: string, name: string, pingToken: string) =>
      a.documents.insert('checks', accountId, (id) => ({ id, name, checkType: 'HEARTBEAT', heartbeat: { period: 1, periodUnit: 'hours', grace: 0, graceUnit: 'seconds', pingToken } }));
    const nightly = await heartbeat('acc', 'nightly', 'token-nightly');
    const backup = await heartbeat('other', 'backup', 'token-backup');
    // An API check carrying the same shape is no heartbeat monitor: its token finds nothing.
    await a.documents.insert('checks', 'acc', (id) => ({ id, name: 'api', checkType: 'API', heartbeat: { pingToken: 'token-api' } }));
    await recordAll(a, [{ ...ping(1, 0), checkId: String(nightly.id) }, { ...ping(1, 4), checkId: String(nightly.id) }, { ...ping(1, 2), checkId: String(nightly.id) }]);
    expect(await b.heartbeatPings.monitorOfToken('token-nightly')).toEqual({ accountId: 'acc', check: nightly, lastPingMs: ping(1, 4).atMs });
    expect(await b.heartbeatPings.monitorOfToken('token-backup')).toEqual({ accountId: 'other', check: backup, lastPingMs: null });
    expect(await b.heartbeatPings.monitorOfToken('token-api')).toBeUndefined();
    expect(await b.heartbeatPings.monitorOfToken('token-unknown')).toBeUndefined();
    expect(await b.heartbeatPings.monitors()).toEqual([
      { accountId: 'acc', check: nightly, lastPingMs: ping(1, 4).atMs },
      { accountId: 'other', check: backup, lastPingMs: null },
    ]);
    // In a unit of work too (the ping route's), where a replaced token is found at once.
    await a.documents.replace('checks', 'acc', { ...nightly, heartbeat: { ...(nightly['heartbeat'] as object), pingToken: 'token-renewed' } });
    expect(await b.transaction((tx) => tx.heartbeatPings.monitorOfToken('token-renewed'))).toMatchObject({ accountId: 'acc', check: { id: nightly.id } });
    expect(await b.transaction((tx) => tx.heartbeatPings.monitorOfToken('token-nightly'))).toBeUndefined();
    await a.documents.remove('checks', 'other', backup.id);
    expect(await b.heartbeatPings.monitorOfToken('token-backup')).toBeUndefined();
    await expect(a.heartbeatPings.monitorOfToken('')).rejects.toThrow('ping token must be a string that is not empty, got ""');
  });

  it('prunes processed pings older than the moment given, a batch at a time, never a pending one', async () => {
    const [a, b] = await twoReplicas(engine);
    const old = [ping(1, 0), ping(1, 1), ping(2, 2), ping(2, 3)];
    await recordAll(a, [...old, ping(1, 500)]);
    const claimed = await a.heartbeatPings.claim('r', NOW, LEASE, 10);
    expect(await a.heartbeatPings.processed(claimed.filter((stored) => stored.id !== ping(2, 3).id), 'r')).toEqual([true, true, true, true]);
    const before = ping(1, 100).atMs;
    expect(await b.heartbeatPings.prune(before, 2)).toBe(2);
    expect(await b.heartbeatPings.prune(before, 2)).toBe(1);
    // ping(2, 3) is still pending (its lease not confirmed), ping(1, 500) is newer than the moment.
    expect(await b.heartbeatPings.prune(before, 2)).toBe(0);
    expect(idsOf(await a.heartbeatPings.ofCheck('acc', 'hb-1', 0, NOW))).toEqual([ping(1, 500).id]);
    expect(idsOf(await a.heartbeatPings.ofCheck('acc', 'hb-2', 0, NOW))).toEqual([ping(2, 3).id]);
    await expect(a.heartbeatPings.prune(-1, 2)).rejects.toThrow('beforeMs must be a whole number of milliseconds since the epoch, got -1');
    await expect(a.heartbeatPings.prune(NOW, 0)).rejects.toThrow('limit must be a whole number of at least 1, got 0');
  });
});
