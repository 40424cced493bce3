/**
 * The parts of a try's result every monitor executor (DNS, SSL, TCP, ICMP, traceroute, gRPC) builds
 * the same way: the envelope of times, a failure that keeps the type's details beside its reason,
 * and a runner fault. One place, so a field the service reads is never filled differently by one type.
 */
import type { ExecutorContext, FailureKind, TryResult } from '../types.js';

/** The fields of a try every monitor fills alike; `stoppedAt` is taken now. */
export function monitorEnvelope(startedAt: Date, responseTime: number) {
  return {
    hasErrors: false,
    responseTime,
    startedAt: startedAt.toISOString(),
    stoppedAt: new Date().toISOString(),
    apiCheckResult: null,
    multiStepCheckResult: null,
  };
}

/**
 * A failed try of a monitor whose details live in `field` (`icmpCheckResult`, …): the reason,
 * redacted, both as the failure and as the details' `requestError`.
 */
export function monitorFailure(
  field: 'icmpCheckResult' | 'tracerouteCheckResult' | 'grpcCheckResult',
  startedAt: Date,
  responseTime: number,
  kind: FailureKind,
  reason: string,
  result: Record<string, unknown>,
  context: ExecutorContext,
): TryResult {
  const message = context.redact(reason);
  return {
    ...monitorEnvelope(startedAt, responseTime),
    hasFailures: true,
    isDegraded: false,
    overMaxResponseTime: false,
    failure: { kind, message },
    [field]: { ...result, requestError: message },
  };
}

/** A fault of the runner itself (not of the target): `hasErrors`, nothing measured. */
export function runnerFault(startedAt: Date, message: string): TryResult {
  return { ...monitorEnvelope(startedAt, 0), hasFailures: true, hasErrors: true, isDegraded: null, overMaxResponseTime: null, failure: { kind: 'RUNNER', message } };
}
