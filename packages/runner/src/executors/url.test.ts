import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closedPort, json, startTarget, text, type Target } from '../__fixtures__/targets.js';
import { createRunner } from '../runner.js';
import type { RunContext, RunResult, WireCheck } from '../types.js';

const context: RunContext = { location: 'eu-west-1', variables: [], retries: 0 };
const runner = createRunner({ maxBodyBytes: 1024 });
let target: Target;
let tlsTarget: Target;

beforeAll(async () => {
  target = await startTarget({
    '/ok': json(200, { status: 'up' }),
    '/boom': text(500, 'internal error'),
    '/moved': (_request, response) => response.writeHead(301, { location: '/ok' }).end(),
    '/hang': () => undefined,
  });
  tlsTarget = await startTarget({ '/ok': json(200, { secure: true }) }, { tls: true });
});

afterAll(async () => {
  await runner.close();
  await target.close();
  await tlsTarget.close();
});

function urlMonitor(request: Record<string, unknown>, extra: Record<string, unknown> = {}): WireCheck {
  return { checkType: 'URL', name: 'page', request: { method: 'GET', ...request }, ...extra };
}

async function run(check: WireCheck): Promise<RunResult> {
  return (await runner.run(check, context)).final;
}

describe('URL executor (the API executor running a GET)', () => {
  it('passes a status-code assertion and records the GET, the response and the timing phases', async () => {
    const result = await run(urlMonitor({ url: `${target.url}/ok`, assertions: [{ source: 'STATUS_CODE', comparison: 'EQUALS', target: '200' }] }));
    expect(result.error).toBeNull();
    expect(result.apiCheckResult!.request).toMatchObject({ method: 'GET', url: `${target.url}/ok` });
    expect(result.apiCheckResult!.response.status).toBe(200);
    expect(result.apiCheckResult!.assertions[0]).toMatchObject({ source: 'STATUS_CODE', actual: 200, passed: true });
    expect(target.seen.at(-1)).toMatchObject({ method: 'GET', body: '' });
  });

  it('fails an error status without assertions, as an API check does', async () => {
    const result = await run(urlMonitor({ url: `${target.url}/boom` }));
    expect(result.error).toBe('the response status 500 is an error status (≥ 400); set shouldFail to expect it');
  });

  it('follows redirects by default and takes the redirect as the answer with followRedirects false', async () => {
    expect((await run(urlMonitor({ url: `${target.url}/moved` }))).apiCheckResult!.response.status).toBe(200);
    const unfollowed = await run(urlMonitor({ url: `${target.url}/moved`, followRedirects: false, assertions: [{ source: 'STATUS_CODE', comparison: 'EQUALS', target: '301' }] }));
    expect(unfollowed.error).toBeNull();
  });

  it('rejects a self-signed certificate unless skipSSL is set', async () => {
    const strict = await run(urlMonitor({ url: `${tlsTarget.url}/ok` }));
    expect(strict.hasFailures).toBe(true);
    expect(strict.error).toContain('certificate');
    const relaxed = await run(urlMonitor({ url: `${tlsTarget.url}/ok`, skipSSL: true }));
    expect(relaxed.error).toBeNull();
  });

  it('fails at maxResponseTime and on a refused connection', async () => {
    const slow = await run(urlMonitor({ url: `${target.url}/hang` }, { maxResponseTime: 200 }));
    expect(slow.error).toBe('no complete response within maxResponseTime (200 ms)');
    const closed = await closedPort();
    const refused = await run(urlMonitor({ url: `http://127.0.0.1:${closed}/` }));
    expect(refused.error).toContain('ECONNREFUSED');
  });

  it('never runs scripts a payload may carry, and reports a request it cannot run as a runner fault', async () => {
    const scripted = await run(urlMonitor({ url: `${target.url}/ok` }, { localSetupScript: 'throw new Error("must not run")' }));
    expect(scripted.error).toBeNull();
    const broken = await run(urlMonitor({ url: `${target.url}/ok`, assertions: [{ source: 'TEXT_BODY', comparison: 'CONTAINS', target: 'up' }] }));
    expect(broken.hasErrors).toBe(true);
    expect(broken.error).toMatch(/^this URL monitor's request does not parse: request\.assertions\.0\.source: /);
  });
});
