import type { WireCheck } from '../types.js';

/**
 * The fields a monitor's executor reads from its payload. The rest (alert channels, group, schedule)
 * is the service's business, and under `vigil test` it holds references to resources not created
 * yet (null ids) that the type's create schema would refuse.
 */
export function runFields(check: WireCheck): Record<string, unknown> {
  return {
    name: 'run',
    request: check.request,
    degradedResponseTime: check.degradedResponseTime,
    maxResponseTime: check.maxResponseTime,
    shouldFail: check.shouldFail,
  };
}
