import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { FIXTURE_ROOT, load, markerLocation, problems } from './__fixtures__/load.js';
import { ApiCheck } from './api-check.js';
import { CheckGroupV2 } from './check-group-v2.js';
import { Construct } from './construct.js';
import { EmailAlertChannel } from './email-alert-channel.js';
import { Project, tryCurrentProject, withProject } from './project.js';
import { isConstruct } from './ref.js';
import { StatusPageService } from './status-page-service.js';

const request = { url: 'https://example.com/' };

describe('Project registration', () => {
  it('refuses to create a construct outside a project load, saying where constructs belong', () => {
    expect(() => new StatusPageService('payments', { name: 'Payments' })).toThrow(
      'StatusPageService "payments" can only be created while vigil loads a project (vigil validate/plan/apply); ' +
        'declare constructs in *.monitor.ts files and run them through the vigil CLI, not with node directly.',
    );
  });

  it('registers constructs into the project of the current load, in creation order', async () => {
    const project = await load(() => {
      new StatusPageService('payments', { name: 'Payments' });
      new EmailAlertChannel('ops', { address: 'ops@example.com' });
    });
    expect(project.constructs().map((c) => c.address)).toEqual(['status-page-service.payments', 'alert-channel.ops']);
    expect(tryCurrentProject()).toBeUndefined();
  });

  it('keeps concurrent loads apart', async () => {
    const first = new Project({ root: FIXTURE_ROOT });
    const second = new Project({ root: FIXTURE_ROOT });
    await Promise.all([
      withProject(first, async () => {
        await new Promise((resolve) => setTimeout(resolve, 5));
        new StatusPageService('a', { name: 'A' });
      }),
      withProject(second, async () => {
        new StatusPageService('b', { name: 'B' });
      }),
    ]);
    expect(first.constructs().map((c) => c.logicalId)).toEqual(['a']);
    expect(second.constructs().map((c) => c.logicalId)).toEqual(['b']);
  });

  it('switches the scope off only when the last load ends, even one that threw, and on again for the next', async () => {
    const failed = withProject(new Project({ root: FIXTURE_ROOT }), async () => {
      throw new Error('user code threw');
    });
    await expect(failed).rejects.toThrow('user code threw');
    const long = new Project({ root: FIXTURE_ROOT });
    let finishLong!: () => void;
    const longLoad = withProject(long, async () => {
      await new Promise<void>((resolve) => (finishLong = resolve));
      new StatusPageService('late', { name: 'Late' });
    });
    await withProject(new Project({ root: FIXTURE_ROOT }), async () => undefined);
    finishLong();
    await longLoad;
    expect(long.constructs().map((c) => c.logicalId)).toEqual(['late']);
    expect(tryCurrentProject()).toBeUndefined();
    const next = await load(() => new StatusPageService('next', { name: 'Next' }));
    expect(next.constructs().map((c) => c.logicalId)).toEqual(['next']);
  });

  it('brands constructs so they are recognised without instanceof', async () => {
    let service: StatusPageService | undefined;
    await load(() => {
      service = new StatusPageService('payments', { name: 'Payments' });
    });
    expect(isConstruct(service)).toBe(true);
    expect(isConstruct({ kind: 'status-page-service', logicalId: 'payments' })).toBe(false);
    expect(isConstruct(null)).toBe(false);
  });

  it('records the user\'s call site as the construct\'s source', async () => {
    let service: StatusPageService | undefined;
    await load(() => {
      service = new StatusPageService('payments', { name: 'Payments' }); // @at:service
    });
    expect(service!.source).toEqual(markerLocation(import.meta.url, 'service'));
  });

  it('records protect: true, and false by default', async () => {
    const project = await load(() => {
      new StatusPageService('payments', { name: 'Payments', protect: true });
      new StatusPageService('search', { name: 'Search' });
    });
    expect(project.synth().map((s) => [s.address, s.protect])).toEqual([
      ['status-page-service.payments', true],
      ['status-page-service.search', false],
    ]);
  });
});

