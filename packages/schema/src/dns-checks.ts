/**
 * DNS monitors: `POST /v1/checks/dns`, `PUT /v1/checks/dns/{id}` and the check as the service
 * returns it. Shapes as the real service's OpenAPI document (`ChecksV1DnsMonitorCreate`,
 * `ChecksV1DnsRequest`, `ChecksV1DnsAssertion`); the same create / update / response pattern as
 * `checks.ts`.
 */
import { z } from 'zod';
import { MISSING_MESSAGE } from './errors.js';
import { ASSERTION_COMPARISONS, Frequency } from './values.js';
import { ASSERTIONS_MAX } from './limits.js';
import { ClosedRetryStrategy, ClosedTriggerIncident } from './embedded.js';
import { allOptional, closedObject, whenFieldsValid, withDefaults } from './helpers.js';
import { checkResponseFields, commonCheckDefaults, commonCheckFields, refineFrequencyOffset } from './checks.js';

/** A missing enum value reads `"field" is required`, as in values.ts. */
const missingAware = {
  error: (issue: { input?: unknown }) => (issue.input === undefined ? MISSING_MESSAGE : undefined),
};

export const DNS_RECORD_TYPES = ['A', 'AAAA', 'CNAME', 'MX', 'NS', 'TXT', 'SOA', 'HTTPS'] as const;
export const DnsRecordType = z.enum(DNS_RECORD_TYPES, missingAware);
export type DnsRecordType = z.infer<typeof DnsRecordType>;

export const DNS_PROTOCOLS = ['UDP', 'TCP'] as const;
export const DnsProtocol = z.enum(DNS_PROTOCOLS, missingAware);
export type DnsProtocol = z.infer<typeof DnsProtocol>;

export const DNS_ASSERTION_SOURCES = ['RESPONSE_CODE', 'RESPONSE_TIME', 'TEXT_ANSWER', 'JSON_ANSWER'] as const;
export const DnsAssertionSource = z.enum(DNS_ASSERTION_SOURCES, missingAware);
export type DnsAssertionSource = z.infer<typeof DnsAssertionSource>;

/** The port a name server is asked on when the request names none (Checkly's construct documents 53). */
export const DNS_DEFAULT_PORT = 53;

/**
 * Response-time limits of a DNS monitor: 0..5000 ms, degraded at 500 and failing at 1000 by default
 * (the real OpenAPI's `ChecksV1DnsMonitorCreate` and Checkly's `DnsMonitor`: "lower thresholds
 * than most other checks").
 */
export const DNS_RESPONSE_TIME_MAX = 5000;
export const DNS_DEGRADED_RESPONSE_TIME_DEFAULT = 500;
export const DNS_MAX_RESPONSE_TIME_DEFAULT = 1000;

const DnsResponseTime = z.number().min(0).max(DNS_RESPONSE_TIME_MAX).nullable();

export const DnsAssertion = z.object({
  source: DnsAssertionSource,
  comparison: z.enum(ASSERTION_COMPARISONS, missingAware),
  /** JSONPath for `JSON_ANSWER`; for `TEXT_ANSWER` Checkly's builder puts its regex here. */
  property: z.string().default(''),
  target: z.string().default(''),
  regex: z.string().nullable().default(null),
});
export type DnsAssertion = z.infer<typeof DnsAssertion>;

/** The query: `query` 1..100 characters, `nameServer` at most 100, `port` 1..65535. */
export const DnsRequest = z.object({
  recordType: DnsRecordType,
  query: z.string().min(1).max(100),
  nameServer: z.string().max(100).optional(),
  port: z.number().int().min(1).max(65535).optional(),
  protocol: DnsProtocol.default('UDP'),
  assertions: z.array(DnsAssertion).max(ASSERTIONS_MAX).default([]),
});
export type DnsRequest = z.infer<typeof DnsRequest>;

const dnsCheckFields = {
  ...commonCheckFields,
  checkType: z.literal('DNS').optional(),
  /** Frequency 0 (sub-minute, offset 10, 20 or 30) as the real service's document allows. */
  frequency: Frequency.optional(),
  degradedResponseTime: DnsResponseTime.optional(),
  maxResponseTime: DnsResponseTime.optional(),
  request: DnsRequest,
};

const dnsCheckCreateShape = withDefaults(dnsCheckFields, {
  ...commonCheckDefaults,
  checkType: 'DNS',
  degradedResponseTime: DNS_DEGRADED_RESPONSE_TIME_DEFAULT,
  maxResponseTime: DNS_MAX_RESPONSE_TIME_DEFAULT,
});

const OFFSET_FIELDS = whenFieldsValid('frequency', 'frequencyOffset', 'checkType');

/**
 * Properties the real document's `ChecksV1DnsMonitorCreate` lists that a DNS monitor here does not
 * use (scripts, AI repair, intents): accepted and dropped, while anything else is refused.
 */
const DNS_CREATE_ALSO_ACCEPTED = [
  'aiAutoRepairEnabled', 'environmentVariables', 'heartbeat', 'intent', 'localSetupScript', 'localTearDownScript',
  'script', 'scriptPath', 'sslCheckDomain',
] as const;

/**
 * Body of `POST /v1/checks/dns`; required `name`, `request` (`recordType`, `query`). The real
 * document closes this body, its `retryStrategy` and its `triggerIncident` (`additionalProperties:
 * false`), so an unknown property is a 400 naming it rather than silently dropped.
 */
export const DnsCheckCreate = closedObject(
  { ...dnsCheckCreateShape, retryStrategy: ClosedRetryStrategy.nullable().optional(), triggerIncident: ClosedTriggerIncident.nullable().optional() },
  DNS_CREATE_ALSO_ACCEPTED,
).superRefine(refineFrequencyOffset(() => 'DNS'), OFFSET_FIELDS);
// Typed as the open object: the refused properties never reach a parsed value.
const dnsCheckCreateObject = z.object(dnsCheckCreateShape);
export type DnsCheckCreate = z.infer<typeof dnsCheckCreateObject>;
export type DnsCheckCreateInput = z.input<typeof dnsCheckCreateObject>;

/**
 * Body of `PUT /v1/checks/dns/{id}`: merge semantics, nothing defaulted (a sent `request` is whole),
 * except `name`, which the real document requires on this PUT.
 */
export const DnsCheckUpdate = z.object({ ...allOptional(dnsCheckFields), name: dnsCheckFields.name }).superRefine(refineFrequencyOffset(() => 'DNS'), OFFSET_FIELDS);
export type DnsCheckUpdate = z.infer<typeof DnsCheckUpdate>;

/** A DNS monitor as the service returns it. */
export const DnsCheck = z.object({
  ...dnsCheckCreateShape,
  ...checkResponseFields,
  checkType: z.literal('DNS'),
  frequencyOffset: z.number().int(),
});
export type DnsCheck = z.infer<typeof DnsCheck>;
