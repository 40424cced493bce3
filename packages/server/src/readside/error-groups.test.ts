import { describe, expect, it } from 'vitest';
import { applyArchivePatch, cleanErrorMessage, errorHashOf, recordError, type ErrorGroupState } from '../store/error-group-rules.js';
import { errorMessagesOf } from './error-groups.js';

describe('cleaning an error message', () => {
  it.each([
    ['Timeout after 5003ms', 'Timeout after <number>ms'],
    ['Request failed with status code 503', 'Request failed with status code <number>'],
    ['Run 3f1c2b9e-8a7d-4c6b-9e2f-1a2b3c4d5e6f failed', 'Run <uuid> failed'],
    ['Expired at 2026-03-18T10:15:30.123Z', 'Expired at <timestamp>'],
    ['Expired at 2026-03-18 10:15:30+02:00', 'Expired at <timestamp>'],
    ['Segfault at 0x7ffee4b2', 'Segfault at <hex>'],
    ['connect ETIMEDOUT 10.0.0.12:443', 'connect ETIMEDOUT <ip>:<number>'],
    ['trace id deadbeef1234 lost', 'trace id <hex> lost'],
    ['Expected "ok" but got \'error\'', 'Expected <quoted> but got <quoted>'],
    ['key=`abc 123` missing', 'key=<quoted> missing'],
    ["can't connect to host", "can't connect to host"],
    ['getaddrinfo ENOTFOUND api.example.com', 'getaddrinfo ENOTFOUND api.example.com'],
    ['ipv4 only   on eu-west-1', 'ipv4 only on eu-west-<number>'],
  ])('%s → %s', (raw, cleaned) => {
    expect(cleanErrorMessage(raw)).toBe(cleaned);
  });

  it('gives the same hash to messages that differ only in variable parts', () => {
    const a = errorHashOf(cleanErrorMessage('Timeout after 5003ms on "GET /a"'));
    const b = errorHashOf(cleanErrorMessage('Timeout after 4871ms on "GET /b"'));
    expect(a).toBe(b);
    expect(a).toMatch(/^[0-9a-f]{64}$/);
  });

  it('hashes the cleaned message with sha256', () => {
    // sha256("abc"), a published test vector.
    expect(errorHashOf('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });
});

describe('messages a result records', () => {
  it('reads requestError and the errors of multi-step and browser results', () => {
    expect(errorMessagesOf({
      apiCheckResult: { requestError: 'socket hang up' },
      multiStepCheckResult: { errors: ['step 2 failed', { message: 'page crashed' }, { code: 1 }, ''] },
      browserCheckResult: null,
    })).toEqual(['socket hang up', 'step 2 failed', 'page crashed']);
  });
  it('records a failed assertion as a message, cleaned and grouped like other errors', () => {
    const result = (status: number) => ({
      apiCheckResult: {
        requestError: null,
        assertions: [
          { source: 'STATUS_CODE', property: '', comparison: 'EQUALS', target: '200', actual: status, passed: false, error: null },
          { source: 'RESPONSE_TIME', property: '', comparison: 'LESS_THAN', target: '2000', actual: 12, passed: true, error: null },
        ],
      },
    });
    expect(errorMessagesOf(result(503))).toEqual(['status code: expected 200 (EQUALS), got 503']);
    expect(cleanErrorMessage(errorMessagesOf(result(503))[0]!)).toBe('status code: expected <number> (EQUALS), got <number>');
    expect(errorHashOf(cleanErrorMessage(errorMessagesOf(result(503))[0]!)))
      .toBe(errorHashOf(cleanErrorMessage(errorMessagesOf(result(502))[0]!)));
  });
  it.each([
    [{ source: 'JSON_BODY', property: '$.status', comparison: 'EQUALS', target: 'ok', actual: 'down', passed: false }, 'json body $.status: expected ok (EQUALS), got down'],
    [{ source: 'HEADERS', property: 'content-type', comparison: 'CONTAINS', target: 'json', passed: false }, 'headers content-type: expected json (CONTAINS), got (absent)'],
    [{ source: 'JSON_BODY', property: '$.id', comparison: 'NOT_NULL', target: '', actual: null, passed: false }, 'json body $.id: expected NOT_NULL, got null'],
    [{ source: 'JSON_BODY', property: '$.a', comparison: 'EQUALS', target: '1', passed: false, error: 'the body is not JSON' }, 'json body $.a: the body is not JSON'],
    [{ source: 'STATUS_CODE', comparison: 'EQUALS', target: '200' }, null],
  ])('assertion %j → %s', (assertion, message) => {
    expect(errorMessagesOf({ apiCheckResult: { requestError: null, assertions: [assertion] } })).toEqual(message === null ? [] : [message]);
  });
  it('records failed DNS assertions too', () => {
    expect(errorMessagesOf({
      dnsCheckResult: { assertions: [{ source: 'RESPONSE_CODE', comparison: 'EQUALS', target: 'NOERROR', actual: 'NXDOMAIN', passed: false }] },
    })).toEqual(['response code: expected NOERROR (EQUALS), got NXDOMAIN']);
  });
  it('records nothing for a result without errors', () => {
    expect(errorMessagesOf({ apiCheckResult: { requestError: null } })).toEqual([]);
  });
});

describe('folding occurrences into a group', () => {
  const ids = () => 'g1';
  const first = recordError(undefined, { checkId: 'c1', message: 'Timeout after 10ms', at: 1000 }, ids);

  it('starts a group with first and last seen at the occurrence', () => {
    expect(first).toMatchObject({
      id: 'g1',
      checkId: 'c1',
      cleanedErrorMessage: 'Timeout after <number>ms',
      rawErrorMessage: 'Timeout after 10ms',
      firstSeen: 1000,
      lastSeen: 1000,
      archivedUntilNextEvent: false,
    });
  });

  it('widens first/last seen and keeps the latest raw message', () => {
    const later = recordError(first, { checkId: 'c1', message: 'Timeout after 20ms', at: 3000 }, ids);
    const earlier = recordError(later, { checkId: 'c1', message: 'Timeout after 5ms', at: 500 }, ids);
    expect(earlier).toMatchObject({ firstSeen: 500, lastSeen: 3000, rawErrorMessage: 'Timeout after 20ms' });
  });

  it('an occurrence after archiving un-archives; one from before does not', () => {
    const archived = applyArchivePatch(first, { archivedUntilNextEvent: true }, 2000);
    expect(recordError(archived, { checkId: 'c1', message: 'Timeout after 1ms', at: 1500 }, ids).archivedUntilNextEvent).toBe(true);
    expect(recordError(archived, { checkId: 'c1', message: 'Timeout after 1ms', at: 2500 }, ids).archivedUntilNextEvent).toBe(false);
  });

  it('a group archived forever stays archived', () => {
    const forever = applyArchivePatch(first, { archiveForEver: true }, 2000);
    const next = recordError(forever, { checkId: 'c1', message: 'Timeout after 1ms', at: 9000 }, ids);
    expect(next).toMatchObject({ archivedUntilNextEvent: true, archivedForever: true, lastSeen: 9000 });
  });
});

describe('archive patches', () => {
  const group: ErrorGroupState = recordError(undefined, { checkId: 'c1', message: 'x', at: 0 }, () => 'g');
  it.each([
    [{ archivedUntilNextEvent: true }, { archivedUntilNextEvent: true, archivedForever: false, archivedAt: 50 }],
    [{ archiveForEver: true }, { archivedUntilNextEvent: true, archivedForever: true, archivedAt: 50 }],
    [{}, { archivedUntilNextEvent: false, archivedForever: false, archivedAt: null }],
  ])('%j on a fresh group', (patch, expected) => {
    expect(applyArchivePatch(group, patch, 50)).toMatchObject(expected);
  });
  it('archivedUntilNextEvent: false lifts an archive-forever too', () => {
    const forever = applyArchivePatch(group, { archiveForEver: true }, 50);
    expect(applyArchivePatch(forever, { archivedUntilNextEvent: false }, 60)).toMatchObject({
      archivedUntilNextEvent: false,
      archivedForever: false,
    });
  });
  it('archiveForEver: false un-archives', () => {
    const forever = applyArchivePatch(group, { archiveForEver: true }, 50);
    expect(applyArchivePatch(forever, { archiveForEver: false }, 60).archivedUntilNextEvent).toBe(false);
  });
});
