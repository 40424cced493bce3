/**
 * No secret value leaves the user's code: a project with every kind of secret (secret environment
 * variables of a multi-step check and a group, a basic-auth password, PagerDuty / Opsgenie /
 * webhook keys) goes through every command that prints or writes something — synth, plan in each
 * format, a saved plan, apply, a changed-secret plan and apply, state, import — and a scan of every
 * output and every file under the project (except the monitor sources the secrets are written in)
 * finds none of the secret values.
 */
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startServer, type RunningServer } from '@vigil/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { targetEnv, vigil, type VigilResult } from '../support/cli.js';

/** Two generations of secrets: the second replaces the first in code, so both old and new are watched. */
const secretsOf = (generation: number) => ({
  // Characters every encoding spells differently, so an encoded or escaped copy is told apart.
  envVar: `Env "secret"/${generation}-7f3a9c1e`,
  groupEnvVar: `Group secret+${generation}/2b8d4f60`,
  password: `basic-pass-${generation}-c0ffee99`,
  pagerDuty: `pd-service-key-${generation}-91ab3c`,
  opsgenie: `og-api-key-${generation}-44de5f`,
  webhook: `wh-secret-${generation}-a1b2c3`,
});
const ALL_SECRETS = [...Object.values(secretsOf(1)), ...Object.values(secretsOf(2))];

const SOURCE_FILES = new Set(['vigil.config.ts', path.join('monitors', 'secrets.monitor.ts')]);

let root: string;
let serviceDir: string;
let server: RunningServer;
const outputs: Array<{ command: string; text: string }> = [];

function monitor(generation: number): string {
  const s = secretsOf(generation);
  return [
    "import { ApiCheck, CheckGroup, MultiStepCheck, PagerdutyAlertChannel, OpsgenieAlertChannel, WebhookAlertChannel } from 'vigil/constructs';",
    `const pager = new PagerdutyAlertChannel('pager', { serviceKey: '${s.pagerDuty}', serviceName: 'Payments' });`,
    `const genie = new OpsgenieAlertChannel('genie', { name: 'Genie', apiKey: '${s.opsgenie}', region: 'EU', priority: 'P2' });`,
    `const hook = new WebhookAlertChannel('hook', { name: 'Hook', url: 'https://hooks.example.com/x', method: 'POST', webhookSecret: '${s.webhook}' });`,
    `const group = new CheckGroup('secure', { name: 'Secure', environmentVariables: [{ key: 'GROUP_TOKEN', value: '${s.groupEnvVar}', secret: true }] });`,
    "new ApiCheck('login', {",
    "  name: 'Login', group, alertChannels: [pager, genie, hook],",
    `  request: { url: 'https://example.com/login', basicAuth: { username: 'robot', password: '${s.password}' } },`,
    '});',
    "new MultiStepCheck('checkout', {",
    "  name: 'Checkout', alertChannels: [pager],",
    "  code: { content: 'export default async () => { await fetch(process.env.API_URL) }' },",
    `  environmentVariables: [{ key: 'API_TOKEN', value: '${s.envVar}', secret: true }, { key: 'API_URL', value: 'https://api.example.com' }],`,
    '});',
    '',
  ].join('\n');
}

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'vigil-secrets-'));
  // The service stores secrets by design (it must send them); its database lives outside the project.
  serviceDir = await mkdtemp(path.join(tmpdir(), 'vigil-secrets-service-'));
  server = await startServer({ port: 0, dataDir: serviceDir, requestLog: path.join(root, 'service-requests.log') });
  await writeFile(path.join(root, 'vigil.config.ts'), "import { defineConfig } from 'vigil';\nexport default defineConfig({ projectName: 'vault', logicalId: 'vault' });\n");
  await mkdir(path.join(root, 'monitors'));
  await writeFile(path.join(root, 'monitors', 'secrets.monitor.ts'), monitor(1));
});

afterAll(async () => {
  await server.close();
  await rm(root, { recursive: true, force: true });
  await rm(serviceDir, { recursive: true, force: true });
});

async function run(args: string[], options: { cwd?: string; expectCode?: number } = {}): Promise<VigilResult> {
  const result = await vigil(args, { cwd: options.cwd ?? root, env: targetEnv(server.url) });
  outputs.push({ command: `vigil ${args.join(' ')}`, text: `${result.stdout}\n${result.stderr}` });
  expect(result.code, `vigil ${args.join(' ')}: ${result.stderr}`).toBe(options.expectCode ?? 0);
  return result;
}

async function filesUnder(dir: string, base = dir): Promise<string[]> {
  const files: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) files.push(...(await filesUnder(full, base)));
    else files.push(path.relative(base, full));
  }
  return files;
}

/** A secret as it may be written out: raw, percent- or form-encoded, JSON-escaped, lower-cased. */
function spellings(secret: string): string[] {
  return [...new Set([secret, encodeURIComponent(secret), new URLSearchParams({ s: secret }).toString().slice(2), JSON.stringify(secret).slice(1, -1), secret.toLowerCase()])];
}

