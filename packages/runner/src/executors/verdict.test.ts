import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { docTable } from '../__fixtures__/doc-tables.js';
import { closedPort, startTarget, type Target } from '../__fixtures__/targets.js';
import { createRunner } from '../runner.js';

const runner = createRunner();
let target: Target;
let refusedPort: number;

beforeAll(async () => {
  target = await startTarget({
    '/status': (request, response) => {
      const status = Number(new URL(request.url ?? '', 'http://x').searchParams.get('code'));
      response.writeHead(status, status === 302 ? { location: '/elsewhere' } : {}).end();
    },
    '/hang': () => undefined,
  });
  refusedPort = await closedPort();
});

afterAll(async () => {
  await runner.close();
  await target.close();
});

/** `200`, `302 (not followed)`, `none (network error)`, `none (over maxResponseTime)` as a request. */
function requestFor(response: string): { url: string; followRedirects?: boolean; status?: number } {
  if (response === 'none (network error)') return { url: `http://127.0.0.1:${refusedPort}/` };
  if (response === 'none (over maxResponseTime)') return { url: `${target.url}/hang` };
  const status = Number.parseInt(response, 10);
  return { url: `${target.url}/status?code=${status}`, followRedirects: !response.includes('not followed'), status };
}

describe('when a run fails: the shouldFail table of docs/testing.md', () => {
  it.each(docTable('should-fail-cases').map((row) => [row.shouldFail, row.response, row.assertions, row.run] as const))(
    'shouldFail %s, response %s, assertions %s: the run %s',
    async (shouldFail, response, assertions, verdict) => {
      const { status, ...request } = requestFor(response!);
      const statusAssertion = (target: number) => ({ source: 'STATUS_CODE', comparison: 'EQUALS', target: String(target) });
      const list = assertions === 'none' ? [] : assertions === 'all pass' ? [statusAssertion(status!)] : [statusAssertion(status!), statusAssertion(999)];
      const { final } = await runner.run(
        { checkType: 'API', name: 'rule', shouldFail: shouldFail === 'true', maxResponseTime: 300, request: { method: 'GET', ...request, assertions: list } },
        { location: 'eu-west-1', variables: [], retries: 0 },
      );
      expect(final.hasFailures).toBe(verdict === 'fails');
      expect(final.hasErrors).toBe(false);
    },
  );
});
