import { defineConfig } from 'checkly'
import { RetryStrategyBuilder } from 'checkly/constructs'

/**
 * A project as the Checkly CLI lays it out (see https://www.checklyhq.com/docs/cli/project-structure/).
 * Vigil loads it as it is: `vigil validate`, `vigil plan`, `vigil test`.
 */
const config = defineConfig({
  projectName: 'Danube Shop Monitoring',
  logicalId: 'danube-shop-monitoring',
  /* Informational: shown by Checkly in test sessions; Vigil accepts it and sends it nowhere. */
  repoUrl: 'https://github.com/acme/danube-monitoring',
  checks: {
    frequency: 10,
    locations: ['us-east-1', 'eu-west-1'],
    tags: ['danube'],
    runtimeId: '2025.04',
    checkMatch: '**/__checks__/**/*.check.ts',
    retryStrategy: RetryStrategyBuilder.noRetries(),
    /* Variables of every check with a script that sets none of its own. */
    environmentVariables: [{ key: 'SHOP_URL', value: 'https://danube-web.shop' }],
    /* Every Playwright spec under __checks__/flows becomes a multi-step check of its own. */
    multiStepChecks: {
      testMatch: '**/__checks__/flows/*.spec.ts',
      frequency: 30,
    },
  },
  /* Defaults of `checkly test` (and `vigil test`); a command-line flag wins. */
  cli: {
    runLocation: 'eu-west-1',
    reporters: ['list'],
    retries: 0,
  },
})

export default config
