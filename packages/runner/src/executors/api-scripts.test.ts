import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, startTarget, type Target } from '../__fixtures__/targets.js';
import { createRunner } from '../runner.js';
import type { RunContext, WireCheck } from '../types.js';

const runner = createRunner({ scriptPoolSize: 1, scriptTimeoutMs: 2_000 });
const context: RunContext = { location: 'eu-west-1', variables: [{ key: 'API_KEY', value: 'k-123', secret: true }], retries: 0 };
let target: Target;

beforeAll(async () => {
  target = await startTarget({
    '/items': (request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ key: request.headers['x-api-key'] ?? null, count: 2 }));
    },
    '/ok': json(200, { ok: true }),
  });
});

afterAll(async () => {
  await runner.close();
  await target.close();
});

function apiCheck(extra: Record<string, unknown>, request: Record<string, unknown> = {}): WireCheck {
  return { checkType: 'API', name: 'scripted', request: { method: 'GET', url: `${target.url}/items`, ...request }, ...extra };
}

describe('API checks with setup and teardown scripts', () => {
  it('sends what the setup script changed, fills {{KEY}} from variables it set, and logs its console', async () => {
    const { final } = await runner.run(
      apiCheck(
        { localSetupScript: "process.env.TOKEN = 'from-setup'; request.headers['x-api-key'] = process.env.API_KEY; console.log('setting key');" },
        { headers: [{ key: 'x-token', value: '{{TOKEN}}' }] },
      ),
      context,
    );
    expect(final.hasFailures).toBe(false);
    expect(target.seen.at(-1)!.headers).toMatchObject({ 'x-api-key': 'k-123', 'x-token': 'from-setup' });
    expect(final.apiCheckResult!.jobLog.setup.map((line) => line.msg)).toEqual(['setting key']);
    expect(JSON.stringify(final)).not.toContain('k-123');
  });

  it('asserts on the response as the teardown script left it', async () => {
    const { final } = await runner.run(
      apiCheck(
        { localTearDownScript: "response.body = JSON.stringify({ count: JSON.parse(response.body).count * 10 }); console.log('status', response.statusCode ?? response.status);" },
        { assertions: [{ source: 'JSON_BODY', property: '$.count', comparison: 'EQUALS', target: '20' }] },
      ),
      context,
    );
    expect(final.apiCheckResult!.assertions[0]).toMatchObject({ actual: 20, passed: true });
    expect(final.hasFailures).toBe(false);
    expect(final.apiCheckResult!.jobLog.teardown).toHaveLength(1);
  });

  it('fails the run, without sending the request, when the setup script throws', async () => {
    const before = target.seen.length;
    const { final } = await runner.run(apiCheck({ localSetupScript: "throw new Error('no token today')" }), context);
    expect(final).toMatchObject({ hasFailures: true, hasErrors: false });
    expect(final.error).toBe('setup script failed: Error: no token today (at setup script:1:7)');
    expect(target.seen.length).toBe(before);
  });

  it('stops a setup script that never ends at the script timeout and fails only that run', async () => {
    const looping = runner.run(apiCheck({ localSetupScript: 'for (;;) {}' }), context);
    const healthy = runner.run(apiCheck({}, { url: `${target.url}/ok` }), context);
    const [loopResult, healthyResult] = await Promise.all([looping, healthy]);
    expect(loopResult.final.error).toBe('setup script failed: it did not finish within 2000 ms and was stopped');
    expect(healthyResult.final.hasFailures).toBe(false);
  });

  it('fails the run when the teardown script throws, even if the response was fine', async () => {
    const { final } = await runner.run(apiCheck({ localTearDownScript: "throw new Error('cleanup broke')" }), context);
    expect(final.hasFailures).toBe(true);
    expect(final.error).toBe('teardown script failed: Error: cleanup broke (at teardown script:1:7)');
  });
});
