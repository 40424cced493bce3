import type { ResourceSpec } from '@vigil/constructs';
import { ApiCheckCreate, CheckGroupCreate, MultiStepCheckCreate } from '@vigil/schema';
import { describe, expect, it } from 'vitest';
import { completeDesired, hideSecrets } from '../kinds/normalize.js';
import { adapterFor } from '../kinds/index.js';
import type { RemoteSnapshot } from '../refresh/refresh.js';
import { emptyState, type StateDocument, type StateResource } from '../state/index.js';
import { planSchema } from './format.js';
import { createPlan } from './plan.js';
import { renderMarkdown } from '../render/markdown.js';
import { renderText } from '../render/text.js';

const source = { file: 'monitors/a.monitor.ts', line: 3, column: 1 };

function spec(kind: ResourceSpec['kind'], logicalId: string, payload: Record<string, unknown>, extra: Partial<ResourceSpec> = {}): ResourceSpec {
  return { address: `${kind}.${logicalId}`, kind, logicalId, payload, refs: [], source, protect: false, secrets: [], ...extra };
}

const group = spec('check-group', 'web', CheckGroupCreate.parse({ name: 'Web' }));
const home = spec('api-check', 'home', { ...ApiCheckCreate.parse({ name: 'Home', request: { url: 'https://example.com' } }), groupId: { $ref: 'check-group.web' } }, {
  refs: [{ path: 'groupId', address: 'check-group.web' }],
});

/** State and remote as if `specs` had been applied with the given remote ids. */
function applied(specs: ResourceSpec[], ids: Record<string, string | number>, remoteEdits: Record<string, Record<string, unknown>> = {}) {
  const resources: Record<string, StateResource> = {};
  const remote = new Map<ResourceSpec['kind'], Map<string, Record<string, unknown>>>();
  const resolve = (value: unknown): unknown => {
    if (value && typeof value === 'object' && '$ref' in value) return ids[(value as { $ref: string }).$ref];
    if (Array.isArray(value)) return value.map(resolve);
    if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, resolve(v)]));
    return value;
  };
  for (const s of specs) {
    const sent = resolve(completeDesired(adapterFor(s.kind), s.payload)) as Record<string, unknown>;
    resources[s.address] = { kind: s.kind, remoteId: ids[s.address]!, applied: hideSecrets(sent, s.secrets), dependsOn: s.refs.map((r) => r.address) };
    const served: Record<string, unknown> = { ...sent, id: ids[s.address], created_at: "2026-11-22", ...remoteEdits[s.address] };
    for (const path of s.secrets) if (path === 'environmentVariables[0].value') (served.environmentVariables as Array<{ value: unknown }>)[0]!.value = null;
    if (!remote.has(s.kind)) remote.set(s.kind, new Map());
    remote.get(s.kind)!.set(String(ids[s.address]), served);
  }
  const state: StateDocument = { ...emptyState({ project: 'p', target: { baseUrl: 'test', accountId: 'a' } }), serial: 3, resources };
  return { state, remote: remote as RemoteSnapshot };
}

const base = { project: 'p', target: { baseUrl: 'test', accountId: 'a' } };
const IDS = { 'check-group.web': 12, 'api-check.home': 'c-1' };