/** Every place a secret value was found in any of its spellings, as "where: spelling". */
function leaks(where: string, text: string): string[] {
  return ALL_SECRETS.flatMap((secret) => spellings(secret).filter((form) => text.includes(form)).map((form) => `${where}: ${form}`));
}

describe('a project full of secrets, through every command', () => {
  it('runs synth, plan (text, markdown, json, --out), apply, a changed-secret plan and apply, state and import', async () => {
    await run(['synth']);
    const synth = await run(['synth', '--json']);
    // The secrets are really there to leak: the synth graph names each secret field.
    expect(synth.stdout).toContain('API_TOKEN');
    await run(['plan']);
    await run(['plan', '--format', 'markdown']);
    await run(['plan', '--json']);
    await run(['plan', '--out', 'plan.json']);
    await run(['apply', '--auto-approve', 'plan.json']);
    await run(['plan', '--detailed-exitcode']);

    await writeFile(path.join(root, 'monitors', 'secrets.monitor.ts'), monitor(2));
    const changed = await run(['plan', '--detailed-exitcode'], { expectCode: 2 });
    expect(changed.stdout).toContain('(sensitive)');
    await run(['plan', '--out', 'plan-2.json']);
    await run(['apply', '--auto-approve', 'plan-2.json']);

    const list = await run(['state', 'list', '--json']);
    const addresses = (JSON.parse(list.stdout) as Array<{ address: string }>).map((item) => item.address);
    expect(addresses).toHaveLength(6);
    for (const address of addresses) await run(['state', 'show', address]);
    await run(['state', 'list']);

    // Import from a second, empty project on the same account: everything is adoptable there.
    const importer = path.join(root, 'importer');
    await mkdir(importer);
    await writeFile(path.join(importer, 'vigil.config.ts'), "import { defineConfig } from 'vigil';\nexport default defineConfig({ projectName: 'adopt', logicalId: 'adopt' });\n");
    const dryRun = await run(['import', '--dry-run'], { cwd: importer });
    expect(dryRun.stdout).toContain('Login');
    await run(['import'], { cwd: importer });

    // The scanner finds what it looks for: the sources hold the six current secrets.
    expect(leaks('source', await readFile(path.join(root, 'monitors', 'secrets.monitor.ts'), 'utf8'))).toHaveLength(6);
    const outputLeaks = outputs.flatMap(({ command, text }) => leaks(command, text));
    const fileLeaks: string[] = [];
    const scanned: string[] = [];
    for (const file of await filesUnder(root)) {
      if (SOURCE_FILES.has(file)) continue;
      scanned.push(file);
      fileLeaks.push(...leaks(file, await readFile(path.join(root, file), 'latin1')));
    }
    expect(scanned).toEqual(expect.arrayContaining([path.join('.vigil', 'state.json'), 'plan.json', 'plan-2.json', 'service-requests.log']));
    expect(scanned.some((file) => file.startsWith(`importer${path.sep}`) && file.endsWith('.ts') && file !== path.join('importer', 'vigil.config.ts'))).toBe(true);
    expect([...outputLeaks, ...fileLeaks]).toEqual([]);
  }, 240_000);

  it('keeps secrets out of the error output of an apply that fails against a faulty service', async () => {
    const faultyDir = await mkdtemp(path.join(tmpdir(), 'vigil-secrets-faulty-'));
    const faulty = await startServer({ port: 0, dataDir: faultyDir, faults: 'error=0.5,drop=0.3,seed=7' });
    const project = path.join(root, 'faulty');
    try {
      await mkdir(path.join(project, 'monitors'), { recursive: true });
      await writeFile(path.join(project, 'vigil.config.ts'), "import { defineConfig } from 'vigil';\nexport default defineConfig({ projectName: 'faulty', logicalId: 'faulty' });\n");
      await writeFile(path.join(project, 'monitors', 'secrets.monitor.ts'), monitor(1));
      const texts: string[] = [];
      for (let attempt = 0; attempt < 3; attempt += 1) {
        const result = await vigil(['apply', '--auto-approve'], { cwd: project, env: targetEnv(faulty.url, { VIGIL_ACCOUNT_ID: 'local' }) });
        texts.push(result.stdout, result.stderr);
      }
      // The faults really bit: an apply failed, in its creates or (the service's identity and the
      // refresh come first) before them; either way its error output is what is searched for leaks.
      expect(texts.join('\n')).toMatch(/Apply failed with \d+ error|^Error: /m);
      const found = texts.flatMap((text, i) => leaks(`apply #${Math.floor(i / 2) + 1}`, text));
      for (const file of await filesUnder(project)) {
        if (file === path.join('monitors', 'secrets.monitor.ts')) continue;
        found.push(...leaks(file, await readFile(path.join(project, file), 'latin1')));
      }
      expect(found).toEqual([]);
    } finally {
      await faulty.close();
      await rm(faultyDir, { recursive: true, force: true });
    }
  }, 120_000);
});
