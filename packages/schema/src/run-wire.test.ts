import { describe, expect, it } from 'vitest';
import { RUN_WIRE_VERSION, RunJob, RunReport, wireVersionMismatch } from './run-wire.js';

const job = {
  wireVersion: RUN_WIRE_VERSION,
  key: 'chk_1@1700000000000@eu-west-1',
  accountId: 'acc_1',
  checkId: 'chk_1',
  location: 'eu-west-1',
  dueMs: 1_700_000_000_000,
  check: { checkType: 'API', name: 'Home', request: { url: 'https://example.com/' } },
  group: null,
};

const messages = (result: { success: boolean; error?: { issues: Array<{ path: PropertyKey[]; message: string }> } }) =>
  result.error?.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);

describe('run wire schemas', () => {
  it('accepts a job and keeps the check document whole', () => {
    const parsed = RunJob.parse({ ...job, check: { ...job.check, extra: { kept: true } } });
    expect(parsed.check).toEqual({ ...job.check, extra: { kept: true } });
  });

  it.each([
    ['a key without its three parts', { key: 'chk_1' }, ['key: must be "checkId@dueMs@location"']],
    ['a check without a type', { check: { name: 'x' } }, ['check.checkType: Invalid input: expected string, received undefined']],
    ['a negative due time', { dueMs: -1 }, ['dueMs: Too small: expected number to be >=0']],
    ['an empty location', { location: '' }, ['location: Too small: expected string to have >=1 characters']],
  ])('refuses %s', (_name, change, expected) => {
    expect(messages(RunJob.safeParse({ ...job, ...change }))).toEqual(expected);
  });

  it('refuses a report whose final result is not a check result', () => {
    const result = RunReport.safeParse({ wireVersion: 1, key: job.key, attempts: [], final: { id: 'r' } });
    expect(result.success).toBe(false);
    expect(messages(result)).toContain('final.hasFailures: Invalid input: expected boolean, received undefined');
  });

  it('names both versions when a peer speaks another', () => {
    expect(wireVersionMismatch(RUN_WIRE_VERSION, 'the agent')).toBeNull();
    expect(wireVersionMismatch(RUN_WIRE_VERSION + 1, 'the agent')).toBe(`the agent speaks run wire version ${RUN_WIRE_VERSION + 1}; this side speaks version ${RUN_WIRE_VERSION}`);
    expect(wireVersionMismatch(undefined, 'the agent')).toBe(`the agent speaks run wire no version; this side speaks version ${RUN_WIRE_VERSION}`);
  });
});
