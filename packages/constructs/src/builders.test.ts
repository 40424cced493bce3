import { describe, expect, it } from 'vitest';
import { AlertEscalationBuilder } from './alert-escalation-policy.js';
import { AssertionBuilder } from './assertion.js';
import { Frequency, resolveFrequency } from './frequency.js';
import { RetryStrategyBuilder } from './retry-strategy.js';

describe('Frequency', () => {
  it.each([
    ['EVERY_10S', Frequency.EVERY_10S, { frequency: 0, frequencyOffset: 10 }],
    ['EVERY_20S', Frequency.EVERY_20S, { frequency: 0, frequencyOffset: 20 }],
    ['EVERY_30S', Frequency.EVERY_30S, { frequency: 0, frequencyOffset: 30 }],
    ['EVERY_1M', Frequency.EVERY_1M, { frequency: 1 }],
    ['EVERY_2M', Frequency.EVERY_2M, { frequency: 2 }],
    ['EVERY_5M', Frequency.EVERY_5M, { frequency: 5 }],
    ['EVERY_10M', Frequency.EVERY_10M, { frequency: 10 }],
    ['EVERY_15M', Frequency.EVERY_15M, { frequency: 15 }],
    ['EVERY_30M', Frequency.EVERY_30M, { frequency: 30 }],
    ['EVERY_1H', Frequency.EVERY_1H, { frequency: 60 }],
    ['EVERY_2H', Frequency.EVERY_2H, { frequency: 120 }],
    ['EVERY_3H', Frequency.EVERY_3H, { frequency: 180 }],
    ['EVERY_6H', Frequency.EVERY_6H, { frequency: 360 }],
    ['EVERY_12H', Frequency.EVERY_12H, { frequency: 720 }],
    ['EVERY_24H', Frequency.EVERY_24H, { frequency: 1440 }],
  ])('%s becomes %j in the payload', (_name, value, payload) => {
    expect(resolveFrequency(value)).toEqual(payload);
  });

  it('passes a plain number of minutes through', () => {
    expect(resolveFrequency(15)).toEqual({ frequency: 15 });
  });

  it('is immutable, so one check cannot change another\'s schedule', () => {
    expect(Object.isFrozen(Frequency.EVERY_5M)).toBe(true);
  });
});

describe('AssertionBuilder', () => {
  it.each([
    ['statusCode().equals(200)', AssertionBuilder.statusCode().equals(200), ['STATUS_CODE', '', 'EQUALS', '200', null]],
    ['statusCode().notEquals(500)', AssertionBuilder.statusCode().notEquals(500), ['STATUS_CODE', '', 'NOT_EQUALS', '500', null]],
    ['statusCode().lessThan(400)', AssertionBuilder.statusCode().lessThan(400), ['STATUS_CODE', '', 'LESS_THAN', '400', null]],
    ['statusCode().greaterThan(199)', AssertionBuilder.statusCode().greaterThan(199), ['STATUS_CODE', '', 'GREATER_THAN', '199', null]],
    ['responseTime().lessThan(500)', AssertionBuilder.responseTime().lessThan(500), ['RESPONSE_TIME', '', 'LESS_THAN', '500', null]],
    ['jsonBody("$.id").isNotNull()', AssertionBuilder.jsonBody('$.id').isNotNull(), ['JSON_BODY', '$.id', 'NOT_NULL', '', null]],
    ['jsonBody("$.id").isNull()', AssertionBuilder.jsonBody('$.id').isNull(), ['JSON_BODY', '$.id', 'IS_NULL', '', null]],
    ['jsonBody("$.ok").equals(true)', AssertionBuilder.jsonBody('$.ok').equals(true), ['JSON_BODY', '$.ok', 'EQUALS', 'true', null]],
    ['jsonBody("$.n").notEquals(3)', AssertionBuilder.jsonBody('$.n').notEquals(3), ['JSON_BODY', '$.n', 'NOT_EQUALS', '3', null]],
    ['jsonBody().hasKey("id")', AssertionBuilder.jsonBody().hasKey('id'), ['JSON_BODY', '', 'HAS_KEY', 'id', null]],
    ['jsonBody().notHasKey("error")', AssertionBuilder.jsonBody().notHasKey('error'), ['JSON_BODY', '', 'NOT_HAS_KEY', 'error', null]],
    ['jsonBody("$.tags").hasValue("new")', AssertionBuilder.jsonBody('$.tags').hasValue('new'), ['JSON_BODY', '$.tags', 'HAS_VALUE', 'new', null]],
    ['jsonBody("$.tags").notHasValue("old")', AssertionBuilder.jsonBody('$.tags').notHasValue('old'), ['JSON_BODY', '$.tags', 'NOT_HAS_VALUE', 'old', null]],
    ['jsonBody("$.items").isEmpty()', AssertionBuilder.jsonBody('$.items').isEmpty(), ['JSON_BODY', '$.items', 'IS_EMPTY', '', null]],
    ['jsonBody("$.items").notEmpty()', AssertionBuilder.jsonBody('$.items').notEmpty(), ['JSON_BODY', '$.items', 'NOT_EMPTY', '', null]],
    ['jsonBody("$.n").lessThan(10)', AssertionBuilder.jsonBody('$.n').lessThan(10), ['JSON_BODY', '$.n', 'LESS_THAN', '10', null]],
    ['jsonBody("$.n").greaterThan(1)', AssertionBuilder.jsonBody('$.n').greaterThan(1), ['JSON_BODY', '$.n', 'GREATER_THAN', '1', null]],
    ['textBody().contains("Welcome")', AssertionBuilder.textBody().contains('Welcome'), ['TEXT_BODY', '', 'CONTAINS', 'Welcome', null]],
    ['textBody().notContains("Error")', AssertionBuilder.textBody().notContains('Error'), ['TEXT_BODY', '', 'NOT_CONTAINS', 'Error', null]],
    ['headers("content-type").contains("json")', AssertionBuilder.headers('content-type').contains('json'), ['HEADERS', 'content-type', 'CONTAINS', 'json', null]],
    ['headers("x-id", "^\\d+$").notEmpty()', AssertionBuilder.headers('x-id', '^\\d+$').notEmpty(), ['HEADERS', 'x-id', 'NOT_EMPTY', '', '^\\d+$']],
  ])('%s', (_name, assertion, [source, property, comparison, target, regex]) => {
    expect(assertion).toEqual({ source, property, comparison, target, regex });
  });
});

