/**
 * Checks and check groups through the client against the real service: every call of the
 * collections, the defaults the service fills in, `autoAssignAlerts=false`, and paging.
 */
import { NotFoundError, newIdempotencyKey } from '@vigil/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiCheckBody, collect, rejection, startService, type Service } from './service.js';

let service: Service;
beforeAll(async () => {
  service = await startService();
});
afterAll(() => service.close());

describe('API checks', () => {
  it('creates a check that comes back with the service-filled fields', async () => {
    const check = await service.client().checks.createApi(apiCheckBody('filled'));
    expect(check).toMatchObject({
      name: 'filled',
      checkType: 'API',
      activated: true,
      frequency: 10,
      degradedResponseTime: 5000,
      maxResponseTime: 20000,
      request: { method: 'GET', basicAuth: { username: '', password: '' } },
      alertChannels: { email: [], webhook: [], slack: [], sms: [] },
    });
    expect(check.frequencyOffset).toBeGreaterThanOrEqual(1);
    expect(check.id).toEqual(expect.any(String));
    expect(check.alertSettings.escalationType).toBe('RUN_BASED');
  });

  it('reads, merges an update into, and deletes a check', async () => {
    const client = service.client();
    const created = await client.checks.createApi(apiCheckBody('lifecycle', { tags: ['a'] }));
    expect(await client.checks.get(created.id)).toMatchObject({ id: created.id, name: 'lifecycle', tags: ['a'] });
    const updated = await client.checks.updateApi(created.id, { muted: true });
    expect(updated).toMatchObject({ id: created.id, name: 'lifecycle', muted: true, tags: ['a'] });
    expect(await client.checks.delete(created.id)).toBeUndefined();
    expect(await rejection(client.checks.get(created.id))).toBeInstanceOf(NotFoundError);
  });

  it('keeps omitted fields on update, clears a list only with [] and leaves a group only with groupId null', async () => {
    const client = service.client();
    const group = await client.checkGroups.create({ name: 'merge group' });
    const check = await client.checks.createApi(apiCheckBody('merge', { tags: ['x', 'y'], groupId: group.id }));
    expect(await client.checks.updateApi(check.id, { name: 'merged' })).toMatchObject({ tags: ['x', 'y'], groupId: group.id });
    expect(await client.checks.updateApi(check.id, { tags: [] })).toMatchObject({ name: 'merged', tags: [], groupId: group.id });
    expect(await client.checks.updateApi(check.id, { groupId: null })).toMatchObject({ groupId: null });
    expect(await client.checkGroups.delete(group.id)).toBeUndefined();
  });

  it('replays a create repeated with the same idempotency key instead of duplicating it', async () => {
    const client = service.client();
    const key = newIdempotencyKey();
    const first = await client.checks.createApi(apiCheckBody('once'), { idempotencyKey: key });
    const again = await client.checks.createApi(apiCheckBody('once'), { idempotencyKey: key });
    expect(again.id).toBe(first.id);
    const named = (await collect(client.checks.listAll())).filter((check) => check.name === 'once');
    expect(named).toHaveLength(1);
  });
});

describe('autoAssignAlerts', () => {
  it('subscribes no alert channel unless the caller asks, on creates and updates', async () => {
    const client = service.client();
    const channel = await client.alertChannels.create({ type: 'EMAIL', config: { address: 'oncall@example.test' } });
    const quiet = await client.checks.createApi(apiCheckBody('quiet'));
    expect(quiet.alertChannelSubscriptions).toEqual([]);
    const stillQuiet = await client.checks.updateApi(quiet.id, { muted: false });
    expect(stillQuiet.alertChannelSubscriptions).toEqual([]);
    const loud = await client.checks.createApi(apiCheckBody('loud'), { autoAssignAlerts: true });
    expect(loud.alertChannelSubscriptions).toEqual([expect.objectContaining({ alertChannelId: channel.id, activated: true })]);
    const quietGroup = await client.checkGroups.create({ name: 'quiet group' });
    expect(quietGroup.alertChannelSubscriptions ?? []).toEqual([]);
    await client.alertChannels.delete(channel.id);
  });
});

describe('multi-step and generic checks', () => {
  it('creates, updates and reads a multi-step check', async () => {
    const client = service.client();
    const created = await client.checks.createMultiStep({ name: 'flow', script: 'export default async () => {}', frequency: 5 });
    expect(created).toMatchObject({ name: 'flow', checkType: 'MULTI_STEP', frequency: 5 });
    const updated = await client.checks.updateMultiStep(created.id, { frequency: 15 });
    expect(updated).toMatchObject({ id: created.id, frequency: 15, script: 'export default async () => {}' });
  });

  it('creates a heartbeat check with the generic call and updates it', async () => {
    const client = service.client();
    const created = await client.checks.create({
      name: 'nightly',
      checkType: 'HEARTBEAT',
      script: '',
      heartbeat: { period: 1, periodUnit: 'days', grace: 1, graceUnit: 'hours' },
    });
    expect(created).toEqual({ id: expect.any(String), checkType: 'HEARTBEAT' });
    const updated = await client.checks.update(created.id, { name: 'nightly backup' });
    expect(updated).toMatchObject({ id: created.id, name: 'nightly backup', checkType: 'HEARTBEAT' });
  });
});

describe('paging', () => {
  it('lists every check exactly once across pages of 100, and one page on request', async () => {
    const paging = await startService();
    try {
      const client = paging.client({ concurrency: 20 });
      const names = Array.from({ length: 230 }, (_, index) => `paged-${String(index).padStart(3, '0')}`);
      await Promise.all(names.map((name) => client.checks.createApi(apiCheckBody(name, { tags: ['paged'] }))));
      const pages: string[] = [];
      const counting = paging.client({ onAttempt: (attempt) => pages.push(attempt.path) });
      const listed = await collect(counting.checks.listAll({ tag: 'paged' }));
      expect(listed.map((check) => check.name).sort()).toEqual(names);
      expect(new Set(listed.map((check) => check.id)).size).toBe(230);
      expect(pages).toHaveLength(3);
      const second = await client.checks.list({ limit: 100, page: 3 });
      expect(second).toHaveLength(30);
    } finally {
      await paging.close();
    }
  });
});

describe('check groups', () => {
  it('creates, reads, lists, merges an update into and deletes a group', async () => {
    const client = service.client();
    const group = await client.checkGroups.create({ name: 'api group', concurrency: 2, tags: ['g'] });
    expect(group).toMatchObject({ name: 'api group', concurrency: 2, activated: true, retryStrategy: 'FALLBACK' });
    expect(await client.checkGroups.get(group.id)).toMatchObject({ id: group.id, name: 'api group' });
    expect((await collect(client.checkGroups.listAll())).map((each) => each.id)).toContain(group.id);
    expect((await client.checkGroups.list({ limit: 1 })).length).toBe(1);
    const updated = await client.checkGroups.update(group.id, { name: 'api group', muted: true });
    expect(updated).toMatchObject({ id: group.id, muted: true, concurrency: 2, tags: ['g'] });
    expect(await client.checkGroups.delete(group.id)).toBeUndefined();
    expect(await rejection(client.checkGroups.get(group.id))).toBeInstanceOf(NotFoundError);
  });

  it("reads a group's deprecated trigger", async () => {
    const client = service.client();
    const group = await client.checkGroups.create({ name: 'triggered' });
    const trigger = await client.triggers.getCheckGroup(group.id);
    expect(trigger).toMatchObject({ groupId: group.id, token: expect.any(String) });
  });
});