describe('createPlan', () => {
  const cases: Array<{ name: string; prior: ReturnType<typeof applied>; desired: ResourceSpec[]; want: Array<[string, string, string]> }> = [
    { name: 'a new project creates everything', prior: { state: emptyState({ ...base.target, project: 'p', target: base.target }), remote: new Map() }, desired: [group, home], want: [['api-check.home', 'create', 'new'], ['check-group.web', 'create', 'new']] },
    { name: 'an applied project is unchanged', prior: applied([group, home], IDS), desired: [group, home], want: [['api-check.home', 'noop', 'unchanged'], ['check-group.web', 'noop', 'unchanged']] },
    {
      name: 'a code change is an update',
      prior: applied([group, home], IDS),
      desired: [spec('check-group', 'web', CheckGroupCreate.parse({ name: 'Web', concurrency: 5 })), home],
      want: [['api-check.home', 'noop', 'unchanged'], ['check-group.web', 'update', 'field-changed']],
    },
    { name: 'a remote edit is drift', prior: applied([group, home], IDS, { 'check-group.web': { muted: true } }), desired: [group, home], want: [['api-check.home', 'noop', 'unchanged'], ['check-group.web', 'update', 'drift']] },
    { name: 'a resource removed from code is deleted', prior: applied([group, home], IDS), desired: [group], want: [['api-check.home', 'delete', 'not-in-code'], ['check-group.web', 'noop', 'unchanged']] },
    {
      name: 'a resource deleted remotely is created again, and what refers to it is updated',
      prior: (() => {
        const prior = applied([group, home], IDS);
        (prior.remote as Map<string, Map<string, unknown>>).get('check-group')!.clear();
        return prior;
      })(),
      desired: [group, home],
      want: [['api-check.home', 'update', 'field-changed'], ['check-group.web', 'create', 'deleted-remotely']],
    },
    {
      name: 'a check whose kind changed is replaced',
      prior: applied([group, home], IDS),
      desired: [group, spec('multistep-check', 'home', MultiStepCheckCreate.parse({ name: 'Home', script: 'run()' }))],
      want: [['check-group.web', 'noop', 'unchanged'], ['multistep-check.home', 'replace', 'kind-changed']],
    },
  ];
  for (const { name, prior, desired, want } of cases) {
    it(name, () => {
      const { plan } = createPlan({ ...base, specs: desired, state: prior.state, remote: prior.remote });
      expect(plan.changes.map((change) => [change.address, change.action, change.reason])).toEqual(want);
      expect(planSchema.safeParse(JSON.parse(JSON.stringify(plan))).success).toBe(true);
    });
  }

  it('reports a protected resource that would be deleted', () => {
    const prior = applied([group], IDS);
    prior.state.resources['check-group.web']!.protect = true;
    const { plan } = createPlan({ ...base, specs: [], state: prior.state, remote: prior.remote });
    expect(plan.diagnostics).toEqual([
      expect.objectContaining({ severity: 'error', message: 'check-group.web is protected, but this plan would delete it', address: 'check-group.web' }),
    ]);
  });

  it('limits a plan to a target and what it depends on', () => {
    const other = spec('check-group', 'other', CheckGroupCreate.parse({ name: 'Other' }));
    const { plan } = createPlan({ ...base, specs: [group, home, other], state: emptyState({ project: 'p', target: base.target }), remote: new Map(), targets: ['api-check.home'] });
    expect(plan.changes.map((change) => change.address)).toEqual(['api-check.home', 'check-group.web']);
  });

  it('names an unknown target', () => {
    const { plan } = createPlan({ ...base, specs: [group], state: emptyState({ project: 'p', target: base.target }), remote: new Map(), targets: ['api-check.nope'] });
    expect(plan.diagnostics.map((d) => d.message)).toEqual(['--target api-check.nope matches no resource in the code or the state']);
  });

  it('never puts a secret value in the plan', () => {
    const flow = spec('multistep-check', 'flow', MultiStepCheckCreate.parse({ name: 'Flow', script: 'x()', environmentVariables: [{ key: 'TOKEN', value: 'hunter2', secret: true }] }), {
      secrets: ['environmentVariables[0].value'],
    });
    const changed = spec('multistep-check', 'flow', MultiStepCheckCreate.parse({ name: 'Flow', script: 'x()', environmentVariables: [{ key: 'TOKEN', value: 'hunter3', secret: true }] }), {
      secrets: ['environmentVariables[0].value'],
    });
    const created = createPlan({ ...base, specs: [flow], state: emptyState({ project: 'p', target: base.target }), remote: new Map() }).plan;
    const updated = createPlan({ ...base, specs: [changed], ...applied([flow], { 'multistep-check.flow': 'f-1' }) }).plan;
    for (const plan of [created, updated]) {
      const text = JSON.stringify(plan) + renderText(plan, { color: false }) + renderMarkdown(plan);
      expect(text).not.toContain('hunter');
      expect(text).toContain('(sensitive)');
    }
    expect(updated.changes[0]!.diff).toEqual([{ path: 'environmentVariables[0].value', before: '(sensitive)', after: '(sensitive)' }]);
  });
});

