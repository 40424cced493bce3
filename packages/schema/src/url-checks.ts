/**
 * URL monitors: `POST /v1/checks/url`, `PUT /v1/checks/url/{id}` and the check as the service
 * returns it. Shapes as the real service's OpenAPI document (`ChecksV1UrlMonitorCreate`,
 * `ChecksV1UrlRequest`, `ChecksV1UrlAssertion`); the create / update / response pattern of `checks.ts`.
 */
import { z } from 'zod';
import { MISSING_MESSAGE } from './errors.js';
import { IpFamily, Frequency } from './values.js';
import { ASSERTIONS_MAX } from './limits.js';
import { allOptional, whenFieldsValid, withDefaults } from './helpers.js';
import { checkResponseFields, commonCheckDefaults, commonCheckFields, refineFrequencyOffset } from './checks.js';

/** A missing enum value reads `"field" is required`, as in values.ts. */
const missingAware = {
  error: (issue: { input?: unknown }) => (issue.input === undefined ? MISSING_MESSAGE : undefined),
};

/** A URL monitor asserts on the status code only (the real OpenAPI's `ChecksV1UrlAssertion`). */
export const URL_ASSERTION_SOURCES = ['STATUS_CODE'] as const;
export const URL_ASSERTION_COMPARISONS = ['EQUALS', 'NOT_EQUALS', 'LESS_THAN', 'GREATER_THAN'] as const;

/**
 * Response-time limits of a URL monitor: 0..30000 ms is Checkly's construct limit (the real OpenAPI
 * allows 45000 only for accounts with extended limits); defaults 3000 / 5000 as both document.
 */
export const URL_RESPONSE_TIME_MAX = 30000;
export const URL_DEGRADED_RESPONSE_TIME_DEFAULT = 3000;
export const URL_MAX_RESPONSE_TIME_DEFAULT = 5000;

const UrlResponseTime = z.number().min(0).max(URL_RESPONSE_TIME_MAX).nullable();

export const UrlAssertion = z.object({
  source: z.enum(URL_ASSERTION_SOURCES, missingAware),
  comparison: z.enum(URL_ASSERTION_COMPARISONS, missingAware),
  property: z.string().default(''),
  target: z.string().default(''),
  regex: z.string().nullable().default(null),
});
export type UrlAssertion = z.infer<typeof UrlAssertion>;

/** A GET of `url` (http or https, at most 2048 characters). */
export const UrlRequest = z.object({
  method: z.literal('GET').default('GET'),
  url: z.string().min(1).max(2048),
  /** The real OpenAPI gives no default; Checkly's construct documents `true`, as the API check's. */
  followRedirects: z.boolean().default(true),
  skipSSL: z.boolean().default(false),
  ipFamily: IpFamily.default('IPv4'),
  assertions: z.array(UrlAssertion).max(ASSERTIONS_MAX).default([]),
});
export type UrlRequest = z.infer<typeof UrlRequest>;

const urlCheckFields = {
  ...commonCheckFields,
  checkType: z.literal('URL').optional(),
  /** Frequency 0 (sub-minute, offset 10, 20 or 30) as the real service's document allows. */
  frequency: Frequency.optional(),
  degradedResponseTime: UrlResponseTime.optional(),
  maxResponseTime: UrlResponseTime.optional(),
  request: UrlRequest,
};

const urlCheckCreateShape = withDefaults(urlCheckFields, {
  ...commonCheckDefaults,
  checkType: 'URL',
  degradedResponseTime: URL_DEGRADED_RESPONSE_TIME_DEFAULT,
  maxResponseTime: URL_MAX_RESPONSE_TIME_DEFAULT,
});

const OFFSET_FIELDS = whenFieldsValid('frequency', 'frequencyOffset', 'checkType');

/** Body of `POST /v1/checks/url`; required `name`, `request.url`. */
export const UrlCheckCreate = z.object(urlCheckCreateShape).superRefine(refineFrequencyOffset(() => 'URL'), OFFSET_FIELDS);
export type UrlCheckCreate = z.infer<typeof UrlCheckCreate>;
export type UrlCheckCreateInput = z.input<typeof UrlCheckCreate>;

/** Body of `PUT /v1/checks/url/{id}`: merge semantics, nothing defaulted (a sent `request` is whole). */
export const UrlCheckUpdate = z.object(allOptional(urlCheckFields)).superRefine(refineFrequencyOffset(() => 'URL'), OFFSET_FIELDS);
export type UrlCheckUpdate = z.infer<typeof UrlCheckUpdate>;

/** A URL monitor as the service returns it. */
export const UrlCheck = z.object({
  ...urlCheckCreateShape,
  ...checkResponseFields,
  checkType: z.literal('URL'),
  frequencyOffset: z.number().int(),
});
export type UrlCheck = z.infer<typeof UrlCheck>;
