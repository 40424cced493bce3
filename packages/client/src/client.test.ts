import { createServer } from 'node:net';
import { ENDPOINT_IDS } from '@vigil/schema';
import { describe, expect, it } from 'vitest';
import { createClient } from './client.js';

/** A loopback port nothing listens on: every call fails fast with a refused connection. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (typeof address !== 'object' || address === null) throw new Error('no port');
  return address.port;
}

/** Every function of the client's collections, with its dotted name (`statusPages.incidents.get`). */
function methodsOf(value: object, prefix = ''): Array<[string, (...args: unknown[]) => unknown]> {
  return Object.entries(value).flatMap(([name, member]): Array<[string, (...args: unknown[]) => unknown]> => {
    if (typeof member === 'function') return [[`${prefix}${name}`, member as (...args: unknown[]) => unknown]];
    if (typeof member === 'object' && member !== null) return methodsOf(member as object, `${prefix}${name}.`);
    return [];
  });
}

describe('createClient', () => {
  it('reaches every endpoint of ENDPOINTS through some collection method', async () => {
    const seen = new Set<string>();
    const { endpoints: _generic, transport: _transport, ...collections } = createClient({
      baseUrl: `http://127.0.0.1:${await closedPort()}`,
      apiKey: 'k',
      pacing: false,
      onAttempt: (attempt) => {
        if (attempt.endpoint) seen.add(attempt.endpoint);
      },
    });
    for (const [, method] of methodsOf(collections)) {
      const result = method('1', { name: 'n', metrics: ['availability'] }, {});
      const pending = result && typeof result === 'object' && Symbol.asyncIterator in result
        ? (result as AsyncGenerator<unknown>).next()
        : (result as Promise<unknown>);
      await pending.catch(() => undefined);
    }
    expect([...seen].sort()).toEqual([...ENDPOINT_IDS].sort());
  });

  it('sends autoAssignAlerts=false on check and group writes unless asked otherwise', async () => {
    const client = createClient({ baseUrl: `http://127.0.0.1:${await closedPort()}`, apiKey: 'k', pacing: false });
    const queries: string[] = [];
    const original = client.transport.request.bind(client.transport);
    // Observes what reaches the transport; the calls themselves fail on the closed port.
    client.transport.request = (request) => {
      queries.push(`${request.endpoint} ${JSON.stringify(request.query)}`);
      return original(request);
    };
    const writes = [
      () => client.checks.createApi({ name: 'a', request: { url: 'u' } }),
      () => client.checks.createMultiStep({ name: 'a', script: '' }),
      () => client.checks.create({ name: 'a', checkType: 'API', script: null, heartbeat: { period: 1, periodUnit: 'days', grace: 1, graceUnit: 'hours' } }),
      () => client.checks.updateApi('1', {}),
      () => client.checks.updateMultiStep('1', {}),
      () => client.checks.update('1', {}),
      () => client.checkGroups.create({ name: 'g' }),
      () => client.checkGroups.update(1, { name: 'g' }),
      () => client.checkGroups.update(1, { name: 'g' }, { autoAssignAlerts: true }),
      // The generic path (the engine's) gets the same default and the same way out.
      () => client.endpoints.call('checks.createApi', { body: { name: 'a', request: { url: 'u' } } }),
      () => client.endpoints.call('checks.updateApi', { params: { id: '1' }, body: {}, query: { autoAssignAlerts: true } }),
      () => client.endpoints.call('alertChannels.create', { body: { type: 'EMAIL', config: { address: 'a@b.c' } } }),
    ];
    for (const write of writes) await write().catch(() => undefined);
    expect(queries).toEqual([
      'checks.createApi {"autoAssignAlerts":false}',
      'checks.createMultiStep {"autoAssignAlerts":false}',
      'checks.create {"autoAssignAlerts":false}',
      'checks.updateApi {"autoAssignAlerts":false}',
      'checks.updateMultiStep {"autoAssignAlerts":false}',
      'checks.update {"autoAssignAlerts":false}',
      'checkGroups.create {"autoAssignAlerts":false}',
      'checkGroups.update {"autoAssignAlerts":false}',
      'checkGroups.update {"autoAssignAlerts":true}',
      'checks.createApi {"autoAssignAlerts":false}',
      'checks.updateApi {"autoAssignAlerts":true}',
      'alertChannels.create undefined',
    ]);
  });
});
