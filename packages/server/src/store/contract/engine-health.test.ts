/** The ports' engine name and health, the same assertions on every engine (see engines.ts); a PostgreSQL outage: postgres/connection-resilience.test.ts. */
import { describe, expect, it } from 'vitest';
import { enginesUnderTest, twoReplicas } from './engines.js';

const engines = enginesUnderTest();

describe.each(engines)('engine health on $name', (engine) => {
  it('names its engine and answers that its database is up', async () => {
    const [a] = await twoReplicas(engine);
    expect(a.engine).toBe(engine.name);
    expect(await a.health()).toEqual({ ok: true });
  });
});
