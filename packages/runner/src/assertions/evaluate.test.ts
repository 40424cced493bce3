import { describe, expect, it } from 'vitest';
import { docTable } from '../__fixtures__/doc-tables.js';
import { evaluateOne, type AssertedResponse } from './evaluate.js';

/** `status N`, `time N`, `header Name: value` or `body TEXT`, as the doc's table writes a response. */
function response(spec: string): AssertedResponse {
  const base: AssertedResponse = { status: 200, headers: {}, body: '', responseTime: 0 };
  const [kind, ...rest] = spec.split(' ');
  const value = rest.join(' ');
  switch (kind) {
    case 'status':
      return { ...base, status: Number(value) };
    case 'time':
      return { ...base, responseTime: Number(value) };
    case 'header': {
      const colon = value.indexOf(':');
      return { ...base, headers: { [value.slice(0, colon).toLowerCase()]: value.slice(colon + 1).trim() } };
    }
    case 'body':
      return { ...base, body: value };
    default:
      throw new Error(`the assertion-cases table has a response this test cannot read: ${spec}`);
  }
}

const cases = docTable('assertion-cases');

describe('assertions, case by case from docs/testing.md', () => {
  it('covers every source and every comparison at least once', () => {
    expect(new Set(cases.map((row) => row.source))).toEqual(new Set(['STATUS_CODE', 'RESPONSE_TIME', 'TEXT_BODY', 'HEADERS', 'JSON_BODY']));
    expect(new Set(cases.map((row) => row.comparison)).size).toBe(14);
  });

  it.each(cases.map((row) => [`${row.source} ${row.property} ${row.regex} ${row.comparison} ${row.target} on ${row.response} → ${row.result}`, row] as const))(
    '%s',
    (_name, row) => {
      const outcome = evaluateOne(
        { source: row.source!, property: row.property, regex: row.regex === '' ? null : row.regex, comparison: row.comparison!, target: row.target },
        response(row.response!),
      );
      expect(outcome.actual).toEqual(row.actual === 'absent' ? undefined : JSON.parse(row.actual!));
      expect(outcome.passed).toBe(row.result === 'pass');
      if (row.result === 'error') expect(outcome.error).toEqual(expect.any(String));
      else expect(outcome.error).toBeNull();
    },
  );
});

describe('assertions on a body the read cut short', () => {
  it('says the body was cut when the JSON does not parse', () => {
    const outcome = evaluateOne({ source: 'JSON_BODY', property: '$.ok', comparison: 'EQUALS', target: 'true' }, { status: 200, headers: {}, body: '{"ok":tr', responseTime: 1, readLimitBytes: 8 });
    expect(outcome.error).toBe(`the response body is not JSON (${jsonError('{"ok":tr')}); only its first 8 bytes were read (the read limit)`);
  });
});

function jsonError(text: string): string {
  try {
    JSON.parse(text);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error(`${text} parses`);
}
