/**
 * `vigil test` when user code misbehaves: a setup script that loops forever or throws, and a
 * multi-step spec that never finishes. Each fails its own run only; a healthy check beside them
 * passes as fast as it would alone.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { vigil } from '../support/cli.js';

let target: Server;
let project: string;

beforeAll(async () => {
  target = createServer((_request, response) => response.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}'));
  await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
  project = await mkdtemp(path.join(tmpdir(), 'vigil-test-faults-'));
  await mkdir(path.join(project, 'checks'), { recursive: true });
  await writeFile(path.join(project, 'vigil.config.ts'), "import { defineConfig } from 'vigil';\nexport default defineConfig({ projectName: 'Faults', logicalId: 'faults' });\n");
  await writeFile(path.join(project, 'checks', 'sign.ts'), "const token = process.env.TOKEN;\nif (!token) throw new Error('TOKEN is not set');\n");
  await writeFile(
    path.join(project, 'checks', 'faults.monitor.ts'),
    `import { ApiCheck, AssertionBuilder, MultiStepCheck, RetryStrategyBuilder } from 'vigil/constructs';
const noRetries = RetryStrategyBuilder.noRetries();
new ApiCheck('fine', { name: 'Fine', retryStrategy: noRetries, request: { url: '${base}/fine', assertions: [AssertionBuilder.statusCode().equals(200)] } });
new ApiCheck('loops', { name: 'Looping setup', retryStrategy: noRetries, setupScript: { content: 'while (true) {}' }, request: { url: '${base}/loops' } });
new ApiCheck('throws', { name: 'Throwing setup', retryStrategy: noRetries, setupScript: { entrypoint: './sign.ts' }, request: { url: '${base}/throws' } });
new MultiStepCheck('stuck', {
  name: 'Stuck flow',
  retryStrategy: noRetries,
  code: { content: "import { test } from '@playwright/test';\\ntest('never ends', async () => { await new Promise(() => {}); });\\n" },
});
`,
  );
});

afterAll(async () => {
  target.closeAllConnections();
  await new Promise((resolve) => target.close(resolve));
  await rm(project, { recursive: true, force: true });
});

describe('vigil test with misbehaving user code', () => {
  it('fails only the runs whose code misbehaves, each with its reason, and keeps the others fast', async () => {
    const result = await vigil(['test', '--reporter', 'json', '--timeout', '40'], { cwd: project });
    const document = JSON.parse(result.stdout);
    const byId = Object.fromEntries(document.results.map((item: { logicalId: string }) => [item.logicalId, item])) as Record<
      string,
      { passed: boolean; error: string | null; responseTime: number | null }
    >;
    expect(byId.fine).toMatchObject({ passed: true, error: null });
    expect(byId.loops!.passed).toBe(false);
    expect(byId.loops!.error).toMatch(/^setup script failed: it did not finish within 10(000 ms| s)/);
    expect(byId.throws!.passed).toBe(false);
    expect(byId.throws!.error).toContain('TOKEN is not set');
    expect(byId.throws!.error).toContain('checks/sign.ts:2');
    expect(byId.stuck!.passed).toBe(false);
    expect(result.code).toBe(1);
  }, 120_000);
});
