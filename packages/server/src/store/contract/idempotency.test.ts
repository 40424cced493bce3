/** The idempotency-key port, the same assertions on every engine (see engines.ts). */
import { describe, expect, it } from 'vitest';
import { IDEMPOTENCY_TTL_MS } from '../port-rules.js';
import type { StoredResponse } from '../ports.js';
import { enginesUnderTest, twoReplicas } from './engines.js';

const engines = enginesUnderTest();
const NOW = Date.UTC(2026, 10, 1);
const response = (body: string): StoredResponse => ({ fingerprint: `fp-${body}`, status: 201, body: JSON.stringify({ body }) });

describe.each(engines)('idempotency keys on $name', (engine) => {
  it('finds nothing for a key never remembered', async () => {
    const [a] = await twoReplicas(engine);
    expect(await a.idempotency.lookup('acc', 'k', NOW)).toBeUndefined();
  });

  it('answers a key remembered by one replica from another', async () => {
    const [a, b] = await twoReplicas(engine);
    expect(await a.idempotency.remember('acc', 'k', response('first'), NOW)).toEqual({ stored: true, response: response('first') });
    expect(await b.idempotency.lookup('acc', 'k', NOW + 1)).toEqual(response('first'));
  });

  it('keeps the first response: a second remember gets the first back and changes nothing', async () => {
    const [a, b] = await twoReplicas(engine);
    await a.idempotency.remember('acc', 'k', response('first'), NOW);
    expect(await b.idempotency.remember('acc', 'k', response('second'), NOW + 5)).toEqual({ stored: false, response: response('first') });
    expect(await a.idempotency.lookup('acc', 'k', NOW + 10)).toEqual(response('first'));
  });

  it('keeps one response when replicas remember the same key at once', async () => {
    const [a, b] = await twoReplicas(engine);
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? a : b).idempotency.remember('acc', 'race', response(`r${i}`), NOW)),
    );
    expect(results.filter((result) => result.stored)).toHaveLength(1);
    const winner = results.find((result) => result.stored)!.response;
    expect(results.map((result) => result.response)).toEqual(results.map(() => winner));
    expect(await b.idempotency.lookup('acc', 'race', NOW)).toEqual(winner);
  });

  it('keeps the keys of accounts apart', async () => {
    const [a, b] = await twoReplicas(engine);
    await a.idempotency.remember('acc-1', 'k', response('one'), NOW);
    expect(await b.idempotency.lookup('acc-2', 'k', NOW)).toBeUndefined();
    expect(await b.idempotency.remember('acc-2', 'k', response('two'), NOW)).toEqual({ stored: true, response: response('two') });
    expect(await a.idempotency.lookup('acc-1', 'k', NOW)).toEqual(response('one'));
  });

  it('forgets a response once the TTL has passed, and then stores a new one for the key', async () => {
    const [a, b] = await twoReplicas(engine);
    await a.idempotency.remember('acc', 'k', response('old'), NOW);
    expect(await b.idempotency.lookup('acc', 'k', NOW + IDEMPOTENCY_TTL_MS - 1)).toEqual(response('old'));
    expect(await b.idempotency.lookup('acc', 'k', NOW + IDEMPOTENCY_TTL_MS)).toBeUndefined();
    expect(await b.idempotency.remember('acc', 'k', response('new'), NOW + IDEMPOTENCY_TTL_MS)).toEqual({ stored: true, response: response('new') });
    expect(await a.idempotency.lookup('acc', 'k', NOW + IDEMPOTENCY_TTL_MS + 1)).toEqual(response('new'));
  });

  it('refuses bad input with errors that name it', async () => {
    const [a] = await twoReplicas(engine);
    await expect(a.idempotency.lookup('', 'k', NOW)).rejects.toThrow('accountId must be a string that is not empty, got ""');
    await expect(a.idempotency.lookup('acc', '', NOW)).rejects.toThrow('Idempotency-Key must be a string of 1 to 255 characters, got ""');
    await expect(a.idempotency.lookup('acc', 'k'.repeat(256), NOW)).rejects.toThrow('Idempotency-Key must be a string of 1 to 255 characters, got a string of 256 characters');
    await expect(a.idempotency.lookup('acc', 'k', NOW / 1000 + 0.5)).rejects.toThrow('now must be a whole number of milliseconds since the epoch, got 1793491200.5');
    await expect(a.idempotency.remember('acc', 'k', { ...response('x'), status: 42 }, NOW)).rejects.toThrow('status must be an HTTP status code (100 to 599), got 42');
    await expect(a.idempotency.remember('acc', 'k', { ...response('x'), fingerprint: '' }, NOW)).rejects.toThrow('fingerprint must be a string that is not empty, got ""');
    expect(await a.idempotency.lookup('acc', 'k', NOW)).toBeUndefined();
  });
});
