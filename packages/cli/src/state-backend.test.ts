/**
 * The backend each `state` block opens: the service backend is Terraform's http protocol at the
 * target's `/v1/state/<logicalId>` with the API key as a bearer token, and the http backend takes
 * its credentials from the environment only.
 */
import { emptyState } from '@vigil/engine';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { startTerraformStateServer, type TerraformStateServer } from '../../../test/support/terraform-http-state-server.js';
import { lockWaitNotice, openStateBackend, serviceStateAddress } from './state-backend.js';

let server: TerraformStateServer;

beforeEach(async () => {
  server = await startTerraformStateServer();
});

afterEach(async () => {
  await server.close();
});

async function writeOnce(backend: Awaited<ReturnType<typeof openStateBackend>>): Promise<void> {
  const lock = await backend.lock({ timeoutMs: 0, command: 'vigil apply' });
  await lock.write(emptyState({ project: 'shop', target: { baseUrl: server.url, accountId: 'acme' } }));
  await lock.release();
}

describe('openStateBackend', () => {
  it("keeps service state at the target's /v1/state/<logicalId>, sent with the API key and the account", async () => {
    const backend = await openStateBackend(
      { root: '/project', config: { logicalId: 'shop/eu', api: { accountId: 'acme' } }, unlockCommand: 'vigil state unlock --force', env: { VIGIL_API_URL: `${server.url}/`, VIGIL_API_KEY: 'key-123' } },
      { backend: 'service' },
    );
    expect(backend.describe()).toBe(`http state at ${server.url}/v1/state/shop%2Feu`);
    await writeOnce(backend);
    expect(server.document('/v1/state/shop%2Feu')).toContain('"project": "shop"');
    expect(new Set(server.requests.map((request) => `${request.method} ${request.path.split('?')[0]} ${request.authorization}`))).toEqual(
      new Set(['LOCK /v1/state/shop%2Feu Bearer key-123', 'GET /v1/state/shop%2Feu Bearer key-123', 'POST /v1/state/shop%2Feu Bearer key-123', 'UNLOCK /v1/state/shop%2Feu Bearer key-123']),
    );
    expect(serviceStateAddress('https://api.example.com/', 'shop')).toBe('https://api.example.com/v1/state/shop');
  });

  it('refuses the service backend without a target to keep state on', async () => {
    await expect(openStateBackend({ root: '/project', config: { logicalId: 'shop' }, unlockCommand: 'x', env: {} }, { backend: 'service' })).rejects.toThrow(
      'state.backend "service" keeps state on the monitoring service vigil manages: set VIGIL_API_URL (or api.baseUrl in vigil.config.ts) and VIGIL_API_KEY',
    );
  });

  it('sends the http backend basic auth from the environment, the user name from the config unless the environment has one', async () => {
    const address = `${server.url}/states/shop`;
    const env = { VIGIL_STATE_HTTP_PASSWORD: 'pw' };
    await writeOnce(await openStateBackend({ root: '/project', config: { logicalId: 'shop' }, unlockCommand: 'x', env }, { backend: 'http', address, username: 'ci' }));
    expect(server.requests.at(-1)?.authorization).toBe(`Basic ${Buffer.from('ci:pw').toString('base64')}`);
    await writeOnce(await openStateBackend({ root: '/project', config: { logicalId: 'shop' }, unlockCommand: 'x', env: { VIGIL_STATE_HTTP_TOKEN: 'tok' } }, { backend: 'http', address: `${address}-2`, username: 'ci' }));
    expect(server.requests.at(-1)?.authorization).toBe('Bearer tok');
  });

  it('opens postgres state from VIGIL_STATE_PG_URL, which wins over the config, and refuses it without a database', async () => {
    const context = { root: '/project', config: { logicalId: 'shop-eu' }, unlockCommand: 'x' };
    const backend = await openStateBackend(
      { ...context, env: { VIGIL_STATE_PG_URL: 'postgres://ci:pg-secret-1@127.0.0.1:1/vigil?sslmode=disable' } },
      { backend: 'postgres', connectionString: 'postgres://other@db.example.com/vigil' },
    );
    expect(backend.describe()).toMatch(/^postgres state vigil_state_shop_eu_[0-9a-f]{8} at postgres:\/\/ci@127\.0\.0\.1:1\/vigil$/);
    const failed = await backend.read().then(
      () => 'read',
      (error: Error) => error.message,
    );
    expect(failed).toMatch(/^cannot connect to postgres state .+ at postgres:\/\/ci@127\.0\.0\.1:1\/vigil: connect ECONNREFUSED 127\.0\.0\.1:1$/);
    await expect(openStateBackend({ ...context, env: {} }, { backend: 'postgres' })).rejects.toThrow(
      'state.backend "postgres" needs a database: set VIGIL_STATE_PG_URL (postgres://user:password@host:5432/database), or state.connectionString without the password and PGPASSWORD',
    );
  });

  it('opens s3 state with the AWS variables, the region from the config or AWS_REGION, and refuses it without credentials or a region', async () => {
    const context = { root: '/project', config: { logicalId: 'shop' }, unlockCommand: 'x' };
    const aws = { AWS_ACCESS_KEY_ID: 'AKID', AWS_SECRET_ACCESS_KEY: 'secret' };
    const state = { backend: 's3' as const, bucket: 'states', key: 'shop.json' };
    expect((await openStateBackend({ ...context, env: { ...aws, AWS_REGION: 'eu-west-1' } }, state)).describe()).toBe('s3 state s3://states/shop.json');
    expect((await openStateBackend({ ...context, env: aws }, { ...state, region: 'us-east-1', endpoint: 'http://127.0.0.1:9000/' })).describe()).toBe(
      's3 state s3://states/shop.json at http://127.0.0.1:9000',
    );
    await expect(openStateBackend({ ...context, env: { AWS_REGION: 'eu-west-1' } }, state)).rejects.toThrow(
      'state.backend "s3" reads its credentials from the environment: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN for temporary credentials)',
    );
    await expect(openStateBackend({ ...context, env: aws }, state)).rejects.toThrow('state.backend "s3" needs a region: set state.region in vigil.config.ts, or AWS_REGION');
  });
});

