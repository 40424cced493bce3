import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ErrorGroup } from '@vigil/schema';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IDS, SEED } from '../readside/fixtures/seed-fixture.js';
import { OTHER_API_KEY, apiFor, startTestServer, type TestApi } from '../test-support.js';

let api: TestApi;
beforeAll(async () => {
  api = await startTestServer({ seed: SEED });
});
afterAll(() => api.close());

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const groupsOf = async (checkId: string, client: TestApi = api) => (await client.get(`/v1/error-groups/checks/${checkId}`)).body as ErrorGroup[];
const patch = (id: string, body: unknown, client: TestApi = api) => client.call('PATCH', `/v1/error-groups/${id}`, { body });

describe('GET /v1/error-groups/checks/{checkId}', () => {
  it('groups errors whose messages differ only in variable parts, across attempts and final results', async () => {
    const reply = await api.get(`/v1/error-groups/checks/${IDS.apiCheck}`);
    expect(reply.status).toBe(200);
    const cleaned = 'Expected status <number> but received <number> at <timestamp>';
    expect(reply.body).toEqual([
      {
        id: expect.any(String),
        checkId: IDS.apiCheck,
        errorHash: sha256(cleaned),
        // The latest occurrence (r3 at 10:10; attempt a1 at 10:09 came first).
        rawErrorMessage: 'Expected status 200 but received 503 at 2026-01-05T10:10:00.000Z',
        cleanedErrorMessage: cleaned,
        firstSeen: '2026-01-05T10:09:00.000Z',
        lastSeen: '2026-01-05T10:10:00.000Z',
        archivedUntilNextEvent: false,
      },
      {
        id: expect.any(String),
        checkId: IDS.apiCheck,
        errorHash: sha256('connect ETIMEDOUT <ip>:<number> after <number>ms'),
        rawErrorMessage: 'connect ETIMEDOUT 10.0.0.12:443 after 1000ms',
        cleanedErrorMessage: 'connect ETIMEDOUT <ip>:<number> after <number>ms',
        firstSeen: '2026-01-05T10:20:00.000Z',
        lastSeen: '2026-01-05T10:20:00.000Z',
        archivedUntilNextEvent: false,
      },
    ]);
    for (const group of reply.body) expect(ErrorGroup.safeParse(group).success).toBe(true);
  });

  it('reads multi-step errors, as strings or {message}, with quoted values cleaned', async () => {
    expect(await groupsOf(IDS.multiStepCheck)).toMatchObject([{
      cleanedErrorMessage: 'Timeout <number>ms exceeded waiting for selector <quoted>',
      rawErrorMessage: 'Timeout 30000ms exceeded waiting for selector "#cart"',
      firstSeen: '2026-01-05T10:10:00.000Z',
      lastSeen: '2026-01-05T10:20:00.000Z',
    }]);
  });

  it('lists nothing for a check without errors', async () => {
    expect(await groupsOf(IDS.heartbeatCheck)).toEqual([]);
  });

  it('pages with content-range and link', async () => {
    const reply = await api.get(`/v1/error-groups/checks/${IDS.apiCheck}?limit=1&page=1`);
    expect(reply.body).toHaveLength(1);
    expect(reply.headers.get('content-range')).toBe('0-0/2');
    expect(reply.headers.get('link')).toContain('limit=1&page=2>; rel="next"');
  });

  it.each([
    ['limit=0', ['limit']],
    ['limit=101', ['limit']],
    ['page=0', ['page']],
  ])('rejects %s with 400 naming %j', async (query, keys) => {
    const reply = await api.get(`/v1/error-groups/checks/${IDS.apiCheck}?${query}`);
    expect([reply.status, reply.body.validation]).toEqual([400, { source: 'query', keys }]);
  });

  it('answers 404 for another tenant’s check and an unknown one', async () => {
    expect((await api.get(`/v1/error-groups/checks/${IDS.otherTenantCheck}`)).status).toBe(404);
    expect((await api.get('/v1/error-groups/checks/missing')).status).toBe(404);
  });
});

