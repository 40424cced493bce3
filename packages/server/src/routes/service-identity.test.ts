import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer } from '../start.js';
import { apiFor } from '../test-support.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'vigil-service-id-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const accounts = [
  { apiKey: 'both', accountId: 'acme' },
  { apiKey: 'both', accountId: 'globex', name: 'Globex Inc' },
];

async function me(dataDir: string, headers: Record<string, string> = {}) {
  const server = await startServer({ port: 0, dataDir, accounts });
  try {
    return await apiFor(server, 'both').get('/v1/accounts/me', { headers });
  } finally {
    await server.close();
  }
}

describe('GET /v1/accounts/me', () => {
  it("answers the account the key acts on with the service's id, the same for every account of the service", async () => {
    const own = await me(':memory:');
    expect(own.status).toBe(200);
    expect(own.body).toMatchObject({ id: 'acme', serviceId: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    const server = await startServer({ port: 0, dataDir: ':memory:', accounts });
    try {
      const api = apiFor(server, 'both');
      const [first, second] = [await api.get('/v1/accounts/me'), await api.get('/v1/accounts/me', { headers: { 'x-service-account': 'globex' } })];
      expect(second.body).toMatchObject({ id: 'globex', name: 'Globex Inc' });
      expect(second.body.serviceId).toBe(first.body.serviceId);
    } finally {
      await server.close();
    }
  });

  it('keeps the id in the data directory: a restart on it is the same service, another directory another one', async () => {
    const kept = path.join(dir, 'kept');
    const before = (await me(kept)).body.serviceId;
    const after = (await me(kept)).body.serviceId;
    const other = (await me(path.join(dir, 'other'))).body.serviceId;
    expect(after).toBe(before);
    expect(other).not.toBe(before);
  });

  it('documents serviceId as a Vigil extension in /openapi.json', async () => {
    const server = await startServer({ port: 0, dataDir: ':memory:', accounts });
    try {
      const document = (await (await fetch(`${server.url}/openapi.json`)).json()) as { paths: Record<string, { get?: { summary?: string } }> };
      expect(document.paths['/v1/accounts/me']?.get?.summary).toContain('Vigil extension serviceId');
      expect(JSON.stringify(document)).toContain('Vigil extension: the identity of this service');
    } finally {
      await server.close();
    }
  });
});
