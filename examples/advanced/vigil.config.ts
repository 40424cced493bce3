import { defineConfig } from '@vigil-mon/cli';
import { AlertEscalationBuilder, RetryStrategyBuilder } from '@vigil-mon/cli/constructs';

/**
 * Defaults every team inherits; a group or a check overrides them (config, then group, then the
 * check's own props: the most specific wins).
 */
export default defineConfig({
  projectName: 'Acme production monitoring',
  logicalId: 'acme-production',
  checks: {
    checkMatch: ['teams/**/*.monitor.ts'],
    locations: ['eu-west-1', 'us-east-1'],
    frequency: 10,
    runtimeId: '2024.09',
    retryStrategy: RetryStrategyBuilder.linearStrategy({ baseBackoffSeconds: 30, maxRetries: 2, sameRegion: false }),
    alertEscalationPolicy: AlertEscalationBuilder.runBasedEscalation(2, { amount: 2, interval: 10 }),
  },
  state: { backend: 'local', path: '.vigil/state.json' },
});
