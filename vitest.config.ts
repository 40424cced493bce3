import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['packages/*/src/**/*.test.ts', 'test/**/*.test.ts'],
    exclude: ['**/node_modules/**', 'test/fixtures/**'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Two cores on CI: more workers only add contention for the SQLite-backed servers each suite starts.
    maxWorkers: 2,
  },
});
