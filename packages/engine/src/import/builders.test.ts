import { AlertEscalationBuilder, AssertionBuilder, Frequency, RetryStrategyBuilder } from '@vigil/constructs';
import { AlertSettings, Assertion, RetryStrategy } from '@vigil/schema';
import { describe, expect, it } from 'vitest';
import { alertEscalationCode, assertionCode, frequencyCode, retryStrategyCode } from './builders.js';
import type { Code } from './code.js';

/** Runs generated builder code against the real builders, as the user's monitor file would. */
function evaluate(code: Code): unknown {
  if (code.type !== 'call') throw new Error(`expected a builder call, got ${JSON.stringify(code)}`);
  return new Function('Frequency', 'AssertionBuilder', 'RetryStrategyBuilder', 'AlertEscalationBuilder', `return ${code.text};`)(
    Frequency,
    AssertionBuilder,
    RetryStrategyBuilder,
    AlertEscalationBuilder,
  );
}

const text = (code: Code) => (code.type === 'call' ? code.text : JSON.stringify(code));

describe('frequencyCode', () => {
  it.each([
    [5, 123, 'Frequency.EVERY_5M', false],
    [60, 1, 'Frequency.EVERY_1H', false],
    [0, 20, 'Frequency.EVERY_20S', true],
  ])('writes frequency %d (offset %d) as %s', (frequency, offset, expected, writesOffset) => {
    const written = frequencyCode(frequency, offset);
    expect(text(written.code)).toBe(expected);
    expect(written.writesOffset).toBe(writesOffset);
  });
});

describe('assertionCode', () => {
  it.each([
    [{ source: 'STATUS_CODE', comparison: 'EQUALS', target: '200' }, 'AssertionBuilder.statusCode().equals(200)'],
    [{ source: 'RESPONSE_TIME', comparison: 'LESS_THAN', target: '500' }, 'AssertionBuilder.responseTime().lessThan(500)'],
    [{ source: 'JSON_BODY', property: '$.id', comparison: 'NOT_NULL' }, "AssertionBuilder.jsonBody('$.id').isNotNull()"],
    [{ source: 'HEADERS', property: 'content-type', comparison: 'CONTAINS', target: 'json', regex: '^a' }, "AssertionBuilder.headers('content-type', '^a').contains('json')"],
    [{ source: 'TEXT_BODY', comparison: 'CONTAINS', target: "it's" }, "AssertionBuilder.textBody().contains('it\\'s')"],
  ])('writes %j as %s, which builds exactly it', (input, expected) => {
    const assertion = Assertion.parse(input);
    const code = assertionCode(assertion);
    expect(text(code)).toBe(expected);
    expect(Assertion.parse(evaluate(code))).toEqual(assertion);
  });

  it('writes plain data when no builder yields the assertion', () => {
    const assertion = Assertion.parse({ source: 'STATUS_CODE', comparison: 'HAS_KEY', target: 'x' });
    expect(assertionCode(assertion).type).toBe('object');
  });
});

describe('retryStrategyCode', () => {
  it.each([
    [null, 'RetryStrategyBuilder.noRetries()'],
    [{ type: 'FIXED' }, 'RetryStrategyBuilder.fixedStrategy()'],
    [{ type: 'LINEAR', maxRetries: 3, sameRegion: false }, 'RetryStrategyBuilder.linearStrategy({ maxRetries: 3, sameRegion: false })'],
    [{ type: 'EXPONENTIAL', onlyOn: ['NETWORK_ERROR'] }, "RetryStrategyBuilder.exponentialStrategy({ onlyOn: ['NETWORK_ERROR'] })"],
    [{ type: 'SINGLE_RETRY' }, 'RetryStrategyBuilder.singleRetry()'],
    [{ type: 'SINGLE_RETRY', baseBackoffSeconds: 0, sameRegion: false }, 'RetryStrategyBuilder.singleRetry({ baseBackoffSeconds: 0, sameRegion: false })'],
  ])('writes %j as %s, which builds exactly it', (input, expected) => {
    const value = input === null ? null : RetryStrategy.parse(input);
    const code = retryStrategyCode(value);
    expect(text(code)).toBe(expected);
    const built = evaluate(code);
    expect(built === null ? null : RetryStrategy.parse(built)).toEqual(value);
  });
});

describe('alertEscalationCode', () => {
  it.each([
    [{}, 'AlertEscalationBuilder.runBasedEscalation()'],
    [{ runBasedEscalation: { failedRunThreshold: 3 } }, 'AlertEscalationBuilder.runBasedEscalation(3)'],
    [{ escalationType: 'TIME_BASED', timeBasedEscalation: { minutesFailingThreshold: 10 }, reminders: { amount: 2, interval: 10 } }, 'AlertEscalationBuilder.timeBasedEscalation(10, { amount: 2, interval: 10 })'],
    [{ parallelRunFailureThreshold: { enabled: true, percentage: 50 } }, 'AlertEscalationBuilder.runBasedEscalation(1, { amount: 0, interval: 5 }, { enabled: true, percentage: 50 })'],
  ])('writes %j as %s, which builds exactly it', (input, expected) => {
    const settings = AlertSettings.parse(input);
    const code = alertEscalationCode(settings);
    expect(text(code)).toBe(expected);
    expect(AlertSettings.parse(evaluate(code))).toEqual(settings);
  });
});
