import { CheckResult } from '@vigil/schema';
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
    '/ok': json(200, { status: 'up', items: [1, 2, 3] }, { 'x-request-id': 'abc-123' }),
    '/missing': json(404, { error: 'not found' }),
    '/boom': text(500, 'internal error'),
    '/html': text(200, '<html>not json</html>'),
    '/echo': (request, response, body) => {
      response.writeHead(200, { 'content-type': 'application/json', 'x-echo-auth': String(request.headers.authorization ?? '') });
      response.end(JSON.stringify({ method: request.method, url: request.url, headers: request.headers, body }));
    },
    '/slow': (_request, response) => setTimeout(() => response.writeHead(200).end('late'), 150),
    '/hang': () => undefined,
    '/stream': (_request, response) => {
      response.writeHead(200, { 'content-type': 'text/plain' });
      const chunk = Buffer.alloc(64 * 1024, 'x');
      const pump = () => {
        while (response.write(chunk)) if (response.destroyed) return;
        response.once('drain', pump);
      };
      pump();
    },
    '/redirect': (_request, response) => response.writeHead(302, { location: '/ok' }).end(),
    '/secret-at-cut': text(200, `${'x'.repeat(1020)}supersecretvalue and more`),
    '/loop': (_request, response) => response.writeHead(302, { location: '/loop' }).end(),
    '/post-redirect': (_request, response) => response.writeHead(302, { location: '/echo' }).end(),
  });
  tlsTarget = await startTarget({ '/ok': json(200, { secure: true }) }, { tls: true });
});

afterAll(async () => {
  await runner.close();
  await target.close();
  await tlsTarget.close();
});

function apiCheck(request: Record<string, unknown>, extra: Record<string, unknown> = {}): WireCheck {
  return { checkType: 'API', name: 'probe', request: { method: 'GET', ...request }, ...extra };
}

async function run(check: WireCheck, runContext: RunContext = context): Promise<RunResult> {
  const outcome = await runner.run(check, runContext);
  return outcome.final;
}

