/**
 * `protect: true` is remembered in state: deleting the construct from code does not delete the
 * resource. Plans that would delete or replace it fail until `vigil state unprotect ADDR`, or until
 * the construct is applied with `protect: false`; destroy refuses it all along.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startServer, type RunningServer } from '@vigil/server';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { targetEnv, vigil } from '../support/cli.js';

let root: string;
let server: RunningServer;

beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'vigil-e2e-protect-'));
  server = await startServer({ port: 0, dataDir: ':memory:' });
  await writeFile(path.join(root, 'vigil.config.ts'), "import { defineConfig } from 'vigil';\nexport default defineConfig({ projectName: 'shop', logicalId: 'shop' });\n");
  await mkdir(path.join(root, 'monitors'));
  await writeFile(path.join(root, 'monitors', 'other.monitor.ts'), "import { StatusPageService } from 'vigil/constructs';\nnew StatusPageService('search', { name: 'Search' });\n");
});

afterEach(async () => {
  await server.close();
  await rm(root, { recursive: true, force: true });
});

const run = (args: string[]) => vigil(args, { cwd: root, env: targetEnv(server.url, { VIGIL_ACCOUNT_ID: 'local' }) });
const payments = (protect: boolean | undefined) =>
  writeFile(
    path.join(root, 'monitors', 'payments.monitor.ts'),
    `import { StatusPageService } from 'vigil/constructs';\nnew StatusPageService('payments', { name: 'Payments'${protect === undefined ? '' : `, protect: ${protect}`} });\n`,
  );
const removePayments = () => rm(path.join(root, 'monitors', 'payments.monitor.ts'));
const storedProtect = async () =>
  (JSON.parse(await readFile(path.join(root, '.vigil', 'state.json'), 'utf8')) as { resources: Record<string, { protect?: boolean }> }).resources['status-page-service.payments']?.protect;

async function servicesOnServer(): Promise<string[]> {
  const response = await fetch(`${server.url}/v1/status-pages/services`, { headers: { authorization: 'Bearer vigil-local' } });
  return ((await response.json()) as { entries: Array<{ name: string }> }).entries.map((service) => service.name).sort();
}

const REFUSED =
  'error  status-page-service.payments is protected, but this plan would delete it  (status-page-service.payments)\n' +
  '  hint: It was protected when last applied and is no longer in code: run `vigil state unprotect status-page-service.payments` if it really should go, or restore its construct.\n';

describe('a protected resource removed from code', () => {
  it('is not deleted by plan, apply or destroy until vigil state unprotect lifts the protection', async () => {
    await payments(true);
    expect((await run(['apply', '--auto-approve'])).code).toBe(0);
    expect(await storedProtect()).toBe(true);

    await removePayments();
    for (const command of [['plan'], ['apply', '--auto-approve'], ['destroy', '--auto-approve']]) {
      const refused = await run(command);
      expect(refused.stderr, command.join(' ')).toContain(REFUSED);
      expect(refused.code).toBe(1);
    }
    expect(await servicesOnServer()).toEqual(['Payments', 'Search']);

    const unprotected = await run(['state', 'unprotect', 'status-page-service.payments']);
    expect(unprotected.stdout).toBe(
      'status-page-service.payments is no longer protected in .vigil/state.json: a plan may now delete or replace it. ' +
        'If its construct still says protect: true, plans keep refusing, and the next apply protects it again.\n',
    );
    expect(unprotected.code).toBe(0);
    const again = await run(['state', 'unprotect', 'status-page-service.payments']);
    expect(again.stderr).toBe('Error: status-page-service.payments is not protected in .vigil/state.json; nothing to do\n');
    expect(again.code).toBe(1);

    const applied = await run(['apply', '--auto-approve']);
    expect(applied.stdout).toContain('Apply complete! Resources: 0 added, 0 changed, 1 destroyed.');
    expect(await servicesOnServer()).toEqual(['Search']);
  }, 180_000);

  it('is deleted once its construct was applied with protect: false first, even though nothing else changed', async () => {
    await payments(true);
    expect((await run(['apply', '--auto-approve'])).code).toBe(0);
    await payments(false);
    const lifted = await run(['apply', '--auto-approve']);
    expect(lifted.code).toBe(0);
    expect(await storedProtect()).toBeUndefined();

    await removePayments();
    const applied = await run(['apply', '--auto-approve']);
    expect(applied.stderr).toBe('');
    expect(applied.stdout).toContain('Apply complete! Resources: 0 added, 0 changed, 1 destroyed.');
  }, 180_000);

  it('is protected by an apply that only adds protect: true', async () => {
    await payments(undefined);
    expect((await run(['apply', '--auto-approve'])).code).toBe(0);
    expect(await storedProtect()).toBeUndefined();
    await payments(true);
    expect((await run(['apply', '--auto-approve'])).code).toBe(0);
    expect(await storedProtect()).toBe(true);
    await removePayments();
    const refused = await run(['plan']);
    expect(refused.stderr).toContain(REFUSED);
    expect(refused.code).toBe(1);
  }, 180_000);
});
