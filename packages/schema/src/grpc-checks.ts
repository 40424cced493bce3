/**
 * gRPC monitors: `POST /v1/checks/grpc`, `PUT /v1/checks/grpc/{id}` (extension routes,
 * docs/design-deviations.md) and the check as the service returns it. Shapes as the real service's
 * OpenAPI document (`ChecksV1GrpcMonitor`, `ChecksV1GrpcRequestRead`, `ChecksV1GrpcConfigRead`,
 * `ChecksV1GrpcMetadataItem`, `ChecksV1GrpcAssertionRead`); the create / update / response pattern
 * of `checks.ts`.
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

export const GRPC_MODES = ['BEHAVIOR', 'HEALTH'] as const;
export const GrpcMode = z.enum(GRPC_MODES, missingAware);
export type GrpcMode = z.infer<typeof GrpcMode>;

export const GRPC_SERVICE_DEFINITIONS = ['REFLECTION', 'PROTO_FILE'] as const;

export const GRPC_ASSERTION_SOURCES = ['RESPONSE_TIME', 'GRPC_RESPONSE', 'TEXT_BODY', 'GRPC_METADATA', 'GRPC_HEALTHCHECK_STATUS', 'GRPC_STATUS_CODE'] as const;
export const GrpcAssertionSource = z.enum(GRPC_ASSERTION_SOURCES, missingAware);
export type GrpcAssertionSource = z.infer<typeof GrpcAssertionSource>;

export const GRPC_ASSERTION_COMPARISONS = [
  'EQUALS', 'NOT_EQUALS', 'HAS_KEY', 'NOT_HAS_KEY', 'HAS_VALUE', 'NOT_HAS_VALUE', 'IS_EMPTY', 'NOT_EMPTY',
  'GREATER_THAN', 'LESS_THAN', 'CONTAINS', 'NOT_CONTAINS', 'IS_NULL', 'NOT_NULL',
] as const;

/** `grpc.health.v1.HealthCheckResponse.ServingStatus`: the numbers health-status targets are written as. */
export const GRPC_HEALTH_STATUSES = { UNKNOWN: 0, SERVING: 1, NOT_SERVING: 2, SERVICE_UNKNOWN: 3 } as const;

export const GrpcAssertion = z.object({
  source: GrpcAssertionSource,
  comparison: z.enum(GRPC_ASSERTION_COMPARISONS, missingAware),
  /** A JSONPath for GRPC_RESPONSE, a metadata key for GRPC_METADATA; empty otherwise. */
  property: z.string().default(''),
  target: z.string().default(''),
  regex: z.string().nullable().default(null),
});
export type GrpcAssertion = z.infer<typeof GrpcAssertion>;

export const GrpcMetadataItem = z.object({ key: z.string().min(1).max(256), value: z.string().max(8192) });

export const GrpcConfig = z.object({
  mode: GrpcMode.default('BEHAVIOR'),
  tls: z.boolean().default(true),
  metadata: z.array(GrpcMetadataItem).max(50).default([]),
  /** HEALTH mode: the service whose health is asked; empty asks for the server's. */
  service: z.string().nullable().optional(),
  /** BEHAVIOR mode: `package.Service/Method`. */
  method: z.string().nullable().optional(),
  serviceDefinition: z.enum([...GRPC_SERVICE_DEFINITIONS, '']).nullable().optional(),
  protoContent: z.string().max(256 * 1024).nullable().optional(),
  /** BEHAVIOR mode: the request message as JSON. */
  message: z.string().max(64 * 1024).nullable().optional(),
  encoding: z.enum(['PROTOBUF', 'FLATBUFFERS', '']).nullable().optional(),
  bfbsContent: z.string().nullable().optional(),
});
export type GrpcConfig = z.infer<typeof GrpcConfig>;

export const GRPC_TIMEOUT_MAX = 180;

export const GrpcRequest = z.object({
  /** The host, without scheme or port (the real document calls it `url`). */
  url: z.string().min(1).max(2048),
  port: z.number().int().min(1).max(65535),
  ipFamily: IpFamily.nullable().default('IPv4'),
  skipSSL: z.boolean().default(false),
  /** Seconds the call may take. */
  timeout: z.number().int().min(1).max(GRPC_TIMEOUT_MAX).nullable().default(60),
  grpcConfig: GrpcConfig,
  assertions: z.array(GrpcAssertion).max(ASSERTIONS_MAX).default([]),
});
export type GrpcRequest = z.infer<typeof GrpcRequest>;

export const GRPC_RESPONSE_TIME_MAX = 180000;
export const GRPC_DEGRADED_RESPONSE_TIME_DEFAULT = 10000;
export const GRPC_MAX_RESPONSE_TIME_DEFAULT = 20000;
const GrpcResponseTime = z.number().min(0).max(GRPC_RESPONSE_TIME_MAX).nullable();

const grpcCheckFields = {
  ...commonCheckFields,
  checkType: z.literal('GRPC').optional(),
  frequency: Frequency.optional(),
  degradedResponseTime: GrpcResponseTime.optional(),
  maxResponseTime: GrpcResponseTime.optional(),
  request: GrpcRequest,
};

const grpcCheckCreateShape = withDefaults(grpcCheckFields, {
  ...commonCheckDefaults,
  checkType: 'GRPC',
  degradedResponseTime: GRPC_DEGRADED_RESPONSE_TIME_DEFAULT,
  maxResponseTime: GRPC_MAX_RESPONSE_TIME_DEFAULT,
});

const OFFSET_FIELDS = whenFieldsValid('frequency', 'frequencyOffset', 'checkType');

/** Body of `POST /v1/checks/grpc`; required `name`, `request.url`, `request.port`, `request.grpcConfig`. */
export const GrpcCheckCreate = z.object(grpcCheckCreateShape).superRefine(refineFrequencyOffset(() => 'OTHER'), OFFSET_FIELDS);
export type GrpcCheckCreate = z.infer<typeof GrpcCheckCreate>;

/** Body of `PUT /v1/checks/grpc/{id}`: merge semantics, nothing defaulted (a sent `request` is whole). */
export const GrpcCheckUpdate = z.object(allOptional(grpcCheckFields)).superRefine(refineFrequencyOffset(() => 'OTHER'), OFFSET_FIELDS);
export type GrpcCheckUpdate = z.infer<typeof GrpcCheckUpdate>;

/** A gRPC monitor as the service returns it. */
export const GrpcCheck = z.object({
  ...grpcCheckCreateShape,
  ...checkResponseFields,
  checkType: z.literal('GRPC'),
  frequencyOffset: z.number().int(),
});
export type GrpcCheck = z.infer<typeof GrpcCheck>;
