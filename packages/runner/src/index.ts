/** @vigil/runner: runs one check and returns a check result. See docs/testing.md. */
export { createRunner, abortableSleep, DEFAULT_MAX_BODY_BYTES } from './runner.js';
export { runJob, checkRunIdOf, type RunnerReport } from './job.js';
export { BUILT_IN_EXECUTORS, executorRegistry } from './executors/registry.js';
export { interpolate, secretRedactor, variableLookup, REDACTED } from './variables.js';
export { retryPlan } from './retries.js';
export { DEFAULT_SERVICE_DENY_NETWORKS, NetworkPolicyRefusal, guardLookup, parseNetworkPolicy, type NetworkPolicy } from './network-policy.js';
export { DEFAULT_SANDBOX_LIMITS, describeSandbox, sandboxSupport, type SandboxLimits } from './scripts/sandbox.js';
export type * from './types.js';