describe('the notice a command prints while it waits for the lock', () => {
  const holder = 'pid 4242 on build-7 (user ci, "vigil apply", since 2026-11-22T03:00:00.000Z)';
  const location = 'http state at http://127.0.0.1:4010/v1/state/shop';
  const command = "vigil state unlock --force --config 'my config.ts'";

  async function printed(holders: Array<{ description: string; expiresAt?: string; expired?: boolean }>): Promise<string> {
    const write = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      const notice = await lockWaitNotice(location, 120_000, command);
      for (const seen of holders) notice(seen);
      return write.mock.calls.map(([text]) => String(text)).join('');
    } finally {
      write.mockRestore();
    }
  }

  it('names the holder once, from a server whose locks do not expire', async () => {
    expect(await printed([{ description: holder }, { description: holder }])).toBe(`Waiting up to 2m for the lock on ${location}, held by ${holder}…\n`);
  });

  it('says when the lock expires, and again, as stale with the command that removes it, when it lapses', async () => {
    const expiresAt = '2026-11-27T09:05:00.000Z';
    expect(await printed([{ description: holder, expiresAt, expired: false }, { description: holder, expiresAt, expired: true }])).toBe(
      `Waiting up to 2m for the lock on ${location}, held by ${holder}; it expires at ${expiresAt} unless its holder renews it…\n` +
        `The lock on ${location}, held by ${holder}, expired at ${expiresAt} without being renewed, so it is stale: its holder was killed or lost its connection. ` +
        `If no other vigil is using this state, remove it with: ${command}\n`,
    );
  });
});
