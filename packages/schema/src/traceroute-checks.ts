/**
 * Traceroute monitors: `POST /v1/checks/traceroute`, `PUT /v1/checks/traceroute/{id}` (extension
 * routes, docs/design-deviations.md) and the check as the service returns it. Shapes as the real
 * service's OpenAPI document (`ChecksV1TracerouteMonitor`, `ChecksV1TracerouteRequestRead`,
 * `ChecksV1TracerouteAssertionRead`); the create / update / response pattern of `checks.ts`. The
 * assertion grammar lives here because the constructs validate against it and the runner
 * evaluates exactly these sources.
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

export const TRACEROUTE_PROTOCOLS = ['TCP', 'ICMP', 'UDP', 'SCTP'] as const;
export const TracerouteProtocol = z.enum(TRACEROUTE_PROTOCOLS, missingAware);
export type TracerouteProtocol = z.infer<typeof TracerouteProtocol>;

/** The port probed when none is set: an open one for TCP, a closed high one where only "port unreachable" confirms arrival. */
export const TRACEROUTE_DEFAULT_PORTS: Readonly<Record<Exclude<TracerouteProtocol, 'ICMP'>, number>> = { TCP: 443, UDP: 33434, SCTP: 33434 };

export const TRACEROUTE_ASSERTION_SOURCES = ['RESPONSE_TIME', 'HOP_COUNT', 'PACKET_LOSS'] as const;
export const TracerouteAssertionSource = z.enum(TRACEROUTE_ASSERTION_SOURCES, missingAware);
export type TracerouteAssertionSource = z.infer<typeof TracerouteAssertionSource>;

/** The final hop's round-trip statistics a RESPONSE_TIME assertion names, in milliseconds. */
export const TRACEROUTE_RESPONSE_TIME_PROPERTIES = ['avg', 'min', 'max', 'stdDev'] as const;

/**
 * Which comparisons each source takes (Checkly's grammar): hop count and packet loss have no
 * NOT_EQUALS. HOP_COUNT and PACKET_LOSS take no property.
 */
export const TRACEROUTE_COMPARISONS: Readonly<Record<TracerouteAssertionSource, readonly string[]>> = {
  RESPONSE_TIME: ['EQUALS', 'NOT_EQUALS', 'GREATER_THAN', 'LESS_THAN'],
  HOP_COUNT: ['EQUALS', 'GREATER_THAN', 'LESS_THAN'],
  PACKET_LOSS: ['EQUALS', 'GREATER_THAN', 'LESS_THAN'],
};

export const TracerouteAssertion = z.object({
  source: TracerouteAssertionSource,
  comparison: z.string().min(1),
  /** `avg`, `min`, `max` or `stdDev` for RESPONSE_TIME; empty for the others. */
  property: z.string().default(''),
  target: z.string().default(''),
  regex: z.string().nullable().default(null),
});
export type TracerouteAssertion = z.infer<typeof TracerouteAssertion>;

export const TRACEROUTE_MAX_HOPS = 64;
export const TRACEROUTE_MAX_UNKNOWN_HOPS = 30;
export const TRACEROUTE_TIMEOUT_MAX = 30;

export const TracerouteRequest = z.object({
  /** The host, without scheme or port (the real document calls it `url`). */
  url: z.string().min(1).max(2048),
  protocol: TracerouteProtocol.nullable().default('TCP'),
  /** Not used for ICMP; null means the protocol's default port. */
  port: z.number().int().min(1).max(65535).nullable().default(null),
  ipFamily: IpFamily.nullable().default('IPv4'),
  maxHops: z.number().int().min(1).max(TRACEROUTE_MAX_HOPS).nullable().default(30),
  /** Consecutive unanswered hops after which the trace stops. */
  maxUnknownHops: z.number().int().min(1).max(TRACEROUTE_MAX_UNKNOWN_HOPS).nullable().default(15),
  ptrLookup: z.boolean().nullable().default(true),
  /** Seconds for the whole trace. */
  timeout: z.number().int().min(1).max(TRACEROUTE_TIMEOUT_MAX).nullable().default(10),
  assertions: z.array(TracerouteAssertion).max(ASSERTIONS_MAX).default([]),
});
export type TracerouteRequest = z.infer<typeof TracerouteRequest>;

/** Run time limits 0..30000 ms, degraded at 10000 and failing at 20000 by default. */
export const TRACEROUTE_RESPONSE_TIME_MAX = 30000;
export const TRACEROUTE_DEGRADED_RESPONSE_TIME_DEFAULT = 10000;
export const TRACEROUTE_MAX_RESPONSE_TIME_DEFAULT = 20000;
const TracerouteResponseTime = z.number().min(0).max(TRACEROUTE_RESPONSE_TIME_MAX).nullable();

const tracerouteCheckFields = {
  ...commonCheckFields,
  checkType: z.literal('TRACEROUTE').optional(),
  frequency: Frequency.optional(),
  degradedResponseTime: TracerouteResponseTime.optional(),
  maxResponseTime: TracerouteResponseTime.optional(),
  request: TracerouteRequest,
};

const tracerouteCheckCreateShape = withDefaults(tracerouteCheckFields, {
  ...commonCheckDefaults,
  checkType: 'TRACEROUTE',
  degradedResponseTime: TRACEROUTE_DEGRADED_RESPONSE_TIME_DEFAULT,
  maxResponseTime: TRACEROUTE_MAX_RESPONSE_TIME_DEFAULT,
});

const OFFSET_FIELDS = whenFieldsValid('frequency', 'frequencyOffset', 'checkType');

/** Body of `POST /v1/checks/traceroute`; required `name`, `request.url`. */
export const TracerouteCheckCreate = z.object(tracerouteCheckCreateShape).superRefine(refineFrequencyOffset(() => 'OTHER'), OFFSET_FIELDS);
export type TracerouteCheckCreate = z.infer<typeof TracerouteCheckCreate>;

/** Body of `PUT /v1/checks/traceroute/{id}`: merge semantics, nothing defaulted (a sent `request` is whole). */
export const TracerouteCheckUpdate = z.object(allOptional(tracerouteCheckFields)).superRefine(refineFrequencyOffset(() => 'OTHER'), OFFSET_FIELDS);
export type TracerouteCheckUpdate = z.infer<typeof TracerouteCheckUpdate>;

/** A traceroute monitor as the service returns it. */
export const TracerouteCheck = z.object({
  ...tracerouteCheckCreateShape,
  ...checkResponseFields,
  checkType: z.literal('TRACEROUTE'),
  frequencyOffset: z.number().int(),
});
export type TracerouteCheck = z.infer<typeof TracerouteCheck>;
