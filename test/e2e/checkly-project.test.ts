import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runVigil } from './cli-process.js';

/** A Checkly CLI project as `npm create checkly` lays it out, byte for byte what a user has. */
const CHECKLY_CONFIG = `import { defineConfig } from 'checkly'

const config = defineConfig({
  projectName: 'Website Monitoring',
  logicalId: 'website-monitoring-1',
  checks: {
    frequency: 10,
    locations: ['us-east-1', 'eu-west-1'],
    tags: ['website', 'api'],
    checkMatch: '**/*.check.ts',
  },
})

export default config
`;

const API_CHECK = `import { ApiCheck, AssertionBuilder } from 'checkly/constructs'

new ApiCheck('books-api-check-1', {
  name: 'Books API',
  degradedResponseTime: 10000,
  maxResponseTime: 20000,
  request: {
    url: 'https://danube-web.shop/api/books',
    method: 'GET',
    followRedirects: true,
    skipSSL: false,
    assertions: [
      AssertionBuilder.statusCode().equals(200),
      AssertionBuilder.jsonBody('$[0].id').isNotNull(),
    ],
  },
})
`;

const roots: string[] = [];

function project(files: Record<string, string>): string {
  const root = mkdtempSync(path.join(os.tmpdir(), 'vigil-checkly-project-'));
  roots.push(root);
  for (const [file, contents] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), contents);
  }
  return root;
}

afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

describe('vigil validate in a Checkly project', () => {
  it('loads checkly.config.ts and its *.check.ts files with no edit', async () => {
    const root = project({ 'checkly.config.ts': CHECKLY_CONFIG, '__checks__/api.check.ts': API_CHECK });
    const run = await runVigil(['validate'], { cwd: path.join(root, '__checks__') });
    expect(run.stderr).toBe('');
    expect(run.stdout.trim().split('\n')).toEqual(['✔ 1 resource valid']);
    expect(run.code).toBe(0);
  });

  it('names each construct vigil does not support yet at its import', async () => {
    const root = project({
      'checkly.config.ts': CHECKLY_CONFIG,
      '__checks__/api.check.ts': API_CHECK,
      '__checks__/ping.check.ts': `import { AlertChannelSubscription } from 'checkly/constructs'

new AlertChannelSubscription('ping-1', { name: 'Ping', request: { hostname: 'danube-web.shop' } })
`,
    });
    const run = await runVigil(['validate'], { cwd: root });
    expect(run.stdout.trim().split('\n')).toEqual([
      '__checks__/ping.check.ts:1:10  error  "AlertChannelSubscription" is not supported by vigil yet',
      '  hint: "checkly/constructs" in vigil has no AlertChannelSubscription; remove it from this file (or keep it in Checkly). docs/migrating-from-checkly.md lists what vigil supports.',
      '1 error',
    ]);
    expect(run.code).toBe(1);
  });
});