describe('rendered plans', () => {
  const prior = applied([group, home], IDS, { 'check-group.web': { muted: true } });
  const desired = [spec('check-group', 'web', CheckGroupCreate.parse({ name: 'Web', tags: ['prod'] })), spec('check-group', 'new', CheckGroupCreate.parse({ name: 'New' }))];
  const { plan } = createPlan({ ...base, specs: desired, state: prior.state, remote: prior.remote });

  it('reads like Terraform as text', () => {
    expect(renderText(plan, { color: false })).toMatchSnapshot();
  });
  it('collapses per resource as markdown', () => {
    expect(renderMarkdown(plan)).toMatchSnapshot();
  });
  it('says so when there is nothing to do', () => {
    const noop = createPlan({ ...base, specs: [group, home], ...applied([group, home], IDS) }).plan;
    expect(renderText(noop, { color: false })).toBe('No changes. Your monitoring matches the code.\n');
  });
});

describe('a resource replaced in place', () => {
  it('is replaced, and what refers to it is updated to the new id', async () => {
    const { AlertChannelCreate } = await import('@vigil/schema');
    const email = spec('alert-channel', 'oncall', AlertChannelCreate.parse({ type: 'EMAIL', config: { address: 'a@example.com' } }));
    const grouped = spec('check-group', 'web', { ...CheckGroupCreate.parse({ name: 'Web' }), alertChannelSubscriptions: [{ alertChannelId: { $ref: 'alert-channel.oncall' }, activated: true }] }, {
      refs: [{ path: 'alertChannelSubscriptions[0].alertChannelId', address: 'alert-channel.oncall' }],
    });
    const prior = applied([email, grouped], { 'alert-channel.oncall': 4, 'check-group.web': 12 });
    const slack = spec('alert-channel', 'oncall', AlertChannelCreate.parse({ type: 'SLACK', config: { url: 'https://hooks.example.com/x' } }));
    const { plan } = createPlan({ ...base, specs: [slack, grouped], state: prior.state, remote: prior.remote });
    expect(plan.changes.map((change) => [change.address, change.action])).toEqual([
      ['alert-channel.oncall', 'replace'],
      ['check-group.web', 'update'],
    ]);
  });
});

