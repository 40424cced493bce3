import { AlertChannelCreate, ApiCheckCreate, CheckGroupCreate, MultiStepCheckCreate } from '@vigil/schema';
import type { RunningServer } from '@vigil/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applySpecs, callsFor, planFor, spec, startService } from './support.js';

let server: RunningServer;
beforeAll(async () => {
  server = await startService();
});
afterAll(async () => {
  await server.close();
});

async function channelIds(): Promise<number[]> {
  const response = await fetch(`${server.url}/v1/alert-channels?limit=100`, { headers: { authorization: 'Bearer vigil-local' } });
  return ((await response.json()) as Array<{ id: number }>).map((channel) => channel.id);
}

describe('replace', () => {
  it('creates the new alert channel, moves the group to it, then deletes the old one', async () => {
    const calls = callsFor(server);
    const group = (channel: string) =>
      spec('check-group', 'web', { ...CheckGroupCreate.parse({ name: 'Web' }), alertChannelSubscriptions: [{ alertChannelId: { $ref: channel }, activated: true }] }, {
        refs: [{ path: 'alertChannelSubscriptions[0].alertChannelId', address: channel }],
      });
    const email = spec('alert-channel', 'oncall', AlertChannelCreate.parse({ type: 'EMAIL', config: { address: 'a@example.com' } }));
    const first = await applySpecs(calls, [email, group('alert-channel.oncall')]);
    const oldId = first.state.resources['alert-channel.oncall']!.remoteId;

    const slack = spec('alert-channel', 'oncall', AlertChannelCreate.parse({ type: 'SLACK', config: { url: 'https://hooks.example.com/x' } }));
    const second = await applySpecs(calls, [slack, group('alert-channel.oncall')], first.state);
    expect(second.report.failed).toEqual([]);
    const newId = second.state.resources['alert-channel.oncall']!.remoteId;
    expect(newId).not.toBe(oldId);
    expect(await channelIds()).toEqual([newId]);
    const { plan } = await planFor(calls, [slack, group('alert-channel.oncall')], second.state);
    expect(plan.changes.filter((change) => change.action !== 'noop')).toEqual([]);
  });

  it('replaces a check whose kind changed under the same logical id', async () => {
    const calls = callsFor(server);
    const api = spec('api-check', 'home', ApiCheckCreate.parse({ name: 'Home', request: { url: 'https://example.com' } }));
    const first = await applySpecs(calls, [api]);
    const multi = spec('multistep-check', 'home', MultiStepCheckCreate.parse({ name: 'Home', script: 'run()' }));
    const second = await applySpecs(calls, [multi], first.state);
    expect(second.planned.plan.changes.map((change) => [change.address, change.action, change.reason])).toEqual([['multistep-check.home', 'replace', 'kind-changed']]);
    expect(second.report.failed).toEqual([]);
    expect(Object.keys(second.state.resources)).toEqual(['multistep-check.home']);
    const { plan } = await planFor(calls, [multi], second.state);
    expect(plan.changes.filter((change) => change.action !== 'noop')).toEqual([]);
  });
});
