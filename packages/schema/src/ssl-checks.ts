/**
 * SSL monitors: `POST /v1/checks/ssl`, `PUT /v1/checks/ssl/{id}` and the check as the service
 * returns it. Shapes as the real service's OpenAPI document (`ChecksV1SslMonitorCreate`,
 * `ChecksV1SslRequest`, `ChecksV1SslConfig`, `ChecksV1SslAssertion`); the create / update /
 * response pattern of `checks.ts`. The assertion grammar (which certificate and connection facts
 * exist, and how each compares) lives here because the constructs validate against it and the
 * runner produces exactly these facts.
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

export const SSL_ASSERTION_SOURCES = ['CERTIFICATE', 'CONNECTION', 'RESPONSE_TIME', 'JSON_RESPONSE', 'TEXT_RESPONSE'] as const;
export const SslAssertionSource = z.enum(SSL_ASSERTION_SOURCES, missingAware);
export type SslAssertionSource = z.infer<typeof SslAssertionSource>;

const NUMERIC = ['EQUALS', 'NOT_EQUALS', 'GREATER_THAN', 'LESS_THAN'] as const;
const TEXT = ['EQUALS', 'NOT_EQUALS', 'CONTAINS', 'NOT_CONTAINS'] as const;
const WHOLE = ['EQUALS', 'NOT_EQUALS'] as const;
const FLAG = ['EQUALS'] as const;

/** How a certificate or connection fact is written as a target, and which comparisons it takes. */
export interface SslPropertyGrammar {
  readonly type: 'number' | 'string' | 'boolean';
  readonly comparisons: readonly string[];
}

/**
 * The certificate facts an assertion can name (Checkly's grammar): each property's target type and
 * comparisons. `sans` is a list, so only membership is asserted.
 */
export const SSL_CERTIFICATE_PROPERTIES = {
  daysUntilExpiry: { type: 'number', comparisons: NUMERIC },
  keySizeBits: { type: 'number', comparisons: NUMERIC },
  subjectCN: { type: 'string', comparisons: TEXT },
  issuerCN: { type: 'string', comparisons: TEXT },
  serialNumber: { type: 'string', comparisons: WHOLE },
  fingerprintSha256: { type: 'string', comparisons: WHOLE },
  issuerFingerprintSha256: { type: 'string', comparisons: WHOLE },
  keyAlgorithm: { type: 'string', comparisons: WHOLE },
  signatureAlgorithm: { type: 'string', comparisons: WHOLE },
  sans: { type: 'string', comparisons: ['CONTAINS', 'NOT_CONTAINS'] },
  selfSigned: { type: 'boolean', comparisons: FLAG },
  isCA: { type: 'boolean', comparisons: FLAG },
} as const satisfies Record<string, SslPropertyGrammar>;

/** The connection (handshake) facts an assertion can name; `tlsVersion` orders, so `greaterThan` is a minimum. */
export const SSL_CONNECTION_PROPERTIES = {
  tlsVersion: { type: 'string', comparisons: NUMERIC },
  cipherSuite: { type: 'string', comparisons: TEXT },
  hostnameVerified: { type: 'boolean', comparisons: FLAG },
  chainTrusted: { type: 'boolean', comparisons: FLAG },
  ocspStapled: { type: 'boolean', comparisons: FLAG },
  ocspStatus: { type: 'string', comparisons: WHOLE },
  resolvedIp: { type: 'string', comparisons: TEXT },
} as const satisfies Record<string, SslPropertyGrammar>;

export type SslCertificateProperty = keyof typeof SSL_CERTIFICATE_PROPERTIES;
export type SslConnectionProperty = keyof typeof SSL_CONNECTION_PROPERTIES;

/** The property table of a property-scoped source, or undefined for the others. */
export function sslPropertyGrammar(source: string): Readonly<Record<string, SslPropertyGrammar>> | undefined {
  if (source === 'CERTIFICATE') return SSL_CERTIFICATE_PROPERTIES;
  if (source === 'CONNECTION') return SSL_CONNECTION_PROPERTIES;
  return undefined;
}

export const SslAssertion = z.object({
  source: SslAssertionSource,
  comparison: z.string().min(1),
  /** The fact for CERTIFICATE/CONNECTION, a JSONPath for JSON_RESPONSE, a regex for TEXT_RESPONSE. */
  property: z.string().default(''),
  target: z.string().default(''),
  regex: z.string().nullable().default(null),
});
export type SslAssertion = z.infer<typeof SslAssertion>;

export const SSL_BASELINE_SEVERITIES = ['fail', 'degrade', 'ignore'] as const;
const Severity = z.enum(SSL_BASELINE_SEVERITIES);
const TlsRule = z.strictObject({ value: z.enum(['TLS1.2', 'TLS1.3']).optional(), severity: Severity.optional() });
const KeySizeRule = z.strictObject({ value: z.number().int().min(1024).max(16384).optional(), severity: Severity.optional() });
const SeverityRule = z.strictObject({ severity: Severity.optional() });

/**
 * The security baseline: rules judged on every run, each failing, degrading or ignored. Omitted
 * rules take the real service's defaults (see {@link SSL_BASELINE_DEFAULTS}).
 */
