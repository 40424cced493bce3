import { describe, expect, it } from 'vitest';
import type { TestOutcome } from './outcome.js';
import { createReporter, details, jsonDocument, junitDocument, summarize, xmlText } from './reporters.js';

function outcome(status: TestOutcome['status'], overrides: Partial<TestOutcome> = {}): TestOutcome {
  return {
    address: `api-check.${status}`,
    logicalId: status,
    name: `The ${status} one`,
    checkType: 'API',
    source: 'checks/a.monitor.ts:3:1',
    runLocation: 'eu-west-1',
    status,
    passed: status !== 'failed',
    degraded: status === 'degraded',
    overMaxResponseTime: false,
    responseTime: status === 'skipped' ? null : 12,
    attempts: status === 'skipped' ? 0 : 1,
    error: status === 'failed' ? 'assertion failed: STATUS_CODE EQUALS 200, got 500' : status === 'skipped' ? 'passive' : null,
    assertions: status === 'failed' ? [{ source: 'STATUS_CODE', property: '', comparison: 'EQUALS', target: '200', actual: 500, passed: false }] : [],
    result: null,
    ...overrides,
  };
}

const outcomes = [outcome('passed'), outcome('degraded'), outcome('failed'), outcome('skipped')];

describe('summarize', () => {
  it('counts degraded runs as passed, and also on their own', () => {
    expect(summarize(outcomes, 1500)).toEqual({ total: 4, passed: 2, failed: 1, degraded: 1, skipped: 1, durationMs: 1500 });
  });
});

describe('reporters', () => {
  const capture = (name: Parameters<typeof createReporter>[0], env: NodeJS.ProcessEnv = {}) => {
    let text = '';
    const reporter = createReporter(name, { write: (chunk) => (text += chunk), color: false, progress: false, env });
    outcomes.forEach((item, index) => reporter.finished(item, index + 1, outcomes.length));
    reporter.end(outcomes, summarize(outcomes, 1500));
    return text;
  };

  it('ci prints a line per run, the failures in detail, and the summary', () => {
    const text = capture('ci');
    expect(text).toContain('✔ api-check.passed  The passed one  [eu-west-1]  12 ms\n');
    expect(text).toContain('○ api-check.skipped  The skipped one  [eu-west-1]  skipped: passive\n');
    expect(text).toContain('Failures:\n\n✖ api-check.failed');
    expect(text).toContain('    at checks/a.monitor.ts:3:1\n    error: assertion failed: STATUS_CODE EQUALS 200, got 500\n');
    expect(text).toContain('      ✖ STATUS_CODE EQUALS 200  (actual: 500)\n');
    expect(text.trimEnd().split('\n').at(-1)).toBe('4 runs: 2 passed, 1 failed, 1 degraded, 1 skipped (1.5 s)');
  });

  it('dot prints one character per run', () => {
    expect(capture('dot').startsWith('.DFS\n')).toBe(true);
  });

  it('github adds an annotation at the construct, with workflow-command escaping', () => {
    const text = capture('github');
    expect(text).toContain('::error file=checks/a.monitor.ts,line=3,col=1,title=The failed one (eu-west-1)::assertion failed: STATUS_CODE EQUALS 200, got 500\n');
  });

  it('json prints the formatVersion 1 document only', () => {
    const document = JSON.parse(capture('json'));
    expect(document.formatVersion).toBe(1);
    expect(document.summary).toEqual({ total: 4, passed: 2, failed: 1, degraded: 1, skipped: 1, durationMs: 1500 });
    expect(Object.keys(document.results[0])).toEqual(expect.arrayContaining(['address', 'logicalId', 'name', 'checkType', 'runLocation', 'passed', 'degraded', 'overMaxResponseTime', 'responseTime', 'attempts', 'error', 'assertions', 'result']));
    expect(jsonDocument([], summarize([], 0)).results).toEqual([]);
  });

  it('junit marks failures and skips, and escapes what targets sent', () => {
    const hostile = outcome('failed', { error: '<script>&"\u0001' });
    const xml = junitDocument([hostile, outcome('skipped')], summarize([hostile, outcome('skipped')], 10));
    expect(xml).toContain('<testsuites name="vigil test" tests="2" failures="1" skipped="1" time="0.010">');
    expect(xml).toContain('<failure message="&lt;script&gt;&amp;&quot;">');
    expect(xml).toContain('<skipped message="passive"/>');
  });
});

describe('escaping', () => {
  it('xmlText drops characters XML forbids', () => {
    expect(xmlText("a\u0000b'")).toBe('ab&apos;');
  });
});

describe('details of a failed DNS monitor run', () => {
  it('names the query, the server asked, the response code and the answer records', () => {
    const dnsCheckResult = {
      request: { recordType: 'A', query: 'api.example.test', protocol: 'UDP', server: '127.0.0.1:5353' },
      response: { responseCode: 'NOERROR', textAnswer: ';; ->>HEADER<<- opcode: QUERY, status: NOERROR, id: 1\n\n;; ANSWER SECTION:\napi.example.test.\t60\tIN\tA\t192.0.2.10' },
    };
    const failed = outcome('failed', {
      address: 'dns-monitor.api',
      error: 'assertion failed: JSON_ANSWER $.Answer[0].data EQUALS "192.0.2.99": actual "192.0.2.10"',
      assertions: [{ source: 'JSON_ANSWER', property: '$.Answer[0].data', comparison: 'EQUALS', target: '192.0.2.99', actual: '192.0.2.10', passed: false }],
      result: { dnsCheckResult } as unknown as TestOutcome['result'],
    });
    expect(details(failed).split('\n').map((line) => line.trim())).toEqual([
      'at checks/a.monitor.ts:3:1',
      'error: assertion failed: JSON_ANSWER $.Answer[0].data EQUALS "192.0.2.99": actual "192.0.2.10"',
      'assertions:',
      '✖ JSON_ANSWER $.Answer[0].data EQUALS 192.0.2.99  (actual: "192.0.2.10")',
      'query: A api.example.test at 127.0.0.1:5353 over UDP',
      'response: NOERROR',
      'api.example.test.  60  IN  A  192.0.2.10',
      '',
    ]);
  });
});
