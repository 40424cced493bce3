/**
 * Remote text is untrusted: whatever a resource is called on the service, `vigil import` must write
 * code that loads and declares exactly that name, and nothing in the name may run. Hostile names
 * for every kind (line breaks that end comments, quotes, template syntax, terminal escapes, lone
 * surrogates, reserved words and device names) are imported, loaded through the real loader, and
 * synthesised; the payloads must hold the exact remote values.
 */
import { existsSync, mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { emptyState, loadProject, planImport, type Candidate } from '@vigil/engine';
import { AlertChannelCreate, ApiCheckCreate, CheckGroupCreate, MaintenanceWindowCreate, MultiStepCheckCreate, StatusPageServiceCreate } from '@vigil/schema';
import { afterEach, describe, expect, it } from 'vitest';
import { renderImportFiles } from './codegen.js';

const STATE = emptyState({ project: 'fuzz', target: { baseUrl: 'http://127.0.0.1:1', accountId: '' } });
const CONFIG = "import { defineConfig } from 'vigil';\nexport default defineConfig({ projectName: 'fuzz', logicalId: 'fuzz' });\n";
/** What the name from the issue writes, relative to the working directory, should it ever run. */
const MARKER = 'pwned.txt';
const SECRET_VALUE = 'from-the-environment';
const ran = () => existsSync(path.join(process.cwd(), MARKER)) || (globalThis as { vigilPwned?: unknown }).vigilPwned !== undefined;

/** Pieces that each break some naive way of writing text into code. */
const HOSTILE = [
  `\nglobalThis.vigilPwned=1;//`,
  `\rglobalThis.vigilPwned=1;//`,
  `\u2028globalThis.vigilPwned=1;//`,
  `\u2029globalThis.vigilPwned=1;//`,
  `*/ globalThis.vigilPwned=1; /*`,
  `'); globalThis.vigilPwned=1; ('`,
  '"',
  '`${globalThis.process.exit(9)}`',
  '\\',
  '\\u0041',
  '\u001b[2J\u001b[31mred',
  '\u202etxt.exe',
  '\u0000',
  '\ud800',
  '\udfff',
  '😀',
  '__proto__',
  'constructor',
  'con',
  'NUL',
  '../../etc/passwd',
  'C:\\Windows\\win.ini',
  '\t',
  '\r\n',
  '1st',
  'process',
  'Frequency',
];

/** A small deterministic generator, so a failure names its seed and can be replayed. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function hostileText(next: () => number): string {
  const parts = 1 + Math.floor(next() * 4);
  let text = '';
  for (let index = 0; index < parts; index += 1) text += HOSTILE[Math.floor(next() * HOSTILE.length)]!;
  return text;
}

const WINDOW = { startsAt: '2026-01-01T00:00:00.000Z', endsAt: '2026-01-01T02:00:00.000Z', repeatUnit: 'DAY' };

/** One candidate of every kind (and every alert-channel type), named and filled with `text()`. */
function candidates(text: () => string, seed: number): Candidate[] {
  const group = { ...CheckGroupCreate.parse({ name: text(), tags: [text()] }), id: 7 };
  const channel = (id: number, body: unknown) => ({ ...AlertChannelCreate.parse(body), id });
  const list: Array<Omit<Candidate, 'name'> & { name?: string }> = [
    { kind: 'check-group', remoteId: 7, remote: group },
    {
      kind: 'api-check',
      remoteId: `a-${seed}\n*/${text()}`,
      remote: {
        ...ApiCheckCreate.parse({
          name: text(),
          groupId: 7,
          tags: [text(), text()],
          request: {
            url: 'https://example.com/',
            headers: [{ key: text(), value: text() }],
            queryParameters: [{ key: text(), value: text() }],
            assertions: [{ source: 'HEADERS', property: text(), comparison: 'EQUALS', target: text() }, { source: 'TEXT_BODY', comparison: 'CONTAINS', target: text() }],
          },
          environmentVariables: [{ key: 'PLAIN', value: text() }],
        }),
        id: `a-${seed}\n*/${text()}`,
        frequencyOffset: 1,
      },
    },
    { kind: 'multistep-check', remoteId: `m-${seed}`, remote: { ...MultiStepCheckCreate.parse({ name: text(), script: `// ${text()}\nawait run(${JSON.stringify(text())});\r\n` }), id: `m-${seed}` } },
    { kind: 'alert-channel', remoteId: 1, remote: channel(1, { type: 'EMAIL', config: { address: `o'neil+${seed}@example.com` } }) },
    { kind: 'alert-channel', remoteId: 2, remote: channel(2, { type: 'WEBHOOK', config: { name: text(), url: 'https://hooks.example.com/', template: text(), headers: [{ key: text(), value: text() }] } }) },
    { kind: 'alert-channel', remoteId: 3, remote: channel(3, { type: 'SLACK', config: { url: 'https://hooks.slack.com/x', channel: text() } }) },
    { kind: 'alert-channel', remoteId: 4, remote: channel(4, { type: 'SMS', config: { name: text(), number: '+15550100' } }) },
    { kind: 'alert-channel', remoteId: 8, remote: channel(8, { type: 'CALL', config: { name: text(), number: '+15550101' } }) },
    { kind: 'alert-channel', remoteId: 9, remote: channel(9, { type: 'PAGERDUTY', config: { serviceKey: 'pd-key', account: text(), serviceName: text() } }) },
    { kind: 'alert-channel', remoteId: 10, remote: channel(10, { type: 'OPSGENIE', config: { name: text(), apiKey: 'og-key', region: 'EU', priority: 'P2' } }) },
    { kind: 'maintenance-window', remoteId: 5, remote: { ...MaintenanceWindowCreate.parse({ name: text(), tags: [text()], ...WINDOW }), id: 5 } },
    { kind: 'status-page-service', remoteId: 'svc', remote: { ...StatusPageServiceCreate.parse({ name: text() }), id: 'svc' } },
  ];
  return list.map((candidate) => {
    const remote = candidate.remote as Record<string, unknown>;
    const config = (remote.config ?? {}) as Record<string, unknown>;
    const name = typeof remote.name === 'string' ? remote.name : String(config.name ?? config.address ?? config.channel);
    return { ...candidate, name } as Candidate;
  });
}

/** Every string in a value, so the synthesised payload can be compared with the remote one. */
function strings(value: unknown, into: string[] = []): string[] {
  if (typeof value === 'string') into.push(value);
  else if (Array.isArray(value)) for (const item of value) strings(item, into);
  else if (value !== null && typeof value === 'object') for (const inner of Object.values(value)) strings(inner, into);
  return into;
}

const roots: string[] = [];
afterEach(() => {
  rmSync(path.join(process.cwd(), MARKER), { force: true });
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

async function importAndLoad(list: Candidate[]) {
  const plan = planImport({ candidates: list, state: STATE, projectAddresses: [], env: {}, existingFiles: [] });
  const root = mkdtempSync(path.join(os.tmpdir(), 'vigil-import-fuzz-'));
  roots.push(root);
  writeFileSync(path.join(root, 'vigil.config.ts'), CONFIG);
  mkdirSync(path.join(root, 'imported'));
  const files = renderImportFiles(plan);
  for (const file of files) writeFileSync(path.join(root, 'imported', file.name), file.text);
  // Secrets are read from the environment variables import lists; set them as a user would.
  for (const variable of plan.variables) process.env[variable.name] = SECRET_VALUE;
  try {
    const loaded = await loadProject({ cwd: root });
    return { plan, files, loaded };
  } finally {
    for (const variable of plan.variables) delete process.env[variable.name];
  }
}

describe('vigil import with hostile remote names', () => {
  it('writes the name from the issue into a comment it cannot leave', async () => {
    const name = "evil\nrequire('fs').writeFileSync('pwned.txt','x');//";
    const remote = { ...StatusPageServiceCreate.parse({ name }), id: 'svc' };
    const { files, loaded } = await importAndLoad([{ kind: 'status-page-service', remoteId: 'svc', remote, name }]);
    expect(files[0]!.text).toContain("// evil\\nrequire('fs').writeFileSync('pwned.txt','x');// (status-page-service svc)\n");
    expect(loaded.diagnostics).toEqual([]);
    expect(ran()).toBe(false);
    expect(loaded.specs.map((spec) => spec.payload.name)).toEqual([name]);
  });

  it.each([1, 2, 3, 4, 5, 6])('loads every kind under seed %i with the exact remote names and values', async (seed) => {
    const next = random(seed);
    const list = candidates(() => hostileText(next), seed);
    const { plan, files, loaded } = await importAndLoad(list);

    expect(loaded.diagnostics.filter((diagnostic) => diagnostic.severity === 'error')).toEqual([]);
    expect(ran()).toBe(false);
    for (const file of files) expect(path.basename(file.name)).toBe(file.name);
    for (const file of files) expect(file.name).toMatch(/^[a-z0-9-]+\.monitor\.ts$/);
    for (const file of files) expect(file.text).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e]/);

    const byAddress = new Map(loaded.specs.map((spec) => [spec.address, spec]));
    for (const resource of plan.resources) {
      const spec = byAddress.get(resource.address);
      expect(spec, resource.address).toBeDefined();
      const candidate = list.find((item) => item.kind === resource.kind && item.remoteId === resource.remoteId)!;
      const remote = candidate.remote as Record<string, unknown>;
      if (typeof remote.name === 'string') expect(spec!.payload.name).toBe(remote.name);
      // Every string the service holds for the resource comes back out of synth unchanged.
      const synthesised = new Set(strings(spec!.payload));
      const config = { ...((remote.config ?? {}) as Record<string, unknown>), serviceKey: undefined, apiKey: undefined };
      for (const value of strings(config).concat(strings(remote.request ?? {}), strings(remote.tags ?? []), strings(remote.environmentVariables ?? []))) {
        expect(synthesised.has(value), `${resource.address}: ${JSON.stringify(value)}`).toBe(true);
      }
      if (typeof remote.script === 'string') expect(spec!.payload.script).toBe(remote.script);
    }
  }, 30_000);
});
