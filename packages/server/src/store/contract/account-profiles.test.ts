/** The account-profiles port, the same assertions on every engine (see engines.ts). */
import { describe, expect, it } from 'vitest';
import { StoreInputError } from '../port-rules.js';
import { enginesUnderTest, twoReplicas } from './engines.js';

const engines = enginesUnderTest();

describe.each(engines)('account profiles on $name', (engine) => {
  it("gives an account's profile back as saved, from another replica and in a unit, and replaces it", async () => {
    const [a, b] = await twoReplicas(engine);
    expect(await a.accountProfiles.get('acc')).toBeUndefined();
    const profile = { name: 'Acme', runtimeId: '2024.02', settings: { x: 1 }, alertSettings: { escalationType: 'RUN_BASED', runBasedEscalation: { failedRunThreshold: 2 } } };
    await a.accountProfiles.save('acc', profile);
    expect(await b.accountProfiles.get('acc')).toEqual(profile);
    expect(await b.accountProfiles.get('other')).toBeUndefined();
    await b.transaction((tx) => tx.accountProfiles.save('acc', { name: 'Acme 2' }));
    expect(await a.transaction((tx) => tx.accountProfiles.get('acc'))).toEqual({ name: 'Acme 2' });
  });

  it('refuses input it could not key', async () => {
    const [a] = await twoReplicas(engine);
    await expect(a.accountProfiles.get('')).rejects.toThrow(new StoreInputError('accountId must be a string that is not empty, got ""'));
    await expect(a.accountProfiles.save('acc', [] as never)).rejects.toThrow(new StoreInputError('an account profile must be an object'));
  });
});
