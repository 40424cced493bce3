import { ApiCheck, AssertionBuilder, MaintenanceWindow, MultiStepCheck } from '@vigil-mon/cli/constructs';
import { internal, publicApi } from '../../shared/groups';

new ApiCheck('search-api', {
  name: 'Search API',
  group: publicApi,
  tags: ['production', 'search'],
  request: {
    url: '{{GROUP_BASE_URL}}/search?q=tea',
    assertions: [AssertionBuilder.statusCode().equals(200), AssertionBuilder.jsonBody('$.results.length').greaterThan(0)],
  },
});

/** Inline code suits a flow too small for its own file. */
new MultiStepCheck('search-reindex-dashboard', {
  name: 'Search reindex dashboard',
  group: internal,
  tags: ['internal', 'search'],
  code: {
    content: [
      "import { test, expect } from '@playwright/test';",
      "test('dashboard answers', async ({ request }) => {",
      "  const admin = process.env.SEARCH_ADMIN_URL ?? 'https://search-admin.acme.example';",
      "  expect((await request.get(`${admin}/health`)).ok()).toBeTruthy();",
      '});',
    ].join('\n'),
  },
});

/** The search cluster is reindexed on the first Sunday of every month. */
new MaintenanceWindow('search-reindex', {
  name: 'Monthly search reindex',
  tags: ['search'],
  startsAt: '2030-01-06T02:00:00.000Z',
  endsAt: '2030-01-06T04:00:00.000Z',
  repeatUnit: 'MONTH',
  repeatInterval: 1,
});
