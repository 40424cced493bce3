/**
 * AgenticCheck in a Checkly project: vigil validate, plan and test refuse it at the line that
 * creates it, naming why, and nothing reaches the service.
 */
import { rm } from 'node:fs/promises';
import { startServer, type RunningServer } from '@vigil/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getJson, targetEnv, vigil, writeProject } from '../../support/cli.js';

let server: RunningServer;

beforeAll(async () => {
  server = await startServer({ port: 0, dataDir: ':memory:' });
});

afterAll(async () => {
  await server.close();
});

const CONFIG = "import { defineConfig } from 'checkly';\n\nexport default defineConfig({ projectName: 'Agents', logicalId: 'agents', checks: { checkMatch: '**/*.check.ts' } });\n";

const CHECKS = `import { AgenticCheck, Frequency, TcpMonitor } from 'checkly/constructs';

new TcpMonitor('db', { name: 'Database', request: { hostname: '127.0.0.1', port: 5432 } });
new AgenticCheck('homepage-agent', {
  name: 'Homepage works',
  prompt: 'Open the homepage, add an item to the cart and check the total',
  frequency: Frequency.EVERY_30M,
});
`;

const REFUSAL = [
  `__checks__/agent.check.ts:4:1  error  AgenticCheck "homepage-agent" cannot run in vigil: an agentic check is a prompt carried out by Checkly's hosted AI agent, which vigil does not have`,
  '  hint: Keep this check in Checkly (remove it from this project), or write what the prompt verifies as a BrowserCheck, MultiStepCheck or PlaywrightCheck.',
];

describe('AgenticCheck', () => {
  it('is refused at its file:line by validate, plan and test, and nothing is created', async () => {
    const root = await writeProject('vigil-agentic-', { 'checkly.config.ts': CONFIG, '__checks__/agent.check.ts': CHECKS });
    const run = (args: string[]) => vigil(args, { cwd: root, env: targetEnv(server.url) });
    try {
      const validate = await run(['validate']);
      expect(validate.stdout.trim().split('\n')).toEqual([...REFUSAL, '1 error']);
      expect(validate.code).toBe(1);
      for (const command of [['plan'], ['test']]) {
        const result = await run(command);
        expect(result.code).toBe(1);
        expect(`${result.stdout}${result.stderr}`).toContain(REFUSAL.join('\n'));
      }
      expect(await getJson<unknown[]>(server.url, '/v1/checks')).toEqual([]);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  }, 90_000);
});
