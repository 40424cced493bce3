import { StatusPageService } from '@vigil-mon/cli/constructs';

/** Components of status.acme.example; failing checks open incidents on them (`triggerIncident`). */
export const paymentsService = new StatusPageService('payments', { name: 'Payments' });
export const checkoutService = new StatusPageService('checkout', { name: 'Checkout' });