export const SslSecurityBaseline = z.strictObject({
  enabled: z.boolean().optional(),
  minTLSVersion: TlsRule.optional(),
  minKeySizeBits: KeySizeRule.optional(),
  weakSignatureAlgorithm: SeverityRule.optional(),
  weakCipherSuite: SeverityRule.optional(),
  knownBadCA: SeverityRule.optional(),
  recommendedTLSVersion: TlsRule.optional(),
  recommendedKeySizeBits: KeySizeRule.optional(),
  ocspMustStapleRespected: SeverityRule.optional(),
  sctPresent: SeverityRule.optional(),
});
export type SslSecurityBaseline = z.infer<typeof SslSecurityBaseline>;

/** The real document's defaults of each baseline rule: the enforceable ones fail, the advisory ones are ignored. */
export const SSL_BASELINE_DEFAULTS = {
  minTLSVersion: { value: 'TLS1.2', severity: 'fail' },
  minKeySizeBits: { value: 2048, severity: 'fail' },
  weakSignatureAlgorithm: { severity: 'fail' },
  weakCipherSuite: { severity: 'fail' },
  knownBadCA: { severity: 'fail' },
  recommendedTLSVersion: { value: 'TLS1.3', severity: 'ignore' },
  recommendedKeySizeBits: { value: 3072, severity: 'ignore' },
  ocspMustStapleRespected: { severity: 'ignore' },
  sctPresent: { severity: 'ignore' },
} as const;

/** Handshake timeout 1000..30000 ms (default 10000); an alert this many days (1..365, default 20) before expiry. */
export const SslConfig = z.object({
  hostname: z.string().min(1).max(2048).regex(/^[^\x00-\x1f\x7f]*$/, 'must not contain control characters'),
  port: z.number().int().min(1).max(65535).default(443),
  /** The SNI name sent in the handshake (and the name the certificate must match); the hostname when unset. */
  serverName: z.string().max(2048).nullable().optional(),
  ipFamily: IpFamily.default('IPv4'),
  skipChainValidation: z.boolean().default(false),
  handshakeTimeoutMs: z.number().int().min(1000).max(30000).default(10000),
  alertDaysBeforeExpiry: z.number().int().min(1).max(365).default(20),
  securityBaseline: SslSecurityBaseline.optional(),
  clientCertificateMode: z.enum(['auto', 'explicit']).optional(),
});
export type SslConfig = z.infer<typeof SslConfig>;

export const SslRequest = z.object({
  sslConfig: SslConfig,
  sslClientCertificateId: z.string().uuid().nullable().optional(),
  assertions: z.array(SslAssertion).max(ASSERTIONS_MAX).default([]),
});
export type SslRequest = z.infer<typeof SslRequest>;

/** Response-time limits of an SSL monitor (the handshake): 0..30000 ms, degraded at 3000 and failing at 10000 by default. */
export const SSL_RESPONSE_TIME_MAX = 30000;
export const SSL_DEGRADED_RESPONSE_TIME_DEFAULT = 3000;
export const SSL_MAX_RESPONSE_TIME_DEFAULT = 10000;

const SslResponseTime = z.number().int().min(0).max(SSL_RESPONSE_TIME_MAX).nullable();

const sslCheckFields = {
  ...commonCheckFields,
  checkType: z.literal('SSL').optional(),
  frequency: Frequency.optional(),
  degradedResponseTime: SslResponseTime.optional(),
  maxResponseTime: SslResponseTime.optional(),
  request: SslRequest,
};

const sslCheckCreateShape = withDefaults(sslCheckFields, {
  ...commonCheckDefaults,
  checkType: 'SSL',
  degradedResponseTime: SSL_DEGRADED_RESPONSE_TIME_DEFAULT,
  maxResponseTime: SSL_MAX_RESPONSE_TIME_DEFAULT,
});

const OFFSET_FIELDS = whenFieldsValid('frequency', 'frequencyOffset', 'checkType');

/** Body of `POST /v1/checks/ssl`; required `name`, `request.sslConfig.hostname`. */
export const SslCheckCreate = z.object(sslCheckCreateShape).superRefine(refineFrequencyOffset(() => 'OTHER'), OFFSET_FIELDS);
export type SslCheckCreate = z.infer<typeof SslCheckCreate>;
export type SslCheckCreateInput = z.input<typeof SslCheckCreate>;

/** Body of `PUT /v1/checks/ssl/{id}`: merge semantics, nothing defaulted (a sent `request` is whole). */
export const SslCheckUpdate = z.object(allOptional(sslCheckFields)).superRefine(refineFrequencyOffset(() => 'OTHER'), OFFSET_FIELDS);
export type SslCheckUpdate = z.infer<typeof SslCheckUpdate>;

/** An SSL monitor as the service returns it. */
export const SslCheck = z.object({
  ...sslCheckCreateShape,
  ...checkResponseFields,
  checkType: z.literal('SSL'),
  frequencyOffset: z.number().int(),
});
export type SslCheck = z.infer<typeof SslCheck>;