describe('Project.validate', () => {
  it.each([
    ['a space', 'home page'],
    ['a colon', 'api:home'],
    ['an empty id', ''],
    ['a non-ASCII letter', 'café'],
  ])('rejects a logical id with %s', async (_name, logicalId) => {
    const project = await load(() => {
      new StatusPageService(logicalId, { name: 'Payments' }); // @at:bad-id
    });
    expect(project.validate()).toEqual([
      {
        severity: 'error',
        message: `logical id ${JSON.stringify(logicalId)} of StatusPageService ${JSON.stringify(logicalId)} may only contain letters, digits and _ - / # .`,
        hint: 'Logical ids name resources in plans and state; rename it, e.g. "checkout-api".',
        address: `status-page-service.${logicalId}`,
        source: markerLocation(import.meta.url, 'bad-id'),
      },
    ]);
  });

  it('accepts logical ids made of letters, digits and _ - / # .', async () => {
    const project = await load(() => {
      new StatusPageService('team/api_v2-#1.home', { name: 'Payments' });
    });
    expect(project.validate()).toEqual([]);
  });

  it('reports a duplicate logical id of one kind at the second construct, naming the first', async () => {
    const project = await load(() => {
      new StatusPageService('payments', { name: 'Payments' }); // @at:first
      new StatusPageService('payments', { name: 'Payments again' }); // @at:second
      // The same id for another kind is fine: addresses differ.
      new EmailAlertChannel('payments', { address: 'payments@example.com' });
    });
    const first = markerLocation(import.meta.url, 'first');
    expect(project.validate()).toEqual([
      {
        severity: 'error',
        message: `duplicate logical id "payments": another status-page-service with this id was created at ${first.file}:${first.line}:${first.column}`,
        hint: 'Logical ids must be unique per kind within a project; rename one of them.',
        address: 'status-page-service.payments',
        source: markerLocation(import.meta.url, 'second'),
      },
    ]);
  });

  it('collects every problem of every construct instead of stopping at the first', async () => {
    const project = await load(() => {
      new StatusPageService('a', { name: '' });
      new ApiCheck('b', { name: '', request: { url: '' }, degradedResponseTime: 40000 });
    });
    expect(problems(project).map((d) => `${d.address} ${d.path}`)).toEqual([
      'status-page-service.a name',
      'api-check.b name',
      'api-check.b degradedResponseTime',
      'api-check.b request.url',
    ]);
  });

  it('reports a reference to a construct from another project load', async () => {
    let group: CheckGroupV2 | undefined;
    await load(() => {
      group = new CheckGroupV2('api', { name: 'API' });
    });
    const project = await load(() => {
      new ApiCheck('home', { name: 'Home', request, group }); // @at:cross-load
    });
    expect(project.validate()).toEqual([
      {
        severity: 'error',
        message: '"group" refers to CheckGroupV2 "api", which was created by another project load',
        hint: "Constructs cannot be shared between loads: create it in this project's files instead of keeping it in module-level state across loads.",
        address: 'api-check.home',
        path: 'group',
        source: markerLocation(import.meta.url, 'cross-load'),
      },
    ]);
  });

  it('reports a reference to a construct that never registered (an Object.create look-alike)', async () => {
    const project = await load(() => {
      const group = new CheckGroupV2('api', { name: 'API' });
      new ApiCheck('home', { name: 'Home', request, group: Object.create(group) as CheckGroupV2 });
    });
    expect(problems(project)).toEqual([
      {
        severity: 'error',
        message: '"group" refers to CheckGroupV2 "api", which is not registered in this project',
        hint: 'Create the referenced construct with `new` in a file vigil loads.',
        address: 'api-check.home',
        path: 'group',
      },
    ]);
  });
});

describe('Project.validate with props far outside their types', () => {
  it('reports a construct whose props make it throw, and still reports the others', async () => {
    class Broken extends Construct {
      constructor(logicalId: string) {
        super('status-page-service', logicalId, {});
      }
      protected payloadSchema(): z.ZodType {
        return z.object({});
      }
      protected buildPayload(): Record<string, unknown> {
        throw new TypeError("Cannot read properties of null (reading 'name')");
      }
    }
    const project = await load(() => {
      new Broken('broken'); // @at:broken
      new StatusPageService('empty', { name: '' });
    });
    expect(project.validate()).toEqual([
      {
        severity: 'error',
        message: `Broken "broken" could not be validated: Cannot read properties of null (reading 'name')`,
        hint: 'Check its props against their documented types; if they are right, this is a bug in vigil.',
        address: 'status-page-service.broken',
        source: markerLocation(import.meta.url, 'broken'),
      },
      expect.objectContaining({ address: 'status-page-service.empty', message: '"name" is not allowed to be empty' }),
    ]);
  });

  it('reports a triggerIncident that is not an object through the schema', async () => {
    const project = await load(() => {
      new ApiCheck('home', { name: 'Home', request, triggerIncident: 'payments' as never });
    });
    expect(problems(project)).toEqual([
      { severity: 'error', address: 'api-check.home', path: 'triggerIncident', message: '"triggerIncident" must be of type object' },
    ]);
  });
});

describe('Project.synth', () => {
  it('refuses to synthesise a project with errors, as a bug of the caller', async () => {
    const project = await load(() => {
      new StatusPageService('a', { name: '' });
    });
    expect(() => project.synth()).toThrow(
      'cannot synthesise status-page-service.a: "name" is not allowed to be empty (this is a bug in vigil: Project.synth() must only be called after validate() reported no errors)',
    );
  });

  it('produces one spec per construct with address, kind, logical id and source', async () => {
    const project = await load(() => {
      new StatusPageService('payments', { name: 'Payments' }); // @at:spec
    });
    expect(project.synth()).toEqual([
      {
        address: 'status-page-service.payments',
        kind: 'status-page-service',
        logicalId: 'payments',
        payload: { name: 'Payments' },
        refs: [],
        source: markerLocation(import.meta.url, 'spec'),
        protect: false,
        secrets: [],
      },
    ]);
  });
});
