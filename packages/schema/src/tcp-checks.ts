/**
 * TCP monitors: `POST /v1/checks/tcp`, `PUT /v1/checks/tcp/{id}` and the check as the service
 * returns it. Shapes as the real service's OpenAPI document (`ChecksV1TcpCheckCreate`,
 * `ChecksV1TcpRequest`, `ChecksV1TcpAssertion`); the create / update / response pattern of `checks.ts`.
 */
import { z } from 'zod';
import { MISSING_MESSAGE } from './errors.js';
import { Frequency, IpFamily } from './values.js';
import { ASSERTIONS_MAX } from './limits.js';
import { allOptional, whenFieldsValid, withDefaults } from './helpers.js';
import { checkResponseFields, commonCheckDefaults, commonCheckFields, refineFrequencyOffset } from './checks.js';

/** A missing enum value reads `"field" is required`, as in values.ts. */
const missingAware = {
  error: (issue: { input?: unknown }) => (issue.input === undefined ? MISSING_MESSAGE : undefined),
};

export const TCP_ASSERTION_SOURCES = ['RESPONSE_DATA', 'RESPONSE_TIME'] as const;
export const TcpAssertionSource = z.enum(TCP_ASSERTION_SOURCES, missingAware);
export type TcpAssertionSource = z.infer<typeof TcpAssertionSource>;

/** The comparisons the real service takes for a TCP assertion (a subset of the API check's). */
export const TCP_ASSERTION_COMPARISONS = [
  'EQUALS', 'NOT_EQUALS', 'IS_EMPTY', 'NOT_EMPTY', 'LESS_THAN', 'GREATER_THAN', 'CONTAINS', 'NOT_CONTAINS',
] as const;
export const TcpAssertionComparison = z.enum(TCP_ASSERTION_COMPARISONS, missingAware);

/**
 * Response-time limits of a TCP monitor: 0..5000 ms is Checkly's construct limit (the real OpenAPI
 * allows 45000 only for accounts with extended limits); the defaults 3000 / 5000 are the real
 * OpenAPI's (Checkly's JSDoc says 4000, but its construct sends nothing, so the service's apply).
 */
export const TCP_RESPONSE_TIME_MAX = 5000;
export const TCP_DEGRADED_RESPONSE_TIME_DEFAULT = 3000;
export const TCP_MAX_RESPONSE_TIME_DEFAULT = 5000;

const TcpResponseTime = z.number().min(0).max(TCP_RESPONSE_TIME_MAX).nullable();

export const TcpAssertion = z.object({
  source: TcpAssertionSource,
  comparison: TcpAssertionComparison,
  property: z.string().default(''),
  target: z.string().default(''),
  regex: z.string().nullable().default(null),
});
export type TcpAssertion = z.infer<typeof TcpAssertion>;

/** Where to connect and what to send: `hostname` without scheme or port, `port` 1..65535. */
export const TcpRequest = z.object({
  hostname: z.string().min(1).max(2048),
  port: z.number().int().min(1).max(65535),
  /** Sent once the connection is up (a protocol's greeting or command); null sends nothing. */
  data: z.string().min(1).nullable().default(null),
  ipFamily: IpFamily.default('IPv4'),
  assertions: z.array(TcpAssertion).max(ASSERTIONS_MAX).default([]),
});
export type TcpRequest = z.infer<typeof TcpRequest>;

const tcpCheckFields = {
  ...commonCheckFields,
  checkType: z.literal('TCP').optional(),
  /** TCP checks may run sub-minute, so frequency 0 is offered as for API checks. */
  frequency: Frequency.optional(),
  degradedResponseTime: TcpResponseTime.optional(),
  maxResponseTime: TcpResponseTime.optional(),
  request: TcpRequest,
};

const tcpCheckCreateShape = withDefaults(tcpCheckFields, {
  ...commonCheckDefaults,
  checkType: 'TCP',
  degradedResponseTime: TCP_DEGRADED_RESPONSE_TIME_DEFAULT,
  maxResponseTime: TCP_MAX_RESPONSE_TIME_DEFAULT,
});

const OFFSET_FIELDS = whenFieldsValid('frequency', 'frequencyOffset', 'checkType');

/** Body of `POST /v1/checks/tcp`; required `name`, `request` (`hostname`, `port`). */
export const TcpCheckCreate = z.object(tcpCheckCreateShape).superRefine(refineFrequencyOffset(() => 'TCP'), OFFSET_FIELDS);
export type TcpCheckCreate = z.infer<typeof TcpCheckCreate>;
export type TcpCheckCreateInput = z.input<typeof TcpCheckCreate>;

/** Body of `PUT /v1/checks/tcp/{id}`: merge semantics, nothing defaulted (a sent `request` is whole). */
export const TcpCheckUpdate = z.object(allOptional(tcpCheckFields)).superRefine(refineFrequencyOffset(() => 'TCP'), OFFSET_FIELDS);
export type TcpCheckUpdate = z.infer<typeof TcpCheckUpdate>;

/** A TCP monitor as the service returns it. */
export const TcpCheck = z.object({
  ...tcpCheckCreateShape,
  ...checkResponseFields,
  checkType: z.literal('TCP'),
  frequencyOffset: z.number().int(),
});
export type TcpCheck = z.infer<typeof TcpCheck>;