describe('PATCH /v1/error-groups/{id}', () => {
  it('archives until the next event, and un-archives', async () => {
    const [group] = await groupsOf(IDS.multiStepCheck);
    const archived = await patch(group!.id, { archivedUntilNextEvent: true });
    expect([archived.status, archived.body]).toEqual([200, { ...group, archivedUntilNextEvent: true }]);
    expect((await groupsOf(IDS.multiStepCheck))[0]?.archivedUntilNextEvent).toBe(true);
    expect((await patch(group!.id, { archivedUntilNextEvent: false })).body.archivedUntilNextEvent).toBe(false);
  });

  it('archives forever, which reads as archived', async () => {
    const [group] = await groupsOf(IDS.multiStepCheck);
    expect((await patch(group!.id, { archiveForEver: true })).body.archivedUntilNextEvent).toBe(true);
    expect((await patch(group!.id, { archiveForEver: false })).body.archivedUntilNextEvent).toBe(false);
  });

  it.each([
    [{}, ['']],
    [{ archiveForEver: 'yes' }, ['archiveForEver']],
    [{ archivedUntilNextEvent: 1 }, ['archivedUntilNextEvent']],
  ])('rejects %j with 400 naming %j', async (body, keys) => {
    const [group] = await groupsOf(IDS.apiCheck);
    const reply = await patch(group!.id, body);
    expect([reply.status, reply.body.validation]).toEqual([400, { source: 'payload', keys }]);
  });

  it('answers 404 for another tenant’s group and an unknown id', async () => {
    const other = apiFor(api.server, OTHER_API_KEY);
    const [foreign] = await groupsOf(IDS.otherTenantCheck, other);
    expect(foreign?.cleanedErrorMessage).toBe('socket hang up');
    expect((await patch(foreign!.id, { archivedUntilNextEvent: true })).status).toBe(404);
    expect((await patch('missing', { archivedUntilNextEvent: true })).status).toBe(404);
    expect((await patch(foreign!.id, { archivedUntilNextEvent: true }, other)).status).toBe(200);
  });
});

describe('archive state across new events (restart on the same data directory)', () => {
  it('a newer occurrence un-archives a group archived until the next event, not one archived forever', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'vigil-error-groups-'));
    try {
      const first = await startTestServer({ seed: SEED, dataDir });
      const [untilNext] = await groupsOf(IDS.apiCheck, first);
      const [forever] = await groupsOf(IDS.multiStepCheck, first);
      await patch(untilNext!.id, { archivedUntilNextEvent: true }, first);
      await patch(forever!.id, { archiveForEver: true }, first);
      await first.close();

      const seed = structuredClone(SEED) as { accounts: Array<{ checkResults: unknown[] }> };
      seed.accounts[0]!.checkResults.push(
        {
          id: 'later-503', checkId: IDS.apiCheck, created_at: 'now', runLocation: 'eu-west-1', hasFailures: true,
          apiCheckResult: { requestError: 'Expected status 200 but received 503 at 2026-11-01T00:00:00.000Z' },
        },
        {
          id: 'later-timeout', checkId: IDS.multiStepCheck, created_at: 'now', runLocation: 'eu-west-1', hasFailures: true,
          multiStepCheckResult: { errors: ['Timeout 1000ms exceeded waiting for selector "#x"'] },
        },
      );
      const second = await startTestServer({ seed, dataDir });
      const [reopened] = await groupsOf(IDS.apiCheck, second);
      const [stillArchived] = await groupsOf(IDS.multiStepCheck, second);
      expect(reopened).toMatchObject({ id: untilNext!.id, archivedUntilNextEvent: false, firstSeen: '2026-01-05T10:09:00.000Z' });
      expect(Date.parse(reopened!.lastSeen)).toBeGreaterThan(Date.parse('2026-11-01T00:00:00.000Z'));
      expect(stillArchived).toMatchObject({ id: forever!.id, archivedUntilNextEvent: true });
      await second.close();
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
