/**
 * ICMP monitors: `POST /v1/checks/icmp`, `PUT /v1/checks/icmp/{id}` and the check as the service
 * returns it. Shapes as the real service's OpenAPI document (`ChecksV1IcmpMonitorCreate`,
 * `ChecksV1IcmpRequest`, `ChecksV1IcmpAssertion`); the create / update / response pattern of `checks.ts`.
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

export const ICMP_ASSERTION_SOURCES = ['LATENCY', 'JSON_RESPONSE'] as const;
export const IcmpAssertionSource = z.enum(ICMP_ASSERTION_SOURCES, missingAware);
export type IcmpAssertionSource = z.infer<typeof IcmpAssertionSource>;

/** The round-trip statistics a `LATENCY` assertion names, in milliseconds. */
export const ICMP_LATENCY_PROPERTIES = ['avg', 'min', 'max', 'stdDev'] as const;

export const ICMP_ASSERTION_COMPARISONS = [
  'EQUALS', 'NOT_EQUALS', 'IS_EMPTY', 'NOT_EMPTY', 'GREATER_THAN', 'LESS_THAN', 'CONTAINS', 'NOT_CONTAINS', 'IS_NULL', 'NOT_NULL',
] as const;

export const IcmpAssertion = z.object({
  source: IcmpAssertionSource,
  comparison: z.enum(ICMP_ASSERTION_COMPARISONS, missingAware),
  /** `avg`, `min`, `max` or `stdDev` for LATENCY; a JSONPath for JSON_RESPONSE. */
  property: z.string().default(''),
  target: z.string().default(''),
  regex: z.string().nullable().default(null),
});
export type IcmpAssertion = z.infer<typeof IcmpAssertion>;

/** Echo requests sent per run: 1..50, 10 by default. */
export const ICMP_PING_COUNT_MAX = 50;

export const IcmpRequest = z.object({
  hostname: z.string().min(1).max(2048),
  ipFamily: IpFamily.nullable().default('IPv4'),
  pingCount: z.number().int().min(1).max(ICMP_PING_COUNT_MAX).nullable().default(10),
  assertions: z.array(IcmpAssertion).max(ASSERTIONS_MAX).default([]),
});
export type IcmpRequest = z.infer<typeof IcmpRequest>;

/** Packet loss in percent (above 0, at most 100): degraded past 10 and failing past 20 by default. */
const PacketLoss = z.number().gt(0).max(100).nullable();
export const ICMP_DEGRADED_PACKET_LOSS_DEFAULT = 10;
export const ICMP_MAX_PACKET_LOSS_DEFAULT = 20;

/** Run time limits 0..300000 ms, degraded at 10000 and failing at 20000 by default. */
export const ICMP_RESPONSE_TIME_MAX = 300000;
const IcmpResponseTime = z.number().min(0).max(ICMP_RESPONSE_TIME_MAX).nullable();

const icmpCheckFields = {
  ...commonCheckFields,
  checkType: z.literal('ICMP').optional(),
  frequency: Frequency.optional(),
  degradedResponseTime: IcmpResponseTime.optional(),
  maxResponseTime: IcmpResponseTime.optional(),
  degradedPacketLossThreshold: PacketLoss.optional(),
  maxPacketLossThreshold: PacketLoss.optional(),
  request: IcmpRequest,
};

const icmpCheckCreateShape = withDefaults(icmpCheckFields, {
  ...commonCheckDefaults,
  checkType: 'ICMP',
  degradedResponseTime: 10000,
  maxResponseTime: 20000,
  degradedPacketLossThreshold: ICMP_DEGRADED_PACKET_LOSS_DEFAULT,
  maxPacketLossThreshold: ICMP_MAX_PACKET_LOSS_DEFAULT,
});

const OFFSET_FIELDS = whenFieldsValid('frequency', 'frequencyOffset', 'checkType');

/** Body of `POST /v1/checks/icmp`; required `name`, `request.hostname`. */
export const IcmpCheckCreate = z.object(icmpCheckCreateShape).superRefine(refineFrequencyOffset(() => 'OTHER'), OFFSET_FIELDS);
export type IcmpCheckCreate = z.infer<typeof IcmpCheckCreate>;

/** Body of `PUT /v1/checks/icmp/{id}`: merge semantics, nothing defaulted (a sent `request` is whole). */
export const IcmpCheckUpdate = z.object(allOptional(icmpCheckFields)).superRefine(refineFrequencyOffset(() => 'OTHER'), OFFSET_FIELDS);
export type IcmpCheckUpdate = z.infer<typeof IcmpCheckUpdate>;

/** An ICMP monitor as the service returns it. */
export const IcmpCheck = z.object({
  ...icmpCheckCreateShape,
  ...checkResponseFields,
  checkType: z.literal('ICMP'),
  frequencyOffset: z.number().int(),
});
export type IcmpCheck = z.infer<typeof IcmpCheck>;