describe('RetryStrategyBuilder', () => {
  it.each([
    ['fixedStrategy', RetryStrategyBuilder.fixedStrategy(), 'FIXED'],
    ['linearStrategy', RetryStrategyBuilder.linearStrategy(), 'LINEAR'],
    ['exponentialStrategy', RetryStrategyBuilder.exponentialStrategy(), 'EXPONENTIAL'],
  ])('%s fills the documented defaults', (_name, strategy, type) => {
    expect(strategy).toEqual({ type, baseBackoffSeconds: 60, maxRetries: 2, maxDurationSeconds: 600, sameRegion: true });
  });

  it('keeps the options given', () => {
    expect(
      RetryStrategyBuilder.linearStrategy({ baseBackoffSeconds: 10, maxRetries: 3, maxDurationSeconds: 120, sameRegion: false, onlyOn: ['NETWORK_ERROR'] }),
    ).toEqual({ type: 'LINEAR', baseBackoffSeconds: 10, maxRetries: 3, maxDurationSeconds: 120, sameRegion: false, onlyOn: ['NETWORK_ERROR'] });
  });

  it('singleRetry retries once after 60 s in the same region, with no count or time limit', () => {
    expect(RetryStrategyBuilder.singleRetry()).toEqual({ type: 'SINGLE_RETRY', baseBackoffSeconds: 60, sameRegion: true });
  });

  it('noRetries is null, the spec\'s "no strategy"', () => {
    expect(RetryStrategyBuilder.noRetries()).toBeNull();
  });
});

describe('AlertEscalationBuilder', () => {
  it('runBasedEscalation alerts after N failed runs, with default reminders and threshold', () => {
    expect(AlertEscalationBuilder.runBasedEscalation(3)).toEqual({
      escalationType: 'RUN_BASED',
      runBasedEscalation: { failedRunThreshold: 3 },
      timeBasedEscalation: { minutesFailingThreshold: 5 },
      reminders: { amount: 0, interval: 5 },
      parallelRunFailureThreshold: { enabled: false, percentage: 10 },
    });
  });

  it('timeBasedEscalation alerts after N minutes failing, merging partial reminders', () => {
    expect(AlertEscalationBuilder.timeBasedEscalation(10, { amount: 2 }, { enabled: true, percentage: 50 })).toEqual({
      escalationType: 'TIME_BASED',
      runBasedEscalation: { failedRunThreshold: 1 },
      timeBasedEscalation: { minutesFailingThreshold: 10 },
      reminders: { amount: 2, interval: 5 },
      parallelRunFailureThreshold: { enabled: true, percentage: 50 },
    });
  });
});
