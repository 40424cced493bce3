/**
 * Remote values written with the builders users would have used (`Frequency.EVERY_5M`,
 * `AssertionBuilder.statusCode().equals(200)`, ...). Each builder is used only when its output is
 * exactly the remote value; anything else is written as plain data, which the constructs accept
 * too, so the next plan stays empty either way.
 */
import { AlertSettings, RetryStrategy as RetryStrategySchema } from '@vigil/schema';
import { deepEqual } from '../plan/diff.js';
import { call, fromValue, tsString, valueText, type Code } from './code.js';

const FREQUENCY_NAMES: Readonly<Record<number, string>> = {
  1: 'EVERY_1M', 2: 'EVERY_2M', 5: 'EVERY_5M', 10: 'EVERY_10M', 15: 'EVERY_15M', 30: 'EVERY_30M', 60: 'EVERY_1H',
  120: 'EVERY_2H', 180: 'EVERY_3H', 360: 'EVERY_6H', 720: 'EVERY_12H', 1440: 'EVERY_24H',
};

/**
 * A check's frequency. Sub-minute checks carry their offset in the builder (`EVERY_10S` is
 * frequency 0, offset 10); for the others the offset is the service's to assign, so it is left out.
 */
export function frequencyCode(frequency: number, frequencyOffset: unknown): { code: Code; writesOffset: boolean } {
  if (frequency === 0) {
    if (frequencyOffset === 10 || frequencyOffset === 20 || frequencyOffset === 30) {
      return { code: call(`Frequency.EVERY_${frequencyOffset}S`, 'Frequency'), writesOffset: true };
    }
    return { code: fromValue(frequency), writesOffset: false };
  }
  const name = FREQUENCY_NAMES[frequency];
  return { code: name ? call(`Frequency.${name}`, 'Frequency') : fromValue(frequency), writesOffset: false };
}

interface AssertionValue {
  source: string;
  comparison: string;
  property: string;
  target: string;
  regex: string | null;
}

export const NUMERIC_METHODS: Readonly<Record<string, string>> = { EQUALS: 'equals', NOT_EQUALS: 'notEquals', LESS_THAN: 'lessThan', GREATER_THAN: 'greaterThan' };
export const GENERAL_METHODS: Readonly<Record<string, { method: string; takesTarget: boolean }>> = {
  EQUALS: { method: 'equals', takesTarget: true },
  NOT_EQUALS: { method: 'notEquals', takesTarget: true },
  HAS_KEY: { method: 'hasKey', takesTarget: true },
  NOT_HAS_KEY: { method: 'notHasKey', takesTarget: true },
  HAS_VALUE: { method: 'hasValue', takesTarget: true },
  NOT_HAS_VALUE: { method: 'notHasValue', takesTarget: true },
  IS_EMPTY: { method: 'isEmpty', takesTarget: false },
  NOT_EMPTY: { method: 'notEmpty', takesTarget: false },
  LESS_THAN: { method: 'lessThan', takesTarget: true },
  GREATER_THAN: { method: 'greaterThan', takesTarget: true },
  CONTAINS: { method: 'contains', takesTarget: true },
  NOT_CONTAINS: { method: 'notContains', takesTarget: true },
  IS_NULL: { method: 'isNull', takesTarget: false },
  NOT_NULL: { method: 'isNotNull', takesTarget: false },
};
const GENERAL_SOURCES: Readonly<Record<string, string>> = { JSON_BODY: 'jsonBody', HEADERS: 'headers', TEXT_BODY: 'textBody' };

/** `AssertionBuilder.statusCode().equals(200)` when a builder yields exactly this assertion. */
export function assertionCode(assertion: AssertionValue): Code {
  const { source, comparison, property, target, regex } = assertion;
  if (source === 'STATUS_CODE' || source === 'RESPONSE_TIME') {
    const method = NUMERIC_METHODS[comparison];
    const number = Number(target);
    if (method && property === '' && regex === null && target !== '' && String(number) === target) {
      return call(`AssertionBuilder.${source === 'STATUS_CODE' ? 'statusCode' : 'responseTime'}().${method}(${target})`, 'AssertionBuilder');
    }
  }
  const sourceMethod = GENERAL_SOURCES[source];
  const general = GENERAL_METHODS[comparison];
  if (sourceMethod && general && (regex === null || source === 'HEADERS') && (general.takesTarget || target === '')) {
    const args: string[] = [];
    if (property !== '' || regex !== null) args.push(tsString(property));
    if (regex !== null) args.push(tsString(regex));
    return call(`AssertionBuilder.${sourceMethod}(${args.join(', ')}).${general.method}(${general.takesTarget ? tsString(target) : ''})`, 'AssertionBuilder');
  }
  return fromValue(assertion);
}

