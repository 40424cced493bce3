import { AssertionBuilder, CheckGroupV2, Frequency } from '@vigil-mon/cli/constructs';
import { opsSlack, pagerduty, platformEmail } from './alert-channels';
import { envOr } from './env';

/**
 * The groups every team's folder imports: a check joins a group by object (`group: publicApi`),
 * so renaming a group is a one-file change and a typo is a type error.
 */
export const publicApi = new CheckGroupV2('public-api', {
  name: 'Public API',
  tags: ['production', 'api'],
  alertChannels: [pagerduty, opsSlack],
  apiCheckDefaults: {
    url: 'https://api.acme.example',
    headers: [{ key: 'Accept', value: 'application/json' }],
    assertions: [AssertionBuilder.statusCode().lessThan(500)],
  },
  environmentVariables: [
    { key: 'PAYMENTS_API_TOKEN', value: envOr('PAYMENTS_API_TOKEN', 'demo-payments-token'), secret: true },
  ],
  concurrency: 5,
  protect: true,
});

export const webFlows = new CheckGroupV2('web-flows', {
  name: 'Web user journeys',
  tags: ['production', 'browser'],
  alertChannels: [opsSlack, platformEmail],
  frequency: Frequency.EVERY_15M,
  locations: ['eu-west-1'],
});

export const internal = new CheckGroupV2('internal-tools', {
  name: 'Internal tools',
  tags: ['internal'],
  alertChannels: [platformEmail],
  muted: false,
});