describe('lists in an update', () => {
  const assertion = (target: string) => ({ source: 'STATUS_CODE', comparison: 'EQUALS', property: '', target, regex: null });
  const check = (assertions: unknown[], headers: unknown[] = [], tags: string[] = []) =>
    spec('api-check', 'home', ApiCheckCreate.parse({ name: 'Home', tags, request: { url: 'https://example.com', assertions, headers } }));
  const nine = Array.from({ length: 9 }, (_, index) => assertion(String(200 + index)));
  const planOf = (desired: ResourceSpec, prior: ReturnType<typeof applied>) => createPlan({ ...base, specs: [desired], state: prior.state, remote: prior.remote }).plan;

  it('shows an inserted assertion as one insertion, in text, markdown and JSON', () => {
    const inserted = [...nine.slice(0, 2), assertion('418'), ...nine.slice(2)];
    const plan = planOf(check(inserted), applied([check(nine)], { 'api-check.home': 'c-1' }));
    expect(plan.changes[0]!.diff).toEqual([{ path: 'request.assertions[2]', before: undefined, after: assertion('418') }]);
    expect(JSON.parse(JSON.stringify(plan)).changes[0].diff).toEqual([{ path: 'request.assertions[2]', after: assertion('418') }]);
    expect(renderText(plan, { color: false })).toContain('      + request.assertions[2] = {"source":"STATUS_CODE","comparison":"EQUALS","property":"","target":"418","regex":null}\n');
    expect(renderMarkdown(plan)).toContain('+ request.assertions[2] = {"source":"STATUS_CODE","comparison":"EQUALS","property":"","target":"418","regex":null}\n');
  });

  it('shows a removed header and an added tag as such, and a remote-only header as drift', () => {
    const header = (key: string) => ({ key, value: 'v', locked: false });
    const prior = applied([check(nine, [header('A'), header('B')], ['api'])], { 'api-check.home': 'c-1' });
    const served = prior.remote.get('api-check')!.get('c-1')! as { request: { headers: unknown[] } };
    served.request = { ...served.request, headers: [header('A'), header('B'), header('Z')] };
    const plan = planOf(check(nine, [header('B')], ['api', 'prod']), prior);
    expect(plan.changes[0]!.diff).toEqual([
      { path: 'request.headers[0]', before: header('A'), after: undefined },
      { path: 'tags[1]', before: undefined, after: 'prod' },
    ]);
    expect(plan.changes[0]!.drift).toEqual([{ path: 'request.headers[2]', before: header('Z'), after: undefined }]);
    expect(renderText(plan, { color: false })).toMatchSnapshot();
    expect(renderMarkdown(plan)).toMatchSnapshot();
  });

  it('reads as the example in docs/cli.md', () => {
    const header = (key: string, value: string) => ({ key, value, locked: false });
    const json = { source: 'JSON_BODY', comparison: 'EQUALS', property: '$.ok', target: 'true', regex: null };
    const prior = applied([check([assertion('200')], [header('Accept', '*/*'), header('User-Agent', 'vigil')], ['api'])], { 'api-check.home': '2f4c' });
    const plan = planOf(check([assertion('200'), json], [header('User-Agent', 'vigil/2')], ['api', 'prod']), prior);
    expect(renderText(plan, { color: false })).toContain(
      [
        '      + request.assertions[1]    = {"source":"JSON_BODY","comparison":"EQUALS","property":"$.ok","target":"true","regex":null}',
        '      - request.headers[0]       = {"key":"Accept","value":"*/*","locked":false}',
        '      ~ request.headers[0].value = "vigil" → "vigil/2"',
        '      + tags[1]                  = "prod"',
      ].join('\n'),
    );
  });

  it('is empty once the inserted element is applied', () => {
    const inserted = [assertion('418'), ...nine];
    expect(planOf(check(inserted), applied([check(inserted)], { 'api-check.home': 'c-1' })).changes[0]!.action).toBe('noop');
  });
});

describe('a secret environment variable after an inserted one', () => {
  it('is matched by key, so only the insertion shows', () => {
    const token = { key: 'TOKEN', value: 'hunter2', secret: true };
    const before = spec('multistep-check', 'flow', MultiStepCheckCreate.parse({ name: 'Flow', script: 'x()', environmentVariables: [token] }), {
      secrets: ['environmentVariables[0].value'],
    });
    const after = spec('multistep-check', 'flow', MultiStepCheckCreate.parse({ name: 'Flow', script: 'x()', environmentVariables: [{ key: 'REGION', value: 'eu' }, token] }), {
      secrets: ['environmentVariables[1].value'],
    });
    const { plan } = createPlan({ ...base, specs: [after], ...applied([before], { 'multistep-check.flow': 'f-1' }) });
    expect(plan.changes[0]!.diff).toEqual([{ path: 'environmentVariables[0]', before: undefined, after: { key: 'REGION', value: 'eu', locked: false, secret: false } }]);
    expect(plan.changes[0]!.drift).toEqual([]);
  });
});
