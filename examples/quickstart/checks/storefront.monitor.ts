import { ApiCheck, AssertionBuilder, CheckGroupV2, Frequency, MaintenanceWindow } from '@vigil-mon/cli/constructs';

/** Both checks live in this group, so they share its locations and request defaults. */
const storefront = new CheckGroupV2('storefront', {
  name: 'Storefront',
  tags: ['storefront'],
  apiCheckDefaults: {
    // Checks use it as {{GROUP_BASE_URL}}; `vigil test -e GROUP_BASE_URL=…` points them elsewhere.
    url: 'https://shop.example.com',
    headers: [{ key: 'User-Agent', value: 'vigil-quickstart' }],
  },
});

new ApiCheck('storefront-home', {
  name: 'Storefront home page',
  group: storefront,
  tags: ['storefront'],
  request: {
    url: '{{GROUP_BASE_URL}}/',
    assertions: [AssertionBuilder.statusCode().equals(200), AssertionBuilder.responseTime().lessThan(1000)],
  },
});

new ApiCheck('products-api', {
  name: 'Products API',
  group: storefront,
  tags: ['storefront', 'api'],
  frequency: Frequency.EVERY_1M,
  request: {
    url: '{{GROUP_BASE_URL}}/api/products?limit=1',
    assertions: [AssertionBuilder.statusCode().equals(200), AssertionBuilder.jsonBody('$[0].id').isNotNull()],
  },
  degradedResponseTime: 2000,
  maxResponseTime: 5000,
});

/** Sunday-night deploys: alerts of everything tagged `storefront` are muted for two hours a week. */
new MaintenanceWindow('weekly-deploy', {
  name: 'Weekly storefront deploy',
  tags: ['storefront'],
  startsAt: '2030-01-06T22:00:00.000Z',
  endsAt: '2030-01-07T00:00:00.000Z',
  repeatUnit: 'WEEK',
  repeatInterval: 1,
});