const RETRY_DEFAULTS = { baseBackoffSeconds: 60, maxRetries: 2, maxDurationSeconds: 600, sameRegion: true } as const;
const RETRY_METHODS: Readonly<Record<string, string>> = { FIXED: 'fixedStrategy', LINEAR: 'linearStrategy', EXPONENTIAL: 'exponentialStrategy' };

/** A retry strategy (`null`: `RetryStrategyBuilder.noRetries()`), as the builder that yields it. */
export function retryStrategyCode(value: unknown): Code {
  if (value === null) return call('RetryStrategyBuilder.noRetries()', 'RetryStrategyBuilder');
  const parsed = RetryStrategySchema.safeParse(value);
  if (!parsed.success) return fromValue(value);
  const strategy = parsed.data;
  const options: Record<string, unknown> = {};
  const method = strategy.type === 'SINGLE_RETRY' ? 'singleRetry' : RETRY_METHODS[strategy.type];
  if (!method) return fromValue(strategy);
  // SINGLE_RETRY has no count or time limit (the service refuses them), so singleRetry() takes neither.
  const keys = strategy.type === 'SINGLE_RETRY' ? (['baseBackoffSeconds', 'sameRegion'] as const) : (['baseBackoffSeconds', 'maxRetries', 'maxDurationSeconds', 'sameRegion'] as const);
  for (const key of keys) {
    const value = (strategy as Record<string, unknown>)[key];
    if (value !== RETRY_DEFAULTS[key]) options[key] = value;
  }
  if (strategy.onlyOn.length > 0) options.onlyOn = strategy.onlyOn;
  return call(`RetryStrategyBuilder.${method}(${Object.keys(options).length > 0 ? valueText(options) : ''})`, 'RetryStrategyBuilder');
}

const DEFAULT_ALERT_SETTINGS = AlertSettings.parse({});

/**
 * Alert settings as `AlertEscalationBuilder.runBasedEscalation(...)` / `timeBasedEscalation(...)`,
 * when the builder reproduces them (the other escalation type's threshold at its default).
 */
export function alertEscalationCode(value: unknown): Code {
  const parsed = AlertSettings.safeParse(value);
  if (!parsed.success) return fromValue(value);
  const settings = parsed.data;
  const args: string[] = [];
  const remindersDefault = deepEqual(settings.reminders, DEFAULT_ALERT_SETTINGS.reminders);
  const parallelDefault = deepEqual(settings.parallelRunFailureThreshold, DEFAULT_ALERT_SETTINGS.parallelRunFailureThreshold);
  const tail = parallelDefault ? (remindersDefault ? [] : [valueText(settings.reminders)]) : [valueText(settings.reminders), valueText(settings.parallelRunFailureThreshold)];
  if (settings.escalationType === 'RUN_BASED' && deepEqual(settings.timeBasedEscalation, DEFAULT_ALERT_SETTINGS.timeBasedEscalation)) {
    const threshold = settings.runBasedEscalation.failedRunThreshold;
    if (threshold !== 1 || tail.length > 0) args.push(String(threshold));
    return call(`AlertEscalationBuilder.runBasedEscalation(${[...args, ...tail].join(', ')})`, 'AlertEscalationBuilder');
  }
  if (settings.escalationType === 'TIME_BASED' && deepEqual(settings.runBasedEscalation, DEFAULT_ALERT_SETTINGS.runBasedEscalation)) {
    const minutes = settings.timeBasedEscalation.minutesFailingThreshold;
    if (minutes !== 5 || tail.length > 0) args.push(String(minutes));
    return call(`AlertEscalationBuilder.timeBasedEscalation(${[...args, ...tail].join(', ')})`, 'AlertEscalationBuilder');
  }
  return fromValue(settings);
}
