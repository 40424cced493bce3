import fc from 'fast-check';
import {
  AlertChannelCreate,
  ApiCheckCreate,
  CheckGroupCreate,
  LOCATIONS,
  MaintenanceWindowCreate,
  MultiStepCheckCreate,
  StatusPageServiceCreate,
} from '@vigil/schema';
import type { ResourceSpec } from '@vigil/constructs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '@vigil/server';
import { API_KEY, applySpecs, callsFor, planFor, spec, startService } from './support.js';

let server: RunningServer;
beforeAll(async () => {
  server = await startService();
});
afterAll(async () => {
  await server.close();
});

const name = fc.string({ minLength: 1, maxLength: 24 }).filter((text) => text.trim().length > 0);
const tags = fc.uniqueArray(fc.constantFrom('prod', 'team-a', 'team-b', 'api', 'web'), { maxLength: 4 });
const locations = fc.uniqueArray(fc.constantFrom(...LOCATIONS), { maxLength: 3 });
const assertion = fc.record({
  source: fc.constantFrom('STATUS_CODE', 'JSON_BODY', 'TEXT_BODY', 'RESPONSE_TIME'),
  comparison: fc.constantFrom('EQUALS', 'LESS_THAN', 'NOT_EMPTY', 'CONTAINS'),
  property: fc.constantFrom('', '$.id'),
  target: fc.constantFrom('200', 'ok', '500'),
});

/** A random project: groups, channels and services first, then checks that refer to them. */
const project = fc
  .record({
    groups: fc.array(fc.record({ name, tags, locations, concurrency: fc.integer({ min: 1, max: 5 }), muted: fc.boolean() }), { maxLength: 2 }),
    channels: fc.array(fc.record({ address: fc.constantFrom('a@example.com', 'oncall@example.com'), sendDegraded: fc.boolean() }), { maxLength: 2 }),
    services: fc.array(fc.record({ name }), { maxLength: 2 }),
    windows: fc.array(fc.record({ name, tags, days: fc.integer({ min: 1, max: 30 }), repeatUnit: fc.constantFrom('DAY', 'WEEK', 'MONTH') }), { maxLength: 2 }),
    apiChecks: fc.array(
      fc.record({
        name,
        tags,
        locations,
        activated: fc.boolean(),
        frequency: fc.constantFrom(1, 5, 10, 60, 720),
        degradedResponseTime: fc.integer({ min: 0, max: 30000 }),
        method: fc.constantFrom('GET', 'POST', 'HEAD'),
        assertions: fc.array(assertion, { maxLength: 3 }),
        group: fc.nat(),
        channel: fc.nat(),
        service: fc.nat(),
      }),
      { maxLength: 4 },
    ),
    multiSteps: fc.array(fc.record({ name, tags, frequency: fc.constantFrom(5, 10, 30), secret: fc.boolean() }), { maxLength: 2 }),
  })
  .map((shape, ): ResourceSpec[] => {
    const specs: ResourceSpec[] = [];
    shape.groups.forEach((group, index) => specs.push(spec('check-group', `g${index}`, CheckGroupCreate.parse(group))));
    shape.channels.forEach((channel, index) =>
      specs.push(spec('alert-channel', `c${index}`, AlertChannelCreate.parse({ type: 'EMAIL', config: { address: channel.address }, sendDegraded: channel.sendDegraded }))),
    );
    shape.services.forEach((service, index) => specs.push(spec('status-page-service', `s${index}`, StatusPageServiceCreate.parse(service))));
    shape.windows.forEach((window, index) =>
      specs.push(
        spec(
          'maintenance-window',
          `w${index}`,
          MaintenanceWindowCreate.parse({
            name: window.name,
            tags: window.tags,
            startsAt: '2026-12-01T00:00:00.000Z',
            endsAt: new Date(Date.UTC(2026, 11, 1 + window.days)).toISOString(),
            repeatUnit: window.repeatUnit,
            repeatInterval: 1,
          }),
        ),
      ),
    );
    shape.apiChecks.forEach((check, index) => {
      const refs: ResourceSpec['refs'] = [];
      const payload = ApiCheckCreate.parse({
        name: check.name,
        tags: check.tags,
        locations: check.locations,
        activated: check.activated,
        frequency: check.frequency,
        degradedResponseTime: check.degradedResponseTime,
        request: { url: `https://example.com/${index}`, method: check.method, assertions: check.assertions },
      }) as Record<string, unknown>;
      if (shape.groups.length > 0) {
        const address = `check-group.g${check.group % shape.groups.length}`;
        payload.groupId = { $ref: address };
        refs.push({ path: 'groupId', address });
      }
      if (shape.channels.length > 0) {
        const address = `alert-channel.c${check.channel % shape.channels.length}`;
        payload.alertChannelSubscriptions = [{ alertChannelId: { $ref: address }, activated: true }];
        refs.push({ path: 'alertChannelSubscriptions[0].alertChannelId', address });
      }
      if (shape.services.length > 0) {
        const address = `status-page-service.s${check.service % shape.services.length}`;
        payload.triggerIncident = { serviceId: { $ref: address }, severity: 'MAJOR', name: 'Down', description: '', notifySubscribers: false };
        refs.push({ path: 'triggerIncident.serviceId', address });
      }
      specs.push(spec('api-check', `a${index}`, payload, { refs }));
    });
    shape.multiSteps.forEach((check, index) => {
      const payload = MultiStepCheckCreate.parse({
        name: check.name,
        tags: check.tags,
        frequency: check.frequency,
        script: `console.log(${index})`,
        environmentVariables: [{ key: 'TOKEN', value: `token-${index}`, secret: check.secret }],
      });
      specs.push(spec('multistep-check', `m${index}`, payload, { secrets: check.secret ? ['environmentVariables[0].value'] : [] }));
    });
    return specs;
  });