describe('API executor against real loopback targets', () => {
  it('records a passing run with its assertion values, request, response and timing phases', async () => {
    const result = await run(apiCheck({
      url: `${target.url}/ok`,
      assertions: [
        { source: 'STATUS_CODE', comparison: 'EQUALS', target: '200' },
        { source: 'JSON_BODY', property: '$.items.length', comparison: 'EQUALS', target: '3' },
        { source: 'HEADERS', property: 'X-Request-Id', comparison: 'EQUALS', target: 'abc-123' },
      ],
    }));
    expect(result).toMatchObject({ resultType: 'FINAL', hasFailures: false, hasErrors: false, isDegraded: false, overMaxResponseTime: false, runLocation: 'eu-west-1', attempts: 0, error: null });
    const api = result.apiCheckResult!;
    expect(api.assertions.map((assertion) => [assertion.actual, assertion.passed])).toEqual([[200, true], [3, true], ['abc-123', true]]);
    expect(api.request).toMatchObject({ method: 'GET', url: `${target.url}/ok` });
    expect(api.response).toMatchObject({ status: 200, statusText: 'OK', bodyTruncated: false });
    expect(JSON.parse(api.response.body)).toEqual({ status: 'up', items: [1, 2, 3] });
    const phases = api.response.timingPhases;
    expect(Object.keys(phases).sort()).toEqual(['dns', 'download', 'firstByte', 'tcp', 'total', 'wait']);
    expect(phases.tcp).toBeGreaterThan(0);
    expect(phases.total).toBeGreaterThanOrEqual(phases.tcp + phases.firstByte);
    expect(result.responseTime).toBeGreaterThan(0);
    expect(api.jobLog.request.map((line) => line.msg)).toEqual([`GET ${target.url}/ok`, expect.stringMatching(/^200 OK in \d+ ms$/)]);
    // The result is the service's check result: the schema the read side serves parses it unchanged.
    const parsed = CheckResult.parse(result);
    expect(parsed.apiCheckResult).toEqual(JSON.parse(JSON.stringify(result.apiCheckResult)));
  });

  it('measures a real DNS phase when the URL names a host', async () => {
    const result = await run(apiCheck({ url: `http://localhost:${target.port}/ok` }));
    expect(result.hasFailures).toBe(false);
    expect(result.apiCheckResult!.response.timings.lookup).toBeGreaterThan(0);
  });

  it('fails a run on a status of 400 or more, naming the rule', async () => {
    const result = await run(apiCheck({ url: `${target.url}/boom` }));
    expect(result.hasFailures).toBe(true);
    expect(result.hasErrors).toBe(false);
    expect(result.error).toBe('the response status 500 is an error status (≥ 400); set shouldFail to expect it');
  });

  it("passes Checkly's own shouldFail example: a 404 with statusCode().equals(404)", async () => {
    const result = await run(apiCheck(
      { url: `${target.url}/missing`, assertions: [{ source: 'STATUS_CODE', comparison: 'EQUALS', target: '404' }] },
      { shouldFail: true },
    ));
    expect(result.hasFailures).toBe(false);
  });

  it('sends method, query parameters, headers, a JSON body and basic auth with {{KEY}} filled in', async () => {
    const result = await run(
      apiCheck({
        method: 'POST',
        url: `${target.url}/echo?fixed=1`,
        queryParameters: [{ key: 'q', value: '{{TERM}}' }],
        headers: [{ key: 'X-Tenant', value: '{{ TENANT }}' }],
        body: '{"term":"{{TERM}}"}',
        bodyType: 'JSON',
        basicAuth: { username: 'user', password: 'pw' },
      }),
      { ...context, variables: [{ key: 'TERM', value: 'first' }, { key: 'TERM', value: 'second' }, { key: 'TENANT', value: 'acme' }] },
    );
    expect(result.hasFailures).toBe(false);
    const seen = target.seen.at(-1)!;
    expect(seen).toMatchObject({ method: 'POST', url: '/echo?fixed=1&q=first', body: '{"term":"first"}' });
    expect(seen.headers).toMatchObject({ 'x-tenant': 'acme', 'content-type': 'application/json', authorization: `Basic ${Buffer.from('user:pw').toString('base64')}` });
    expect(result.apiCheckResult!.request).toMatchObject({ method: 'POST', data: '{"term":"first"}', params: { q: 'first' } });
    expect(result.apiCheckResult!.request.headers).toMatchObject({ authorization: 'Basic *****' });
    // The target echoes the credentials (base64 in x-echo-auth and the body): they are redacted there too.
    expect(result.apiCheckResult!.response.headers['x-echo-auth']).toBe('Basic *****');
    expect(JSON.stringify(result)).not.toContain(Buffer.from('user:pw').toString('base64'));
  });

  it.each([
    ['FORM', 'a=1&b=2', 'application/x-www-form-urlencoded'],
    ['GRAPHQL', '{"query":"{ ok }"}', 'application/json'],
    ['RAW', 'plain words', undefined],
  ])('sends a %s body with its content type', async (bodyType, body, contentType) => {
    await run(apiCheck({ method: 'PUT', url: `${target.url}/echo`, body, bodyType }));
    const seen = target.seen.at(-1)!;
    expect(seen.body).toBe(body);
    expect(seen.headers['content-type']).toBe(contentType);
  });

  it('never shows a secret value, even when the target echoes it back', async () => {
    const result = await run(
      apiCheck({
        url: `${target.url}/echo?token={{TOKEN}}`,
        headers: [{ key: 'Authorization', value: 'Bearer {{TOKEN}}' }],
        assertions: [{ source: 'TEXT_BODY', comparison: 'EQUALS', target: 'no' }],
      }),
      { ...context, variables: [{ key: 'TOKEN', value: 's3cr3t/value', secret: true }] },
    );
    expect(target.seen.at(-1)!.headers.authorization).toBe('Bearer s3cr3t/value');
    const stored = JSON.stringify(result);
    expect(stored).not.toContain('s3cr3t');
    expect(stored).toContain('*****');
    expect(result.apiCheckResult!.response.headers['x-echo-auth']).toBe('Bearer *****');
  });

  it('keeps no part of a secret that the body size cap cuts through', async () => {
    const result = await run(apiCheck({ url: `${target.url}/secret-at-cut` }), { ...context, variables: [{ key: 'S', value: 'supersecretvalue', secret: true }] });
    const { body, bodyTruncated } = result.apiCheckResult!.response;
    expect(bodyTruncated).toBe(true);
    expect(body).not.toMatch(/sup/);
    expect(body.startsWith('x'.repeat(1020))).toBe(true);
  });

  it('aborts a target that never answers at maxResponseTime and fails with overMaxResponseTime', async () => {
    const result = await run(apiCheck({ url: `${target.url}/hang` }, { maxResponseTime: 300 }));
    expect(result).toMatchObject({ hasFailures: true, hasErrors: false, overMaxResponseTime: true });
    expect(result.apiCheckResult!.requestError).toBe('no complete response within maxResponseTime (300 ms)');
    expect(result.responseTime).toBeGreaterThanOrEqual(300);
  });

  it('ends a run promptly when its signal aborts mid-request (vigil test --timeout, Ctrl-C)', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const result = await run(apiCheck({ url: `${target.url}/hang` }, { maxResponseTime: 20_000 }), { ...context, signal: controller.signal });
    expect(result).toMatchObject({ resultType: 'FINAL', hasFailures: true, hasErrors: false, overMaxResponseTime: false });
    expect(result.error).toBe('the run was cancelled before the response arrived');
  });

  it('marks a run over degradedResponseTime as degraded, not failed', async () => {
    const result = await run(apiCheck({ url: `${target.url}/slow` }, { degradedResponseTime: 50, maxResponseTime: 5_000 }));
    expect(result).toMatchObject({ hasFailures: false, isDegraded: true, overMaxResponseTime: false });
  });

  it('stops reading a body that never ends, keeps a marked excerpt, and memory stays flat', async () => {
    const before = process.memoryUsage().rss;
    const result = await run(apiCheck({ url: `${target.url}/stream` }, { maxResponseTime: 10_000 }));
    const grown = process.memoryUsage().rss - before;
    expect(result.hasFailures).toBe(false);
    expect(result.apiCheckResult!.response.bodyTruncated).toBe(true);
    expect(result.apiCheckResult!.response.body.length).toBe(1024);
    expect(grown).toBeLessThan(64 * 1024 * 1024);
  });

  it('follows a redirect to its end and records the hop in the job log', async () => {
    const result = await run(apiCheck({ url: `${target.url}/redirect` }));
    expect(result.hasFailures).toBe(false);
    expect(result.apiCheckResult!.response.status).toBe(200);
    expect(result.apiCheckResult!.jobLog.request.map((line) => line.msg)).toContain(`302 redirect to ${target.url}/ok`);
  });

  it('continues a POST redirected with 302 as a GET without the body', async () => {
    await run(apiCheck({ method: 'POST', url: `${target.url}/post-redirect`, body: '{"a":1}', bodyType: 'JSON' }));
    expect(target.seen.at(-1)).toMatchObject({ method: 'GET', url: '/echo', body: '' });
  });

  it('returns the redirect itself when followRedirects is false', async () => {
    const result = await run(apiCheck({ url: `${target.url}/redirect`, followRedirects: false }));
    expect(result.hasFailures).toBe(false);
    expect(result.apiCheckResult!.response).toMatchObject({ status: 302, headers: { location: '/ok' } });
  });

  it('fails a redirect loop after 10 hops', async () => {
    const result = await run(apiCheck({ url: `${target.url}/loop` }));
    expect(result.hasFailures).toBe(true);
    expect(result.apiCheckResult!.requestError).toBe('too many redirects: stopped after 10 hops (last: 302 to /loop)');
  });

  it('fails with the network error when the connection is refused', async () => {
    const port = await closedPort();
    const result = await run(apiCheck({ url: `http://127.0.0.1:${port}/` }));
    expect(result).toMatchObject({ hasFailures: true, hasErrors: false, overMaxResponseTime: false });
    expect(result.apiCheckResult!.requestError).toContain('ECONNREFUSED');
    expect(result.apiCheckResult!.response.status).toBe(0);
  });

  it('connects to an IPv6 literal, and resolves a host name in the family ipFamily names', async () => {
    const dualStack = await startTarget({ '/who': (request, response) => response.writeHead(200).end(request.socket.remoteAddress) }, { host: '::' });
    try {
      const literal = await run(apiCheck({ url: `http://[::1]:${dualStack.port}/who` }));
      expect(literal.apiCheckResult!.response.body).toBe('::1');
      const v4 = await run(apiCheck({ url: `http://localhost:${dualStack.port}/who`, ipFamily: 'IPv4' }));
      expect(v4.apiCheckResult!.response.body).toMatch(/^(::ffff:)?127\.0\.0\.1$/);
      // Where localhost has no IPv6 address (as in many containers) the lookup itself fails.
      const v6 = await run(apiCheck({ url: `http://localhost:${dualStack.port}/who`, ipFamily: 'IPv6' }));
      if (v6.hasFailures) expect(v6.apiCheckResult!.requestError).toMatch(/ENOTFOUND|EAI_/);
      else expect(v6.apiCheckResult!.response.body).toBe('::1');
    } finally {
      await dualStack.close();
    }
  });

  it('fails with the lookup error for a host that does not exist', async () => {
    const result = await run(apiCheck({ url: 'http://vigil-runner-test.invalid/' }));
    expect(result.hasFailures).toBe(true);
    expect(result.apiCheckResult!.requestError).toMatch(/ENOTFOUND|EAI_AGAIN/);
  });

  it('rejects a self-signed certificate unless skipSSL is set', async () => {
    const strict = await run(apiCheck({ url: `${tlsTarget.url}/ok` }));
    expect(strict.hasFailures).toBe(true);
    expect(strict.apiCheckResult!.requestError).toContain('certificate');
    const relaxed = await run(apiCheck({ url: `${tlsTarget.url}/ok`, skipSSL: true }));
    expect(relaxed.hasFailures).toBe(false);
    expect(JSON.parse(relaxed.apiCheckResult!.response.body)).toEqual({ secure: true });
  });

  it("exposes when an https target's certificate expires (the source of SSL expiry alerts), and nothing over plain http", async () => {
    const { X509Certificate } = await import('node:crypto');
    const { readFileSync } = await import('node:fs');
    const certificate = new X509Certificate(readFileSync(new URL('../__fixtures__/loopback-cert.pem', import.meta.url)));
    const secure = await run(apiCheck({ url: `${tlsTarget.url}/ok`, skipSSL: true }));
    expect(secure.certificateExpiresAt).toBe(new Date(certificate.validTo).toISOString());
    const plain = await run(apiCheck({ url: `${target.url}/ok` }));
    expect(plain.certificateExpiresAt).toBeUndefined();
  });

  it('fails, without crashing, a JSON_BODY assertion on a body that is not JSON', async () => {
    const result = await run(apiCheck({
      url: `${target.url}/html`,
      assertions: [{ source: 'JSON_BODY', property: '$.status', comparison: 'EQUALS', target: 'up' }],
    }));
    expect(result).toMatchObject({ hasFailures: true, hasErrors: false });
    const [assertion] = result.apiCheckResult!.assertions;
    expect(assertion).toMatchObject({ passed: false, error: expect.stringMatching(/^the response body is not JSON/) });
    expect(result.error).toMatch(/^assertion failed: the response body is not JSON/);
  });

  it('fails a URL that does not parse without reaching the network', async () => {
    const result = await run(apiCheck({ url: 'not a url' }));
    expect(result.hasFailures).toBe(true);
    expect(result.error).toBe('the request URL "not a url" is not a valid http(s) URL: Invalid URL');
  });

  it('names the variable a URL placeholder is missing', async () => {
    const result = await run(apiCheck({ url: '{{GROUP_BASE_URL}}/health' }));
    expect(result.error).toBe('the request URL "{{GROUP_BASE_URL}}/health" is not a valid http(s) URL: Invalid URL (no variable GROUP_BASE_URL is set)');
  });

  it('reports a payload that is not an API check request as a runner error', async () => {
    const result = await run({ checkType: 'API', name: 'broken', request: { url: '' } });
    expect(result).toMatchObject({ hasFailures: true, hasErrors: true });
    expect(result.error).toMatch(/^the check's request is not a valid API check request: url:/);
  });
});
