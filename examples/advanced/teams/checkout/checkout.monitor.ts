import path from 'node:path';
import { MultiStepCheck } from '@vigil-mon/cli/constructs';
import { envOr } from '../../shared/env';
import { webFlows } from '../../shared/groups';
import { checkoutService } from '../../shared/status-page';

new MultiStepCheck('checkout-flow', {
  name: 'Checkout: add to basket',
  group: webFlows,
  tags: ['production', 'checkout'],
  // The entrypoint imports ./flows/helpers.ts; Vigil bundles both into the check's script.
  code: { entrypoint: path.join(__dirname, 'flows/checkout.spec.ts') },
  environmentVariables: [
    { key: 'STORE_REGION', value: 'eu' },
    { key: 'CHECKOUT_TEST_CARD', value: envOr('CHECKOUT_TEST_CARD', '4242424242424242'), secret: true },
  ],
  triggerIncident: {
    service: checkoutService,
    severity: 'CRITICAL',
    name: 'Checkout is down',
  },
  protect: true,
});
