/**
 * Multi-step, browser and Playwright runs cannot use Node's permission model (Playwright starts
 * workers and a browser), so where the service runs as root they run in bubblewrap's namespaces as
 * a uid of their own: a spec's Node code sees none of the service's files or processes. CI runs as
 * root with bubblewrap (.ci/run), so there this is required; elsewhere it runs when the machine allows.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { multiStepExecutor } from '../executors/multi-step.js';
import { createRunner } from '../runner.js';
import { sandboxSupport } from '../scripts/sandbox.js';
import type { MultiStepCheckResult } from './result.js';

const support = sandboxSupport();
const serviceData = mkdtempSync(path.join(os.tmpdir(), 'vigil-service-data-'));
writeFileSync(path.join(serviceData, 'vigil.db'), 'every tenant\'s secrets');
const runner = createRunner({ executors: [multiStepExecutor], multiStepTimeoutMs: 60_000 });

afterAll(async () => {
  await runner.close();
  rmSync(serviceData, { recursive: true, force: true });
});

describe('a multi-step spec where the service runs as root', () => {
  it.runIf(process.env.CI === 'true' && process.getuid?.() === 0)('runs in the sandbox in CI', () => {
    expect(support.bubblewrap).not.toBeNull();
  });

  it.runIf(support.bubblewrap !== null)("runs as a uid of its own and sees neither the service's files nor its processes", { timeout: 120_000 }, async () => {
    const spec = [
      "const { test } = require('@playwright/test');",
      "const fs = require('node:fs');",
      "const probe = (name, action) => { try { console.log(name + ': ' + String(action())); } catch (error) { console.log(name + ': ' + error.code); } };",
      "test('probe', async () => {",
      "  probe('uid', () => process.getuid() >= 2100000000);",
      `  probe('database', () => fs.readFileSync(${JSON.stringify(path.join(serviceData, 'vigil.db'))}, 'utf8'));`,
      "  probe('root home', () => fs.readdirSync('/root').length);",
      "  probe('processes', () => fs.readdirSync('/proc').filter((name) => /^\\d+$/.test(name)).every((pid) => !fs.readFileSync('/proc/' + pid + '/cmdline', 'utf8').includes('vitest')));",
      '});',
    ].join('\n');
    const { final } = await runner.run({ checkType: 'MULTI_STEP', name: 'probe', script: spec, retryStrategy: null, doubleCheck: false }, { location: 'local', variables: [] });
    expect(final.error).toBeNull();
    const result = final.multiStepCheckResult as MultiStepCheckResult;
    expect(result.jobLog.map((line) => line.msg)).toEqual(['uid: true', 'database: ENOENT', 'root home: ENOENT', 'processes: true']);
  });
});