describe('plan after apply', () => {
  it('is empty for random projects whose resources were applied from their synthesised payloads', async () => {
    const calls = callsFor(server);
    await fc.assert(
      fc.asyncProperty(project, async (specs) => {
        const { state, report } = await applySpecs(calls, specs);
        expect(report.failed).toEqual([]);
        const { plan } = await planFor(calls, specs, state);
        const changed = plan.changes.filter((change) => change.action !== 'noop');
        expect(changed).toEqual([]);
        // Destroy walks the same graph backwards (checks before their group); it leaves nothing.
        const destroyed = await applySpecs(calls, specs, state, { destroy: true });
        expect(destroyed.report.failed).toEqual([]);
        expect(destroyed.state.resources).toEqual({});
      }),
      { numRuns: 200 },
    );
  }, 300_000);

  it('reports exactly the fields changed outside vigil as drift', async () => {
    const calls = callsFor(server);
    await fc.assert(
      fc.asyncProperty(
        project.filter((specs) => specs.some((s) => s.kind === 'api-check')),
        fc.subarray(['muted', 'tags', 'frequency', 'degradedResponseTime'] as const, { minLength: 1 }),
        async (specs, fields) => {
          const { state } = await applySpecs(calls, specs);
          const target = specs.find((s) => s.kind === 'api-check')!;
          const remoteId = state.resources[target.address]!.remoteId;
          const edits: Record<string, unknown> = {};
          const payload = target.payload as { muted: boolean; tags: string[]; frequency: number; degradedResponseTime: number };
          for (const field of fields) {
            if (field === 'muted') edits.muted = !payload.muted;
            if (field === 'tags') edits.tags = [...payload.tags, 'edited-by-hand'];
            if (field === 'frequency') edits.frequency = payload.frequency === 15 ? 30 : 15;
            if (field === 'degradedResponseTime') edits.degradedResponseTime = payload.degradedResponseTime === 1234 ? 4321 : 1234;
          }
          const response = await fetch(`${server.url}/v1/checks/api/${remoteId}?autoAssignAlerts=false`, {
            method: 'PUT',
            headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' },
            body: JSON.stringify(edits),
          });
          expect(response.status).toBe(200);
          const { plan } = await planFor(calls, specs, state);
          const changed = plan.changes.filter((change) => change.action !== 'noop');
          expect(changed.map((change) => [change.address, change.action, change.reason])).toEqual([[target.address, 'update', 'drift']]);
          expect(changed[0]!.diff).toEqual([]);
          // A tag added by hand is one element of the set: `tags[2]`.
          expect(changed[0]!.drift.map((drift) => drift.path.replace(/\[\d+\]$/, '')).sort()).toEqual([...fields].sort());
          await applySpecs(calls, specs, state, { destroy: true });
        },
      ),
      { numRuns: 50 },
    );
  }, 300_000);
});
