import { ApiCheck, AssertionBuilder, Frequency, RetryStrategyBuilder } from '@vigil-mon/cli/constructs';
import { incidentWebhook } from '../../shared/alert-channels';
import { publicApi } from '../../shared/groups';
import { paymentsService } from '../../shared/status-page';

/**
 * `{{PAYMENTS_API_TOKEN}}` is filled in at run time from the group's secret environment variable
 * (shared/groups.ts), so the token never appears in code, state or plans — a literal header would.
 */
const authorization = { key: 'Authorization', value: 'Bearer {{PAYMENTS_API_TOKEN}}' };

/** Production checks: `protect` makes any plan that would delete or replace them fail. */
new ApiCheck('payments-health', {
  name: 'Payments API health',
  group: publicApi,
  frequency: Frequency.EVERY_1M,
  tags: ['production', 'payments'],
  alertChannels: [incidentWebhook],
  request: {
    url: '{{GROUP_BASE_URL}}/payments/health',
    headers: [authorization],
    assertions: [
      AssertionBuilder.statusCode().equals(200),
      AssertionBuilder.jsonBody('$.status').equals('ok'),
      AssertionBuilder.responseTime().lessThan(800),
    ],
  },
  degradedResponseTime: 500,
  maxResponseTime: 3000,
  triggerIncident: {
    service: paymentsService,
    severity: 'MAJOR',
    name: 'Payments are failing',
    description: 'Card payments may fail or be slow. We are investigating.',
    notifySubscribers: true,
  },
  protect: true,
});

new ApiCheck('payments-refunds', {
  name: 'Refunds API',
  group: publicApi,
  tags: ['production', 'payments'],
  request: {
    url: '{{GROUP_BASE_URL}}/payments/refunds?limit=1',
    headers: [authorization],
    assertions: [AssertionBuilder.statusCode().equals(200), AssertionBuilder.headers('content-type').contains('json')],
  },
  retryStrategy: RetryStrategyBuilder.fixedStrategy({ baseBackoffSeconds: 10, maxRetries: 1 }),
  protect: true,
});
